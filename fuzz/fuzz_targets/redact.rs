//! Redaction of text: the default policy (`redact::redact_with` with no environment), and caller policies
//! through `api::redact_with` with fuzzed options JSON.
//!
//! Header: mode, flags (bit 0: plant a secret, mode 0 only), secret, position.
//!   mode 0  the payload (as UTF-8, invalid bytes replaced) under the default policy
//!   mode 1  `arbitrary` decodes `options::Options` from the front of the payload (method, hash key, disabled rules
//!           and categories, allowlist, extra rules with fuzzed or assembled patterns); the rest is the text
//!   mode 2  the payload's first line is the options JSON as it is, the rest is the text
//!
//! Properties: findings lie within the text, on character boundaries, non-empty, sorted and non-overlapping;
//! the output is exactly the text with each finding's span replaced by the options' replacement for it (so
//! it is valid UTF-8 and nothing else changed); under the default policy redaction is idempotent (the
//! output redacted again has no finding) and a planted secret never survives; options the policy refuses
//! are a clean error object, and `api::redact_with` refuses exactly what `Redactor::from_json` refuses.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use jsonrpc_errors_fuzz::header::Header;
use jsonrpc_errors_fuzz::json::parse_one;
use jsonrpc_errors_fuzz::options::Options;
use jsonrpc_errors_fuzz::{first_line, known, secrets, text};
use jsonrpc_errors_guest::api;
use jsonrpc_errors_guest::redact::{self, Redactor, Secrets};
use libfuzzer_sys::fuzz_target;

/// A finding as both entry points report it.
struct Span<'a> {
    rule: &'a str,
    start: usize,
    end: usize,
}

/// Checks findings against the text and the output: in bounds, on boundaries, non-empty, sorted, disjoint,
/// and the output exactly the text with each span replaced by the options' replacement.
fn check(input: &str, output: &str, spans: &[Span<'_>], redactor: &Redactor) {
    let mut expected = String::with_capacity(output.len());
    let mut at = 0;
    for s in spans {
        assert!(
            s.end <= input.len(),
            "finding {}..{} past the end ({}) of the text",
            s.start,
            s.end,
            input.len()
        );
        assert!(
            input.is_char_boundary(s.start) && input.is_char_boundary(s.end),
            "finding {}..{} splits a character",
            s.start,
            s.end
        );
        if !known("redact-empty-finding") {
            assert!(
                s.start < s.end,
                "an empty finding at {} ({})",
                s.start,
                s.rule
            );
        }
        assert!(
            s.start >= at,
            "findings overlap or are out of order: {}..{} after {at}",
            s.start,
            s.end
        );
        expected.push_str(&input[at..s.start]);
        expected.push_str(&redactor.replacement(s.rule, &input[s.start..s.end]));
        at = s.end;
    }
    expected.push_str(&input[at..]);
    assert_eq!(
        output, expected,
        "the output is not the text with its findings replaced"
    );
}

fuzz_target!(|data: &[u8]| {
    let (h, payload) = Header::split(data);
    match h.mode % 3 {
        0 => default_redactor(&h, payload),
        1 => {
            let mut u = Unstructured::new(payload);
            let Ok(options) = Options::arbitrary(&mut u) else {
                return;
            };
            caller_policy(&options.to_json(), &text(u.take_rest()));
        }
        _ => {
            let (options, rest) = first_line(payload);
            caller_policy(&text(options), &text(rest));
        }
    }
});

fn default_redactor(h: &Header, payload: &[u8]) {
    let secret = secrets::secret(h.secret, false);
    let fuzzed = text(payload).into_owned();
    let planted = h.flag(0) && secrets::leak_in(fuzzed.as_bytes()).is_none();
    let input = if planted {
        String::from_utf8(secrets::plant(fuzzed.as_bytes(), h.position(), secret)).unwrap()
    } else {
        fuzzed
    };

    let redactor = Redactor::default();
    let r = redact::redact_with(&input, Secrets::none(), &redactor);
    let spans: Vec<Span<'_>> = r
        .findings
        .iter()
        .map(|f| Span {
            rule: &f.rule,
            start: f.start,
            end: f.end,
        })
        .collect();
    check(&input, &r.text, &spans, &redactor);
    // `written` locates each replacement in the output.
    assert_eq!(r.written.len(), r.findings.len());
    for (f, &(from, to)) in r.findings.iter().zip(&r.written) {
        assert_eq!(
            r.text.get(from..to),
            Some(&*redactor.replacement(&f.rule, &input[f.start..f.end])),
            "written range of {}",
            f.rule
        );
    }
    let again = redact::redact_with(&r.text, Secrets::none(), &redactor);
    if !known("redact-not-idempotent") {
        assert!(again.findings.is_empty(), "not idempotent: redacting the output again finds {:?}\nin:  {input:?}\nout: {:?}\nout again: {:?}", again.findings, r.text, again.text);
    }
    if planted {
        secrets::assert_no_leak(&r.text, "the redacted text");
    }
}

fn caller_policy(options: &str, input: &str) {
    let redactor = Redactor::from_json(options);
    match (api::redact_with(input, options), redactor) {
        (Err(e), Err(_)) => {
            let failure = parse_one(&api::error_json(&e), "redact's refusal");
            assert_eq!(
                failure["code"], -32602,
                "a refused redactor is -32602: {failure}"
            );
        }
        (Ok(out), Ok(redactor)) => {
            let v = parse_one(&out, "redact's output");
            let output = v["text"]
                .as_str()
                .unwrap_or_else(|| panic!("no text in {out}"));
            let findings = v["findings"]
                .as_array()
                .unwrap_or_else(|| panic!("no findings in {out}"));
            let spans: Vec<Span<'_>> = findings
                .iter()
                .map(|f| Span {
                    rule: f["rule"].as_str().expect("a finding's rule"),
                    start: f["start"].as_u64().expect("a finding's start") as usize,
                    end: f["end"].as_u64().expect("a finding's end") as usize,
                })
                .collect();
            check(input, output, &spans, &redactor);
        }
        (Ok(out), Err(e)) => {
            panic!("api::redact_with accepted options the redactor refuses ({e}): {out}")
        }
        (Err(e), Ok(_)) => panic!(
            "api::redact_with refused options the redactor accepts: {}",
            api::error_json(&e)
        ),
    }
}
