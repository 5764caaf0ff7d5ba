//! The redactor: the rule catalogue (`redaction/rules.toml`), caller-supplied rules and environment values.
//!
//! Design (the scan is linear in the input, whatever it holds):
//! 1. One ASCII-case-insensitive Aho-Corasick pass over the input finds every rule keyword. Text with no
//!    keyword (most of any log) is never seen by a regex at all.
//! 2. Each keyword hit opens a candidate window for its rule: the line it sits on (a rule with `span` also
//!    takes the following `span` bytes, for PEM blocks and stack traces). A rule's windows are merged, so each
//!    input byte is scanned at most once per rule.
//! 3. The rule's regex runs only inside its windows. Windows start and end at line boundaries, so `^`, `$`
//!    and `\b` behave as on the whole text, and no match is cut short.
//! 4. Rules whose match starts at the identifier holding the keyword (`window = "assignment"`: key=value
//!    assignments, URL schemes, header names) get one window per identifier and their regex is anchored
//!    there, so it is refused within a few bytes instead of being tried at every byte to the end of the line.
//!    regex-lite is a PikeVM, whose cost is per byte and per live NFA state: the bytes it never sees are
//!    what make the scan fast.
//!
//! Worst case: text where every line holds a keyword of every rule is scanned once per rule — still linear,
//! `O(rules × input)`; regex-lite's matching is itself linear in the window (no backtracking blow-up).
//!
//! The regex engine is `regex-lite` (no SIMD literal search, which wasm lacks anyway, and a fraction of the
//! code size); the prefilter and the windows are what make the scan fast, in wasm and natively alike, and
//! every runtime runs the very same engine. Regexes compile lazily, on the first input that triggers their
//! rule, so a fresh instance starts fast.
//!
//! Layout (after Sentry's relay-pii): rule types in [`rules`], checks in [`validators`], caller options in
//! [`policy`], JSON walking in [`json`]; the rules themselves are data.

pub mod json;
pub mod policy;
pub mod rules;
pub mod validators;
mod encodings;

pub use json::{redact_value, JsonFinding};
pub use policy::{Method, Policy, PolicyError};
pub use rules::{examples, Catalogue, Examples, Rule, Trigger, Validator, WindowKind};

use aho_corasick::automaton::Automaton as _;
use aho_corasick::dfa::DFA;
use aho_corasick::{Input, MatchKind};
use regex_lite::Regex;
use serde::Serialize;
use std::sync::OnceLock;

/// The rule id used for caller-supplied environment values.
pub const ENV_RULE: &str = "env-value";
pub const ENV_CATEGORY: &str = "environment";

/// One redacted span. Offsets are byte offsets into the input; the secret itself is never kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: String,
    pub category: String,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redacted {
    pub text: String,
    pub findings: Vec<Finding>,
    /// Where each finding's replacement sits in `text` (byte range), in the findings' order.
    #[serde(skip)]
    pub written: Vec<(usize, usize)>,
}

/// Rules with their keyword prefilter and (lazily) compiled regexes.
pub struct RuleSet {
    rules: Vec<Rule>,
    regexes: Vec<OnceLock<Regex>>,
    /// For assignment windows: the pattern anchored at the window's start (see [`RuleSet::scan_assignments`]).
    anchored: Vec<OnceLock<Regex>>,
    prefilter: Option<DFA>,
    /// keyword pattern index → rule index
    keyword_rule: Vec<usize>,
    /// rules with no keyword: their window is the whole input
    unconditional: Vec<usize>,
    /// rules whose windows come from a structural scan (see [`Trigger`])
    structural: Vec<usize>,
}

/// The line around `at`: from just after the previous newline to just after the next one at or past `reach`.
fn line_window(bytes: &[u8], at: usize, reach: usize) -> (usize, usize) {
    let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
    let reach = reach.min(bytes.len());
    let end = memchr::memchr(b'\n', &bytes[reach..]).map_or(bytes.len(), |i| reach + i + 1);
    (start, end)
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The windows that hold (whole) at least one of a rule's required literals. Each literal's next occurrence
/// is remembered with the position its search started from, so windows in text order cost one forward pass
/// over the text, however many share a line.
fn holding_required(text: &str, required: &[String], mut windows: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    // Per literal: (searched from, next occurrence at or after that point, or usize::MAX for none).
    let mut next: Vec<(usize, usize)> = vec![(usize::MAX, usize::MAX); required.len()];
    windows.retain(|&(start, end)| {
        required.iter().zip(next.iter_mut()).any(|(literal, (from, at))| {
            if start < *from || *at < start {
                *from = start;
                // `str::find`, not memchr's memmem: that searcher's code costs the npm wasm 3 KB gzipped.
                *at = text[start..].find(literal.as_str()).map_or(usize::MAX, |p| start + p);
            }
            *at != usize::MAX && *at + literal.len() <= end
        })
    });
    windows
}

/// The whitespace-delimited word holding `start..end`, plus `words_after` following words (within the line).
fn word_window(bytes: &[u8], start: usize, end: usize, words_after: usize) -> (usize, usize) {
    let mut s = start;
    while s > 0 && !is_space(bytes[s - 1]) {
        s -= 1;
    }
    let mut e = end;
    let mut words = words_after + 1;
    loop {
        while e < bytes.len() && !is_space(bytes[e]) {
            e += 1;
        }
        words -= 1;
        if words == 0 || e >= bytes.len() || bytes[e] == b'\n' {
            break;
        }
        while e < bytes.len() && matches!(bytes[e], b' ' | b'\t') {
            e += 1;
        }
    }
    (s, e)
}

fn push_window(list: &mut Vec<(usize, usize)>, (start, end): (usize, usize)) {
    match list.last_mut() {
        Some(last) if start <= last.1 => last.1 = last.1.max(end),
        _ => list.push((start, end)),
    }
}

fn is_identifier_byte(b: u8) -> bool {
    matches!(b, b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-')
}

/// The start of the identifier (`db_password`, `x-api-key`, `app.secret`) holding the byte at `at`.
fn identifier_start(bytes: &[u8], mut at: usize) -> usize {
    while at > 0 && is_identifier_byte(bytes[at - 1]) {
        at -= 1;
    }
    at
}

/// After a keyword: an optional closing quote, spaces, then `=` or `:`.
fn assignment_follows(bytes: &[u8], mut at: usize) -> bool {
    if matches!(bytes.get(at), Some(b'"' | b'\'')) {
        at += 1;
    }
    while matches!(bytes.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    matches!(bytes.get(at), Some(b'=' | b':'))
}

/// Runs of >= 13 digits, single spaces or dashes allowed between digits.
fn digit_runs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let (mut i, n) = (0, bytes.len());
    while i < n {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let mut digits = 0;
        while i < n {
            if bytes[i].is_ascii_digit() {
                digits += 1;
                i += 1;
            } else if matches!(bytes[i], b' ' | b'-') && i + 1 < n && bytes[i + 1].is_ascii_digit() && i > start && bytes[i - 1].is_ascii_digit() {
                i += 1;
            } else {
                break;
            }
        }
        if digits >= 13 {
            found.push((start, i));
        }
    }
    found
}

/// IBAN-shaped runs: two capitals, two digits, then >= 11 capitals, digits or spaces.
fn iban_shapes(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let n = bytes.len();
    let mut i = 0;
    while i + 4 <= n {
        if bytes[i].is_ascii_uppercase()
            && bytes[i + 1].is_ascii_uppercase()
            && bytes[i + 2].is_ascii_digit()
            && bytes[i + 3].is_ascii_digit()
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
        {
            let tail = bytes[i + 4..].iter().take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b' ').count();
            if tail >= 11 {
                found.push((i, i + 4 + tail));
                i += 4 + tail;
                continue;
            }
        }
        i += 1;
    }
    found
}

impl RuleSet {
    fn new(rules: Vec<Rule>) -> Self {
        let mut keywords = Vec::new();
        let mut keyword_rule = Vec::new();
        let mut unconditional = Vec::new();
        let mut structural = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            if rule.trigger != Trigger::Keywords {
                structural.push(i);
                continue;
            }
            if rule.keywords.is_empty() {
                unconditional.push(i);
            }
            for k in &rule.keywords {
                keywords.push(k.clone());
                keyword_rule.push(i);
            }
        }
        let prefilter = (!keywords.is_empty()).then(|| {
            // The DFA type itself, not `AhoCorasick`: that picks its automaton at run time, so the code of all
            // three would be linked into the wasm. The DFA is also the fastest search.
            DFA::builder()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .build(&keywords)
                .expect("keywords are plain literals")
        });
        let regexes = rules.iter().map(|_| OnceLock::new()).collect();
        let anchored = rules.iter().map(|_| OnceLock::new()).collect();
        RuleSet { rules, regexes, anchored, prefilter, keyword_rule, unconditional, structural }
    }

    /// Caller rules arrive compiled (so a bad pattern was already reported).
    pub(crate) fn with_regexes(rules: Vec<Rule>, compiled: Vec<Regex>) -> Self {
        let set = RuleSet::new(rules);
        for (slot, regex) in set.regexes.iter().zip(compiled) {
            let _ = slot.set(regex);
        }
        set
    }

    fn regex(&self, i: usize) -> &Regex {
        // Built-in patterns are compiled by the catalogue test on every build before anything ships.
        self.regexes[i].get_or_init(|| Regex::new(&self.rules[i].pattern).expect("rule pattern compiles"))
    }

    /// The rule's pattern, matched only from the start of the haystack, after any run of identifier
    /// characters (shortest first, so the match found is the leftmost one an unanchored search would find).
    /// Capture group numbers are unchanged.
    fn anchored_regex(&self, i: usize) -> &Regex {
        self.anchored[i].get_or_init(|| {
            Regex::new(&format!("^[A-Za-z0-9_.\\-]*?(?:{})", self.rules[i].pattern)).expect("rule pattern compiles")
        })
    }

    /// Per rule, the merged candidate windows (byte ranges on line boundaries) that its keywords open.
    fn windows(&self, text: &str) -> Vec<Vec<(usize, usize)>> {
        let bytes = text.as_bytes();
        // Allocated on the first window only: most short texts open none.
        let mut windows: Vec<Vec<(usize, usize)>> = Vec::new();
        let n = self.rules.len();
        for &i in &self.unconditional {
            if windows.is_empty() {
                windows.resize(n, Vec::new());
            }
            windows[i].push((0, text.len()));
        }
        for &i in &self.structural {
            let starts = match self.rules[i].trigger {
                Trigger::DigitRun => digit_runs(bytes),
                Trigger::IbanShape => iban_shapes(bytes),
                Trigger::Keywords => Vec::new(),
            };
            for (start, end) in starts {
                // The run itself and one character either side (for `\b`), on character boundaries.
                let mut s = start.saturating_sub(1);
                while !text.is_char_boundary(s) {
                    s -= 1;
                }
                let mut e = (end + 1).min(bytes.len());
                while !text.is_char_boundary(e) {
                    e += 1;
                }
                if windows.is_empty() {
                    windows.resize(n, Vec::new());
                }
                push_window(&mut windows[i], (s, e));
            }
        }
        let Some(prefilter) = &self.prefilter else { return windows };
        // Most short texts (messages, field values) hold no keyword at all: one quick check skips the
        // overlapping search.
        if prefilter.try_find(&Input::new(text).earliest(true)).expect("an unanchored DFA search").is_none() {
            return windows;
        }
        if windows.is_empty() {
            windows.resize(n, Vec::new());
        }
        // Per multi-line rule: where the line of its last window ends. Further hits on that line add nothing,
        // and are skipped before their line is looked for: one line holding thousands of hits (BEGIN headers
        // pasted into one JSON string) is scanned for its ends once, not once per hit.
        let mut span_line_end = vec![0usize; n];
        // A DFA built with MatchKind::Standard supports overlapping search: it cannot fail.
        for m in prefilter.try_find_overlapping_iter(Input::new(text)).expect("a Standard DFA searches overlapping") {
            let rule = self.keyword_rule[m.pattern().as_usize()];
            let list = &mut windows[rule];
            if self.rules[rule].span > 0 {
                // Multi-line secrets start on their keyword's line: one window per such line, not merged, so
                // each block is matched once from its own start (see `scan_blocks`).
                if !list.is_empty() && m.start() < span_line_end[rule] {
                    continue;
                }
                span_line_end[rule] = memchr::memchr(b'\n', &bytes[m.end()..]).map_or(bytes.len(), |i| m.end() + i + 1);
                list.push(line_window(bytes, m.start(), m.end() + self.rules[rule].span));
                continue;
            }
            let r = &self.rules[rule];
            if r.window == WindowKind::Assignment {
                if r.assignment_after_keyword && !assignment_follows(bytes, m.end()) {
                    continue;
                }
                // One window per identifier, not merged: each is matched from its own start.
                let key_start = identifier_start(bytes, m.start());
                match list.last() {
                    Some(&(last_start, _)) if last_start == key_start => {}
                    // Same line as the previous window: its end is this line's end (found once per line, so
                    // a long line with many hits is not searched again for every hit).
                    Some(&(_, line_end)) if m.start() < line_end => list.push((key_start, line_end)),
                    _ => list.push((key_start, line_window(bytes, m.start(), m.end()).1)),
                }
                continue;
            }
            if list.last().is_some_and(|&(_, end)| m.start() < end) {
                continue; // this hit lies in a window already opened for the rule
            }
            if r.assignment_after_keyword && !assignment_follows(bytes, m.end()) {
                continue;
            }
            let window = match r.window {
                WindowKind::Line => line_window(bytes, m.start(), m.end() + r.span),
                WindowKind::Word => word_window(bytes, m.start(), m.end(), r.words_after),
                WindowKind::Assignment => unreachable!("assignment windows are opened above"),
            };
            push_window(list, window);
        }
        windows
    }

    /// For a multi-line rule: the exact extent of each block that starts on a keyword line. Every match that
    /// starts on a window's first line counts (a line may hold several blocks: escaped keys in one JSON line),
    /// each searched for from where the previous one ended; a block's own lines are not searched again, so
    /// the scan stays linear however many blocks there are.
    fn scan_blocks(&self, i: usize, text: &str, windows: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
        let bytes = text.as_bytes();
        let mut blocks = Vec::new();
        // Windows start at line starts and end at line ends, and every multi-line pattern matches on its first
        // line alone. So a search of [offset, end) that finds its leftmost match at p (or none) shows that no
        // window starting before p's line (before `end`) holds a block: those are skipped, which keeps false
        // keyword hits from searching the same span again and again.
        let mut covered = 0;
        for (offset, end) in windows {
            let first_line_end = memchr::memchr(b'\n', &bytes[offset..end]).map_or(end, |n| offset + n + 1);
            // A block that ended on this window's first line leaves the rest of that line to search (a key
            // glued after another key's END line); a window wholly inside a block is skipped.
            if covered >= first_line_end {
                continue;
            }
            // The window's text starts at a line start, so `^` and `\b` behave as on the whole text.
            let window = &text[offset..end];
            let mut from = covered.saturating_sub(offset);
            loop {
                match self.regex(i).find_at(window, from) {
                    Some(m) if offset + m.start() < first_line_end => {
                        blocks.push((offset + m.start(), offset + m.end()));
                        covered = offset + m.end();
                        if covered >= first_line_end || m.end() <= from {
                            break;
                        }
                        from = m.end();
                    }
                    Some(m) => {
                        let at = offset + m.start();
                        covered = covered.max(memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |n| n + 1));
                        break;
                    }
                    None => {
                        covered = end;
                        break;
                    }
                }
            }
        }
        blocks
    }

    /// Adds every validated match of every enabled rule to `candidates`; `priority_base` orders rule sets.
    fn scan(&self, text: &str, policy: &Policy, priority_base: usize, candidates: &mut Vec<Candidate>) {
        for (i, windows) in self.windows(text).into_iter().enumerate() {
            let rule = &self.rules[i];
            if windows.is_empty() || !policy.enabled(&rule.id, &rule.category) {
                continue;
            }
            let windows =
                if rule.requires.is_empty() { windows } else { holding_required(text, &rule.requires, windows) };
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
                for caps in self.regex(i).captures_iter(&text[offset..end]) {
                    self.accept(i, &caps, offset, policy, priority_base, candidates);
                }
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
        let regex = self.anchored_regex(i);
        let mut resume = 0;
        for &(offset, end) in windows {
            if offset < resume {
                continue;
            }
            if let Some(caps) = regex.captures(&text[offset..end]) {
                // Only a value taken as a secret hides the windows inside it: a refused one (a placeholder,
                // a plain word) must not keep the next key on the line from being looked at.
                if self.accept(i, &caps, offset, policy, priority_base, candidates) {
                    resume = offset + caps.get(0).map_or(0, |m| m.end());
                }
            }
        }
    }

    /// Adds one match's secret to `candidates` unless it is empty, allowlisted or refused by the validator;
    /// says whether it did.
    fn accept(
        &self,
        i: usize,
        caps: &regex_lite::Captures<'_>,
        offset: usize,
        policy: &Policy,
        priority_base: usize,
        candidates: &mut Vec<Candidate>,
    ) -> bool {
        let rule = &self.rules[i];
        let secret = if rule.secret_groups.is_empty() {
            caps.get(0)
        } else {
            rule.secret_groups.iter().find_map(|g| caps.get(*g))
        };
        let Some(secret) = secret else { return false };
        // A secret never takes the line break that ends its last line: the next line stays a line of its
        // own after the marker (multi-line rules match whole lines, newline included).
        let value = secret.as_str();
        let value = value.strip_suffix('\n').map_or(value, |v| v.strip_suffix('\r').unwrap_or(v));
        if value.is_empty() || engine().allowlisted(value) || policy.allowlist.iter().any(|a| a == value) {
            return false;
        }
        if let Some(v) = rule.validator {
            if !validators::passes(v, caps.get(1).map(|m| m.as_str()), value) {
                return false;
            }
        }
        candidates.push(Candidate {
            start: offset + secret.start(),
            end: offset + secret.start() + value.len(),
            priority: priority_base + i,
            rule: rule.id.clone(),
            category: rule.category.clone(),
            delimits: rule.delimits,
        });
        true
    }
}

struct Engine {
    catalogue: Catalogue,
    builtin: RuleSet,
    env_name: Regex,
}

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut catalogue = rules::load();
        let builtin = RuleSet::new(std::mem::take(&mut catalogue.rules));
        let env_name = Regex::new(&catalogue.environment.name_pattern).expect("environment.name_pattern compiles");
        Engine { catalogue, builtin, env_name }
    })
}

impl Engine {
    fn allowlisted(&self, secret: &str) -> bool {
        let allow = &self.catalogue.allowlist;
        allow.values.iter().any(|v| v == secret)
            || validators::is_template(secret)
            || (!secret.contains(char::is_whitespace) && allow.markers.iter().any(|m| secret.contains(m.as_str())))
    }
}

struct Candidate {
    start: usize,
    end: usize,
    priority: usize,
    rule: String,
    category: String,
    /// The rule's match ends at a delimiter of the text's structure (see `Rule::delimits`).
    delimits: bool,
}

/// The values of the caller's secret-looking environment variables, with their matcher built once.
#[derive(Default)]
pub struct Secrets {
    count: usize,
    /// Leftmost-longest: a value that contains another secret value is redacted whole.
    matcher: Option<DFA>,
}

impl Secrets {
    /// Keeps the variables whose NAME looks secret and whose value is long enough to redact safely.
    pub fn from_env(env: &[(String, String)]) -> Secrets {
        let e = engine();
        let kept: Vec<&str> = env
            .iter()
            .filter(|(name, value)| e.env_name.is_match(name) && value.len() >= e.catalogue.environment.min_value_len)
            .map(|(_, v)| v.as_str())
            .collect();
        // Each value is also matched in the forms it travels in: base64 (standard and URL-safe; a Kubernetes
        // secret, a Basic credential) and percent-encoded (a query string).
        let mut values: Vec<String> = Vec::with_capacity(kept.len() * 4);
        for v in &kept {
            values.push(v.to_string());
            for form in [encodings::base64(v.as_bytes(), false), encodings::base64(v.as_bytes(), true), encodings::percent(v)] {
                if !values.contains(&form) {
                    values.push(form);
                }
            }
        }
        let matcher = (!values.is_empty())
            .then(|| {
                DFA::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&values)
                    .ok()
            })
            .flatten();
        Secrets { count: kept.len(), matcher }
    }

    pub fn none() -> &'static Secrets {
        static NONE: Secrets = Secrets { count: 0, matcher: None };
        &NONE
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// Redacts `text` with the default policy: every catalogue rule, plus the secret-looking values in `env`.
pub fn redact(text: &str, env: &[(String, String)]) -> Redacted {
    redact_with(text, &Secrets::from_env(env), &Policy::default())
}

/// Redacts `text` under a caller's policy (method, disabled rules/categories, extra rules, allowlist).
pub fn redact_with(text: &str, secrets: &Secrets, policy: &Policy) -> Redacted {
    settle(text, candidates(text, secrets, policy), secrets, policy)
}

/// Applies the candidates, then makes sure a second pass would find nothing more. A secret glued to another
/// one can be hidden by it (`sq0atp-…` followed by `-----BEGIN`: the `-` made the token look longer); once
/// its neighbour is a marker, it is plain to see. And a multi-line secret replaced by one marker joins the
/// lines around it, which a line-based rule then reads as one. So the output is scanned again where that
/// can matter: the word around a marker glued to other text, the whole line around a marker that replaced
/// line breaks. What turns up is mapped back to the input and the union applied, until nothing new does:
/// redaction is idempotent. A marker standing alone between spaces costs nothing more; text with no
/// finding costs nothing more at all.
fn settle(text: &str, mut found: Vec<Candidate>, secrets: &Secrets, policy: &Policy) -> Redacted {
    let mut r = apply(text, std::mem::take(&mut found), policy);
    // Bounded: each round only adds spans, and a glued secret is uncovered in a round or two.
    for _ in 0..4 {
        if r.findings.is_empty() {
            break;
        }
        let markers: Vec<(usize, usize, usize, usize)> =
            r.findings.iter().zip(&r.written).map(|(f, &(s, e))| (s, e, f.start, f.end)).collect();
        let out = r.text.as_bytes();
        let mut more = Vec::new();
        let mut scanned_to = 0;
        for &(out_start, out_end, in_start, in_end) in &markers {
            if out_start < scanned_to {
                continue;
            }
            let (start, end) = if text.as_bytes()[in_start..in_end].contains(&b'\n') {
                // The line the marker now sits on.
                let start = memchr::memrchr(b'\n', &out[..out_start]).map_or(0, |i| i + 1);
                (start, memchr::memchr(b'\n', &out[out_end..]).map_or(out.len(), |i| out_end + i))
            } else {
                // The whitespace-delimited word holding the marker and whatever is glued to it.
                let start = out[..out_start].iter().rposition(|b| is_space(*b)).map_or(0, |i| i + 1);
                (start, out[out_end..].iter().position(|b| is_space(*b)).map_or(out.len(), |i| out_end + i))
            };
            scanned_to = end;
            if start == out_start && end == out_end {
                continue;
            }
            for mut c in candidates(&r.text[start..end], secrets, policy) {
                c.start += start;
                c.end += start;
                // Only what reaches past the markers is new: a marker itself is no secret.
                if markers.iter().any(|&(ms, me, _, _)| ms <= c.start && c.end <= me) {
                    continue;
                }
                c.start = to_input(&markers, c.start, false);
                c.end = to_input(&markers, c.end, true);
                more.push(c);
            }
        }
        if more.is_empty() {
            break;
        }
        let mut all: Vec<Candidate> = r
            .findings
            .iter()
            .map(|f| Candidate {
                start: f.start,
                end: f.end,
                priority: 0,
                rule: f.rule.clone(),
                category: f.category.clone(),
                delimits: engine().builtin.rules.iter().any(|rule| rule.id == f.rule && rule.delimits),
            })
            .collect();
        all.extend(more);
        let next = apply(text, all, policy);
        if next.findings == r.findings {
            break;
        }
        r = next;
    }
    r
}

/// Maps an output position back to the input: inside a marker, to the start (or, for an end, the end) of
/// the span it replaced; elsewhere, by the length the markers before it added or removed.
fn to_input(markers: &[(usize, usize, usize, usize)], at: usize, is_end: bool) -> usize {
    let mut shift: isize = 0;
    for &(out_start, out_end, in_start, in_end) in markers {
        let inside = if is_end { out_start < at && at <= out_end } else { out_start <= at && at < out_end };
        if inside {
            return if is_end { in_end } else { in_start };
        }
        if out_end <= at {
            shift += (out_end - out_start) as isize - (in_end - in_start) as isize;
        }
    }
    (at as isize - shift) as usize
}

/// [`redact_with`] for an owned text when only the text is wanted: text with nothing to redact (most error
/// messages) comes back as it is, without a copy.
pub fn redact_owned(text: String, secrets: &Secrets, policy: &Policy) -> String {
    let found = candidates(&text, secrets, policy);
    if found.is_empty() {
        return text;
    }
    settle(&text, found, secrets, policy).text
}

/// Every validated match of every enabled rule, before overlaps are resolved.
fn candidates(text: &str, secrets: &Secrets, policy: &Policy) -> Vec<Candidate> {
    let e = engine();
    let mut candidates = Vec::new();
    e.builtin.scan(text, policy, 0, &mut candidates);
    if let Some(extra) = &policy.extra {
        // Caller rules rank after the built-ins: a built-in's more specific name wins a tie.
        extra.scan(text, policy, e.builtin.rules.len(), &mut candidates);
    }
    if let Some(matcher) = secrets.matcher.as_ref().filter(|_| policy.enabled(ENV_RULE, ENV_CATEGORY)) {
        // An unanchored search (the DFA's default start kind) cannot fail.
        for m in matcher.try_find_iter(Input::new(text)).expect("an unanchored DFA search") {
            candidates.push(Candidate {
                start: m.start(),
                end: m.end(),
                priority: usize::MAX,
                rule: ENV_RULE.to_string(),
                category: ENV_CATEGORY.to_string(),
                delimits: false,
            });
        }
    }
    candidates
}

/// Resolves overlaps and writes the replacements. Candidates are taken by earliest start, then catalogue
/// order, then longest; a candidate that overlaps the span before it is merged into it: the union is
/// redacted, never a part (an environment value a catalogue rule only partly covered, a token running on
/// after an assignment's value). The one exception is a span whose rule `delimits` (URL userinfo ends at
/// its `@`): what overlaps it is clipped there, so the host and path that follow survive.
fn apply(text: &str, mut candidates: Vec<Candidate>, policy: &Policy) -> Redacted {
    // Unstable: candidates that compare equal (same span, same rule) are interchangeable, and the stable
    // sort's code would be the only copy of it in the npm module (~6 KB).
    candidates.sort_unstable_by(|a, b| a.start.cmp(&b.start).then(a.priority.cmp(&b.priority)).then(b.end.cmp(&a.end)));
    // First settle the spans, then write: a span may still grow after it was accepted.
    let mut spans: Vec<Finding> = Vec::new();
    let mut cursor = 0;
    let mut cursor_delimits = false;
    for c in candidates {
        if c.start < cursor {
            if c.end > cursor && !cursor_delimits {
                if let Some(last) = spans.last_mut() {
                    last.end = c.end;
                }
                cursor = c.end;
                cursor_delimits = c.delimits;
            }
            continue;
        }
        // Adjacent spans of one rule (consecutive stack frames found line by line) become one redaction.
        if let Some(last) = spans.last_mut().filter(|l| l.rule == c.rule && l.end == c.start) {
            last.end = c.end;
        } else {
            spans.push(Finding { rule: c.rule, category: c.category, start: c.start, end: c.end });
        }
        cursor = c.end;
        cursor_delimits = c.delimits;
    }
    let mut out = String::with_capacity(text.len());
    let mut written = Vec::with_capacity(spans.len());
    let mut at = 0;
    for f in &spans {
        out.push_str(&text[at..f.start]);
        let from = out.len();
        out.push_str(&policy.replacement(&f.rule, &text[f.start..f.end]));
        written.push((from, out.len()));
        at = f.end;
    }
    out.push_str(&text[at..]);
    Redacted { text: out, findings: spans, written }
}

/// The catalogue's rules, for docs, tests and benchmarks.
pub fn catalogue_rules() -> &'static [Rule] {
    &engine().builtin.rules
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles_and_its_examples_hold() {
        let all = examples();
        let mut failures = Vec::new();
        let rules = catalogue_rules();
        for rule in rules {
            let ex = all.get(&rule.id).unwrap_or_else(|| panic!("{} has no examples", rule.id));
            assert!(ex.examples.len() >= 2, "{} needs two examples", rule.id);
            assert!(ex.negative_examples.len() >= 2, "{} needs two negative examples", rule.id);
            assert!(!rule.description.is_empty(), "{} needs a description", rule.id);
            Regex::new(&rule.pattern).unwrap_or_else(|e| panic!("{}: {e}", rule.id));
            for text in &ex.examples {
                let r = redact(text, &[]);
                if !r.findings.iter().any(|f| f.rule == rule.id) {
                    failures.push(format!("{}: missed {text:?} -> {:?}", rule.id, r.text));
                }
            }
            for text in &ex.negative_examples {
                let r = redact(text, &[]);
                if r.text != *text {
                    failures.push(format!("{}: changed {text:?} -> {:?}", rule.id, r.text));
                }
            }
        }
        let mut ids: Vec<_> = rules.iter().map(|r| r.id.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), rules.len(), "rule ids are unique");
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn env_values_are_redacted_only_for_secret_looking_names() {
        let env = vec![
            ("GITHUB_TOKEN".to_string(), "s3cr3t-value-123".to_string()),
            ("HOME".to_string(), "/home/alice".to_string()),
            ("API_KEY".to_string(), "short".to_string()),
        ];
        let r = redact("got s3cr3t-value-123 at short", &env);
        assert_eq!(r.text, "got [REDACTED:env-value] at short");
        assert_eq!(r.findings[0].start, 4);
    }

    #[test]
    fn ordinary_text_is_untouched() {
        for text in [
            "request 123e4567-e89b-12d3-a456-426614174000 failed",
            "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "version 1.2.3-beta.4+build.5",
            "the key_count and token_budget were exceeded",
            "set $GITHUB_TOKEN and ${AWS_SECRET_ACCESS_KEY}",
        ] {
            assert_eq!(redact(text, &[]).text, text);
        }
    }

    #[test]
    fn looser_overlapping_rules_do_not_swallow_hosts() {
        let r = redact("clone https://x-access-token:ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d@github.com/acme/infra.git", &[]);
        assert_eq!(r.text, "clone https://[REDACTED:url-credentials]@github.com/acme/infra.git");
        let r = redact("db postgres://app:s3cr3t-Pa55@db.internal:5432/app", &[]);
        assert_eq!(r.text, "db postgres://[REDACTED:url-credentials]@db.internal:5432/app");
    }

    #[test]
    fn environment_secrets_are_found_base64_and_percent_encoded() {
        let env = vec![("DB_PASSWORD".to_string(), "c0rrect h0rse/b@ttery".to_string())];
        for (text, rule) in [
            ("data: YzBycmVjdCBoMHJzZS9iQHR0ZXJ5 end", "env-value"),
            ("url ?p=c0rrect%20h0rse%2Fb%40ttery&x=1", "env-value"),
        ] {
            let r = redact(text, &env);
            assert!(r.findings.iter().any(|f| f.rule == rule), "{text} -> {}", r.text);
            assert!(!r.text.contains("YzBycmVj") && !r.text.contains("h0rse"), "{}", r.text);
        }
    }

    #[test]
    fn an_environment_secret_a_rule_only_partly_covers_is_redacted_whole() {
        let env = vec![
            ("DB_PASSWORD".to_string(), "correct horse battery".to_string()),
            ("GITHUB_TOKEN".to_string(), format!("{TOKEN}-suffix99")),
        ];
        let r = redact("login password=correct horse battery failed", &env);
        assert_eq!(r.text, "login password=[REDACTED:secret-assignment] failed");
        let r = redact(&format!("using {TOKEN}-suffix99 now"), &env);
        assert_eq!(r.text, "using [REDACTED:github-token] now");
        assert!(!r.text.contains("suffix"));
    }

    #[test]
    fn assignment_values_are_taken_whole() {
        let cases = [
            // A template marker inside a real value is no template.
            ("password=pa${ss}w0rd-real", "password=[REDACTED:secret-assignment]"),
            ("password=${DB_PASSWORD}", "password=${DB_PASSWORD}"),
            ("password={{ vault.db }} token=$API_TOKEN", "password={{ vault.db }} token=$API_TOKEN"),
            // Unterminated and escaped quotes: the value runs to its real end.
            ("config: password=\"unterminated-s3cret", "config: password=\"[REDACTED:secret-assignment]"),
            (r#"config: password="has \"escaped\" quotes" next"#, r#"config: password="[REDACTED:secret-assignment]" next"#),
            // A refused value (a placeholder) does not keep the next key on the line from being looked at.
            ("token=none password=hunter2", "token=none password=[REDACTED:secret-assignment]"),
            ("token=${A};password=hunter2", "token=${A};password=[REDACTED:secret-assignment]"),
        ];
        for (text, want) in cases {
            assert_eq!(redact(text, &[]).text, want, "{text}");
        }
    }

    #[test]
    fn every_block_on_one_line_is_redacted_whole() {
        // Two escaped keys in one JSON line: each is a block of its own, and neither body survives.
        let text = r#"{"a":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq\n-----END PRIVATE KEY-----","b":"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQ\n-----END EC PRIVATE KEY-----"}"#;
        let r = redact(text, &[]);
        assert!(!r.text.contains("MIIE") && !r.text.contains("MHcC"), "{}", r.text);
        assert_eq!(r.findings.iter().filter(|f| f.rule == "pem-private-key").count(), 2);
        assert!(r.text.starts_with(r#"{"a":"[REDACTED:pem-private-key]","b":"[REDACTED:pem-private-key]"}"#), "{}", r.text);
    }

    #[test]
    fn overlapping_matches_do_not_leak_a_tail() {
        let r = redact("token=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d", &[]);
        assert_eq!(r.text, "token=[REDACTED:github-token]");
    }

    const TOKEN: &str = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";

    #[test]
    fn assignments_are_found_wherever_their_key_name_starts() {
        // The match may start inside an identifier (`mypassword`), after separators (`my..api_key`), and
        // several assignments may share a line; a value holding a key name is one secret, not two.
        let cases = [
            ("mypassword=hunter2", "mypassword=[REDACTED:secret-assignment]"),
            ("my..api_key=abc12345 ok", "my..api_key=[REDACTED:secret-assignment] ok"),
            ("a password=hunter2, token: 'xyzzy123' end", "a password=[REDACTED:secret-assignment], token: '[REDACTED:secret-assignment]' end"),
            ("password=mytoken=x1 rest", "password=[REDACTED:secret-assignment] rest"),
            ("cache hit key=items:42 ttl=300", "cache hit key=items:42 ttl=300"),
        ];
        for (text, expected) in cases {
            assert_eq!(redact(text, &[]).text, expected, "{text}");
        }
    }

    #[test]
    fn one_long_line_of_assignments_is_scanned_once() {
        // Every hit on the line shares the line's end: it is found once, not once per hit (which made this
        // quadratic: minutes for a 12 MB line).
        let text = "password=hunter2 ".repeat(20_000);
        let r = redact(&text, &[]);
        assert_eq!(r.findings.len(), 20_000);
        assert!(!r.text.contains("hunter2"));
    }

    #[test]
    fn methods_replace_mask_hash_remove() {
        let text = format!("a {TOKEN} b");
        let mask = Policy::from_json(r#"{"method":"mask"}"#).unwrap();
        assert_eq!(redact_with(&text, Secrets::none(), &mask).text, format!("a {} b", "*".repeat(TOKEN.len())));
        let remove = Policy::from_json(r#"{"method":"remove"}"#).unwrap();
        assert_eq!(redact_with(&text, Secrets::none(), &remove).text, "a  b");
        let hash = Policy::from_json(r#"{"method":"hash","hash_key":"0123456789abcdef"}"#).unwrap();
        let once = redact_with(&text, Secrets::none(), &hash).text;
        let twice = redact_with(&format!("x {TOKEN}"), Secrets::none(), &hash).text;
        assert!(once.starts_with("a [REDACTED:github-token:") && once.ends_with("] b"), "{once}");
        assert_eq!(&once[2..once.len() - 2], &twice[2..], "equal secrets correlate");
        let other_key = Policy::from_json(r#"{"method":"hash","hash_key":"fedcba9876543210"}"#).unwrap();
        assert_ne!(redact_with(&text, Secrets::none(), &other_key).text, once, "the digest depends on the key");
        assert!(!once.contains(TOKEN));
    }

    #[test]
    fn categories_and_rules_can_be_switched_off() {
        let text = "mail bob@corp.example with ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
        let no_pii = Policy::from_json(r#"{"disable":["pii"]}"#).unwrap();
        let r = redact_with(text, Secrets::none(), &no_pii);
        assert!(r.text.contains("bob@corp.example") && !r.text.contains("ghp_"), "{}", r.text);
        let no_github = Policy::from_json(r#"{"disable":["github-token"]}"#).unwrap();
        assert!(redact_with(text, Secrets::none(), &no_github).text.contains("ghp_"));
    }

    #[test]
    fn caller_rules_and_allowlist() {
        let policy = Policy::from_json(
            r#"{"extra_rules":[{"id":"acme-key","category":"token","keywords":["acme_"],"pattern":"\\bacme_[a-z0-9]{16}\\b"}],
                "allowlist":["bob@corp.example"]}"#,
        )
        .unwrap();
        let r = redact_with("use acme_0123456789abcdef for bob@corp.example", Secrets::none(), &policy);
        assert_eq!(r.text, "use [REDACTED:acme-key] for bob@corp.example");
    }

    #[test]
    fn bad_options_are_clear_errors() {
        let cases = [
            (r#"{"method":"shred"}"#, "not valid"),
            (r#"{"method":"hash"}"#, "hash_key"),
            (r#"{"extra_rules":[{"id":"x","category":"token","pattern":"("}]}"#, "does not compile"),
            (r#"{"extra_rules":[{"id":"Bad Id","category":"token","pattern":"a"}]}"#, "kebab-case"),
            (r#"{"extra_rules":[{"id":"x","category":"token","pattern":"a","secret_groups":[3]}]}"#, "secret group 3"),
            (r#"{"colour":"blue"}"#, "unknown field"),
            (r#"{"extra_rules":[{"id":"big","category":"token","pattern":"(?:a{1000}){1000}"}]}"#, "does not compile"),
        ];
        for (options, expected) in cases {
            let err = Policy::from_json(options).err().unwrap_or_else(|| panic!("{options} was accepted")).to_string();
            assert!(err.contains(expected), "{options}: {err}");
        }
        let long = format!(r#"{{"extra_rules":[{{"id":"x","category":"token","pattern":"{}"}}]}}"#, "a".repeat(5000));
        assert!(matches!(Policy::from_json(&long), Err(PolicyError::PatternTooLong { .. })));
    }

    #[test]
    fn json_values_under_sensitive_keys_go_whole_and_strings_are_scanned() {
        let mut doc: serde_json::Value = serde_json::from_str(
            r#"{"user":"ann","password":"hunter2","pin":1234,"headers":{"Authorization":"Bearer abc","X-Trace":"t1"},
                "db_password":"pw","max_tokens":4096,"log":["sent ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"],
                "credentials":{"user":"u","key":"k"}}"#,
        )
        .unwrap();
        let findings = redact_value(&mut doc, Secrets::none(), &Policy::default());
        assert_eq!(doc["password"], "[REDACTED:sensitive-key]");
        assert_eq!(doc["pin"], 1234, "pin is not in the default sensitive list");
        assert_eq!(doc["headers"]["Authorization"], "[REDACTED:sensitive-key]");
        assert_eq!(doc["headers"]["X-Trace"], "t1");
        assert_eq!(doc["db_password"], "[REDACTED:sensitive-key]");
        assert_eq!(doc["max_tokens"], 4096);
        assert_eq!(doc["log"][0], "sent [REDACTED:github-token]");
        assert_eq!(doc["credentials"]["user"], "[REDACTED:sensitive-key]");
        let paths: Vec<&str> = findings.iter().map(|f| f.path.as_str()).collect();
        assert!(paths.contains(&"/log/0") && paths.contains(&"/headers/Authorization"), "{paths:?}");
        let text = serde_json::to_string(&findings).unwrap();
        assert!(!text.contains("hunter2") && !text.contains("ghp_"), "findings never carry the secret");
    }

    #[test]
    fn required_literals_refuse_windows_without_them_in_any_window_order() {
        let text = "a=https://h/x b=https://u:p@h c=https://h/y d@";
        let required = vec!["@".to_string()];
        // The first URL's word holds no "@"; the third URL's window runs to the line's end, where one lies; a
        // literal reaching past a window's end does not count; windows before one already checked are
        // searched again.
        let windows = vec![(2, 13), (16, 29), (32, 46), (16, 27), (16, 28), (0, 4)];
        let kept = holding_required(text, &required, windows);
        assert_eq!(kept, vec![(16, 29), (32, 46), (16, 28)]);
        assert_eq!(holding_required(text, &required, vec![(44, 45)]), vec![]);
        assert_eq!(holding_required(text, &["zz".to_string(), "p@".to_string()], vec![(0, 46)]), vec![(0, 46)]);
        // url-credentials keeps its matches; the URLs without userinfo never reach its regex.
        assert_eq!(redact(text, &[]).text, "a=https://h/x b=https://[REDACTED:url-credentials]@h c=https://h/y d@");
    }
}
