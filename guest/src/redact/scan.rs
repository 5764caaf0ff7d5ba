//! The scan: a rule set's rules run inside their windows, each validated match a [`Candidate`]; and the
//! candidates of a text, under the built-in rules, a caller's rules and the environment's values.

use super::candidate::Candidate;
use super::engine::engine;
use super::finding::{ENV_CATEGORY, ENV_RULE};
use super::normalize;
use super::policy::Policy;
use super::programs;
use super::rules::{Validator, WindowKind};
use super::ruleset::{cannot_fail, RuleSet};
use super::secrets::Secrets;
use super::validators;
use super::windows::holding_required;
use aho_corasick::automaton::Automaton as _;
use aho_corasick::Input;
use std::borrow::Cow;

/// How many keys inside a value an assignment rule refused are matched again (see `scan_assignments`).
const MAX_RESCANS_INSIDE_A_REFUSED_VALUE: usize = 8;

impl RuleSet {
    /// Adds every validated match of every enabled rule to `candidates`; `priority_base` orders rule sets.
    pub(super) fn scan(
        &self,
        text: &str,
        policy: &Policy,
        priority_base: usize,
        candidates: &mut Vec<Candidate>,
    ) {
        for (i, windows) in self.windows(text).into_iter().enumerate() {
            let rule = &self.rules[i];
            if windows.is_empty() || !policy.enabled(&rule.id, &rule.category) {
                continue;
            }
            let windows = if rule.requires.is_empty() {
                windows
            } else {
                holding_required(text, &rule.requires, windows)
            };
            if windows.is_empty() {
                continue;
            }
            if rule.window == WindowKind::Assignment {
                self.scan_assignments(i, text, &windows, policy, priority_base, candidates);
                continue;
            }
            let blocks;
            let windows = if rule.span > 0 {
                blocks = self.scan_blocks(i, text, windows);
                &blocks
            } else {
                &windows
            };
            for &(offset, end) in windows {
                self.accept_all(
                    i,
                    text,
                    &text[offset..end],
                    offset,
                    policy,
                    priority_base,
                    candidates,
                );
            }
        }
    }

    /// Assignment windows start at an identifier and run to the end of the line. Unanchored, the pattern
    /// (a long case-insensitive alternation of key names) would be tried at every byte of the rest of the
    /// line; anchored, a window whose identifier is no secret key (`key=items:42`) is refused within a few
    /// bytes. Every match holds a keyword that opened a window at the match's identifier, so anchoring
    /// finds the same matches; windows inside a match already taken are skipped, as a search resuming after
    /// that match would skip them.
    fn scan_assignments(
        &self,
        i: usize,
        text: &str,
        windows: &[(usize, usize)],
        policy: &Policy,
        priority_base: usize,
        candidates: &mut Vec<Candidate>,
    ) {
        let mut resume = 0;
        // The end of the longest refused match so far, and how many windows inside it were matched again.
        let (mut refused_to, mut rescanned) = (0, 0);
        let mut memo = programs::Memo::default();
        for &(offset, end) in windows {
            if offset < resume {
                continue;
            }
            // Only a value taken as a secret hides the windows inside it: a refused one (a placeholder, a plain
            // word) must not keep the next key on the line from being looked at. But a value whose characters
            // take the rule's keyword and its `=` (a cookie's `a&cookie=a&…`) would be matched again from
            // every key inside it, each time to its end: quadratic. The first few keys inside a refused value
            // are looked at (every realistic line has fewer); the rest of it is not.
            if offset < refused_to {
                rescanned += 1;
                if rescanned > MAX_RESCANS_INSIDE_A_REFUSED_VALUE {
                    continue;
                }
            }
            let hay = &text[offset..end];
            let (taken, whole) = if let Some(program) = self.program(i) {
                match programs::match_after_identifier_with(program, hay, &mut memo) {
                    Some(m) => (
                        self.accept(
                            i,
                            &|g| m.get(g),
                            text,
                            hay,
                            offset,
                            policy,
                            priority_base,
                            candidates,
                        ),
                        m.get(0),
                    ),
                    None => (false, None),
                }
            } else {
                match self.anchored_regex(i).captures(hay) {
                    Some(c) => {
                        let group = |g: usize| c.get(g).map(|m| (m.start(), m.end()));
                        (
                            self.accept(
                                i,
                                &group,
                                text,
                                hay,
                                offset,
                                policy,
                                priority_base,
                                candidates,
                            ),
                            group(0),
                        )
                    }
                    None => (false, None),
                }
            };
            match (taken, whole) {
                (true, Some((_, match_end))) => resume = offset + match_end,
                (false, Some((_, match_end))) if offset + match_end > refused_to => {
                    (refused_to, rescanned) = (offset + match_end, 0);
                }
                _ => {}
            }
        }
    }

    /// Adds one match's secret to `candidates`, marked refused when it is allowlisted or its validator refuses
    /// it (an empty one is not added); says whether it was taken as a secret. `group` gives a group's span in
    /// `hay` (group 0: the whole match), which starts at `offset` in `text`.
    #[allow(clippy::too_many_arguments)]
    fn accept(
        &self,
        i: usize,
        group: &dyn Fn(usize) -> Option<(usize, usize)>,
        text: &str,
        hay: &str,
        offset: usize,
        policy: &Policy,
        priority_base: usize,
        candidates: &mut Vec<Candidate>,
    ) -> bool {
        let rule = &self.rules[i];
        let secret = if rule.secret_groups.is_empty() {
            group(0)
        } else {
            rule.secret_groups.iter().find_map(|g| group(*g))
        };
        let Some((start, mut end)) = secret else {
            return false;
        };
        if rule.validator == Some(Validator::PemBlock) {
            // Judged on the text, not the window: a block's window is the block itself.
            end = pem_block_end(text, offset + start, offset + end) - offset;
        }
        // A secret never takes the line break that ends its last line: the next line stays a line of its
        // own after the marker (multi-line rules match whole lines, newline included).
        let value = &hay[start..end];
        let value = value
            .strip_suffix('\n')
            .map_or(value, |v| v.strip_suffix('\r').unwrap_or(v));
        if value.is_empty() {
            return false;
        }
        // The match's name: its first group that holds no secret (`db_pass` of `db_pass=…`).
        let name = (1..10)
            .filter(|g| !rule.secret_groups.contains(g))
            .find_map(group);
        let around = validators::Around {
            text,
            start: offset + start,
            end: offset + start + value.len(),
            match_start: offset + group(0).map_or(start, |m| m.0),
            name_start: offset + name.map_or(start, |n| n.0),
            name_end: offset + name.map_or(start, |n| n.1),
        };
        let refused = engine().allowlisted(value)
            || policy.allows(value)
            || rule.validator.is_some_and(|v| {
                !validators::passes(v, name.map(|(s, e)| &hay[s..e]), value, around)
            });
        // A refused value is kept too: if another finding's redaction reaches its first or last byte, the
        // verdict was on text that is no longer there, and `apply` redacts it after all.
        // The catalogue's rules live as long as the process: their names are borrowed, not copied.
        let builtin = &engine().builtin;
        let (id, category) = if std::ptr::eq(self, builtin) {
            (
                Cow::Borrowed(builtin.rules[i].id.as_str()),
                Cow::Borrowed(builtin.rules[i].category.as_str()),
            )
        } else {
            (
                Cow::Owned(rule.id.clone()),
                Cow::Owned(rule.category.clone()),
            )
        };
        candidates.push(Candidate {
            start: offset + start,
            end: offset + start + value.len(),
            priority: priority_base + i,
            rule: id,
            category,
            delimits: rule.delimits,
            refused,
        });
        !refused
    }

    /// Every match of rule `i` in `hay` (non-overlapping, leftmost first) offered to `accept`: through the
    /// rule's step program when it has one, else its regex.
    #[allow(clippy::too_many_arguments)]
    fn accept_all(
        &self,
        i: usize,
        text: &str,
        hay: &str,
        offset: usize,
        policy: &Policy,
        priority_base: usize,
        candidates: &mut Vec<Candidate>,
    ) {
        if let Some(program) = self.program(i) {
            for m in programs::matches(program, hay) {
                self.accept(
                    i,
                    &|g| m.get(g),
                    text,
                    hay,
                    offset,
                    policy,
                    priority_base,
                    candidates,
                );
            }
        } else {
            for caps in self.regex(i).captures_iter(hay) {
                self.accept(
                    i,
                    &|g| caps.get(g).map(|m| (m.start(), m.end())),
                    text,
                    hay,
                    offset,
                    policy,
                    priority_base,
                    candidates,
                );
            }
        }
    }
}

/// Where a private-key block found in `text` from `start` to `end` really ends: a block with no END line whose
/// last line runs on into text on the same line (`-----BEGIN PRIVATE KEY-----` then `INFO server started`:
/// the body pattern took `INFO`) ends before that line. A key's line is followed by its line's end, an
/// escaped one, or a closing quote, never by a space, `:` or `-` and more text.
fn pem_block_end(text: &str, start: usize, end: usize) -> usize {
    let bytes = text.as_bytes();
    if bytes[start..end].ends_with(b"-----") {
        return end;
    }
    // Spaces the body took after its last line, then more text: the line runs on.
    let spaces = bytes[start..end]
        .iter()
        .rev()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    let runs_on = match bytes.get(end) {
        Some(b' ' | b'\t') => bytes.get(end + 1).is_some_and(|b| !b.is_ascii_whitespace()),
        Some(b':' | b'-') => true,
        Some(b) => spaces > 0 && !b.is_ascii_whitespace(),
        None => false,
    };
    if !runs_on {
        return end;
    }
    // Back over the last line, then over the separator before it (line breaks, escaped ones, and the quotes,
    // spaces and `+` of a string printed in pieces).
    let mut cut = end - spaces;
    while cut > start
        && (bytes[cut - 1].is_ascii_alphanumeric() || matches!(bytes[cut - 1], b'+' | b'/' | b'='))
    {
        cut -= 1;
    }
    loop {
        match &bytes[start..cut] {
            [.., b' ', b'+'] | [.., b'\\', b'n' | b'r'] => cut -= 2,
            [.., b' ' | b'\t' | b'\n' | b'\r' | b'\'' | b'"' | b'\\'] => cut -= 1,
            _ => break,
        }
    }
    cut
}

/// Every validated match of every enabled rule, before overlaps are resolved. The rules see the text with
/// look-alike characters folded and invisible ones dropped (`normalize`); what they find is mapped back, so
/// the original characters are what is redacted.
pub(super) fn candidates(text: &str, secrets: &Secrets, policy: &Policy) -> Vec<Candidate> {
    let Some(view) = normalize::view(text) else {
        return candidates_as_written(text, secrets, policy);
    };
    let mut found = candidates_as_written(&view.text, secrets, policy);
    for c in &mut found {
        c.start = view.original(c.start, false);
        c.end = view.original(c.end, true);
    }
    // An environment value written with such characters is found as written.
    environment_values(text, secrets, policy, &mut found);
    found
}

fn candidates_as_written(text: &str, secrets: &Secrets, policy: &Policy) -> Vec<Candidate> {
    let e = engine();
    let mut candidates = Vec::new();
    e.builtin.scan(text, policy, 0, &mut candidates);
    if let Some(extra) = &policy.extra {
        // Caller rules rank after the built-ins: a built-in's more specific name wins a tie.
        extra.scan(text, policy, e.builtin.rules.len(), &mut candidates);
    }
    environment_values(text, secrets, policy, &mut candidates);
    candidates
}

/// The caller's environment secrets found in `text`.
fn environment_values(
    text: &str,
    secrets: &Secrets,
    policy: &Policy,
    candidates: &mut Vec<Candidate>,
) {
    if let Some(matcher) = secrets
        .matcher
        .as_ref()
        .filter(|_| policy.enabled(ENV_RULE, ENV_CATEGORY))
    {
        // An unanchored search (the DFA's default start kind) cannot fail.
        for m in matcher
            .try_find_iter(Input::new(text))
            .unwrap_or_else(|_| cannot_fail("an unanchored DFA search"))
        {
            candidates.push(Candidate {
                start: m.start(),
                end: m.end(),
                priority: usize::MAX,
                rule: Cow::Borrowed(ENV_RULE),
                category: Cow::Borrowed(ENV_CATEGORY),
                delimits: false,
                refused: false,
            });
        }
    }
}
