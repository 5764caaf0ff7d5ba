//! The step programs against the regexes they stand for: a differential target.
//!
//! A rule's step program is derived from its pattern at build time (`guest/build/programs.rs`) and run by
//! the guest's own small engine (`guest/src/redact/programs.rs`) instead of regex-lite. The programs are only
//! right if they find exactly what regex-lite finds, so this target runs both on the same text.
//!
//! Header: selector (which rules: all, or one by index), then the text (invalid UTF-8 replaced).
//!
//! Properties: for every rule that has a program, the program's matches are regex-lite's `captures_iter`
//! matches, every group's span included; for an assignment rule, also the anchored regex's captures from each
//! start the guest may search from (the window's anchored search, `match_after_identifier`): every start in
//! short texts, every identifier run's start in long ones.

#![no_main]

use jsonrpc_errors_fuzz::text;
use jsonrpc_errors_guest::redact::{self, programs, WindowKind};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// Every group's span, from either engine, so the two compare as one value.
type Spans = Vec<Option<(usize, usize)>>;

/// The rules that have a program: index, program, the rule's regex, and for an assignment rule its anchored
/// form. Compiled once: a compile per input would be most of the time.
struct Compiled {
    id: &'static str,
    program: &'static [u8],
    regex: regex_lite::Regex,
    anchored: Option<regex_lite::Regex>,
}

fn compiled() -> &'static [Compiled] {
    static RULES: OnceLock<Vec<Compiled>> = OnceLock::new();
    RULES.get_or_init(|| {
        let rules = redact::catalogue_rules();
        let with_programs: Vec<Compiled> = rules
            .iter()
            .enumerate()
            .filter_map(|(i, rule)| {
                let program = programs::for_rule(i)?;
                Some(Compiled {
                    id: rule.id.as_str(),
                    program,
                    regex: regex_lite::Regex::new(&rule.pattern)
                        .expect("a catalogue pattern compiles"),
                    anchored: (rule.window == WindowKind::Assignment).then(|| {
                        regex_lite::Regex::new(&redact::anchored_pattern(&rule.pattern))
                            .expect("its anchored form compiles")
                    }),
                })
            })
            .collect();
        // A build without step programs would make this target pass vacuously.
        assert!(
            !with_programs.is_empty(),
            "no rule has a step program: build the guest with `step-programs`"
        );
        with_programs
    })
}

fn regex_spans(regex: &regex_lite::Regex, hay: &str) -> Vec<Spans> {
    regex
        .captures_iter(hay)
        .map(|c| {
            (0..c.len())
                .map(|g| c.get(g).map(|m| (m.start(), m.end())))
                .collect()
        })
        .collect()
}

/// Texts up to this long are checked from every start; longer ones from where the guest starts (a quadratic
/// check on long inputs would slow the run to a crawl and add nothing the short ones do not reach).
const SHORT: usize = 64;

fn check(rule: &Compiled, hay: &str) {
    let groups = rule.regex.captures_len();
    let expected = regex_spans(&rule.regex, hay);
    let found: Vec<Spans> = programs::matches(rule.program, hay)
        .map(|m| (0..groups).map(|g| m.get(g)).collect())
        .collect();
    assert_eq!(
        found, expected,
        "rule {}: the program and the regex disagree on {hay:?}",
        rule.id
    );
    let Some(anchored) = &rule.anchored else {
        return;
    };
    // Group 0 compared by its end: the anchored regex's match starts at the window, the program's at the key.
    let spans = |get: &dyn Fn(usize) -> Option<(usize, usize)>| -> Spans {
        (0..anchored.captures_len())
            .map(|g| {
                if g == 0 {
                    get(0).map(|(_, e)| (0, e))
                } else {
                    get(g)
                }
            })
            .collect()
    };
    // Where the guest searches from: an identifier run's start (`match_after_identifier` then tries every
    // start within the run itself). Short texts are checked from every character, runs' insides included.
    let identifier = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
    let bytes = hay.as_bytes();
    let starts = hay.char_indices().map(|(i, _)| i);
    for start in starts.filter(|&i| hay.len() <= SHORT || i == 0 || !identifier(bytes[i - 1])) {
        let window = &hay[start..];
        let expected = anchored
            .captures(window)
            .map(|c| spans(&|g| c.get(g).map(|m| (m.start(), m.end()))));
        let found =
            programs::match_after_identifier(rule.program, window).map(|m| spans(&|g| m.get(g)));
        assert_eq!(
            found, expected,
            "rule {}: the program and the anchored regex disagree from byte {start} of {hay:?}",
            rule.id
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let hay = text(rest);
    let rules = compiled();
    // Half the selectors pick one rule, so an input that matters to one rule is not slowed by all the others.
    if selector & 0x80 == 0 {
        check(&rules[selector as usize % rules.len()], &hay);
    } else {
        rules.iter().for_each(|rule| check(rule, &hay));
    }
});
