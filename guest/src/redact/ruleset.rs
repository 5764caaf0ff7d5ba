//! The compiled form of a rule set: the keyword prefilter (one Aho-Corasick DFA), each rule's regex compiled
//! on first use, and the windows its keywords open. What the rules are is data ([`super::rules`]); the scan
//! that runs them inside their windows is `scan`, the built-in catalogue compiled once per process `engine`,
//! and what happens to a match `apply`.

use super::programs;
use super::rules::{Rule, Trigger, Validator, WindowKind};
use super::validators;
use super::windows::*;
use aho_corasick::automaton::Automaton as _;
use aho_corasick::dfa::DFA;
use aho_corasick::{Input, MatchKind};
use regex_lite::Regex;
use std::sync::OnceLock;

/// Rules with their keyword prefilter and (lazily) compiled regexes.
pub struct RuleSet {
    pub(super) rules: Vec<Rule>,
    regexes: Vec<OnceLock<Regex>>,
    /// For assignment windows: the pattern anchored at the window's start (see [`RuleSet::scan_assignments`]).
    anchored: Vec<OnceLock<Regex>>,
    /// Per rule, the step program derived from its pattern at build time (built-in rules only; see
    /// [`programs`]), used instead of the regex.
    programs: Vec<Option<&'static [u8]>>,
    prefilter: Option<DFA>,
    /// keyword pattern index → rule index
    keyword_rule: Vec<usize>,
    /// rules with no keyword: their window is the whole input
    unconditional: Vec<usize>,
    /// rules whose windows come from a structural scan (see [`Trigger`])
    structural: Vec<usize>,
}

impl RuleSet {
    /// `builtin`: the catalogue's own rules, which may have step programs (a caller's rule never does, even
    /// under a built-in rule's id).
    pub(super) fn new(rules: Vec<Rule>, builtin: bool) -> Self {
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
                // Off: for case-insensitive keywords aho-corasick builds no prefilter anyway (its literal
                // searchers are case-sensitive), so this only skips the builder's bookkeeping.
                .prefilter(false)
                .build(&keywords)
                .unwrap_or_else(|_| cannot_fail("keywords are plain literals"))
        });
        let regexes = rules.iter().map(|_| OnceLock::new()).collect();
        let anchored = rules.iter().map(|_| OnceLock::new()).collect();
        let programs = (0..rules.len())
            .map(|i| if builtin { programs::for_rule(i) } else { None })
            .collect();
        RuleSet {
            rules,
            regexes,
            anchored,
            programs,
            prefilter,
            keyword_rule,
            unconditional,
            structural,
        }
    }

    /// Caller rules arrive with every regex they will run compiled under the guest's limits (so a pattern
    /// that cannot be run was already reported): the pattern, and for an assignment rule its anchored form.
    pub(crate) fn with_regexes(rules: Vec<Rule>, compiled: Vec<(Regex, Option<Regex>)>) -> Self {
        let set = RuleSet::new(rules, false);
        for ((slot, anchored_slot), (regex, anchored)) in
            set.regexes.iter().zip(&set.anchored).zip(compiled)
        {
            let _ = slot.set(regex);
            if let Some(anchored) = anchored {
                let _ = anchored_slot.set(anchored);
            }
        }
        set
    }

    /// Rule `i`'s step program; never one without the `step-programs` feature, so that build links none of
    /// the program code.
    pub(super) fn program(&self, i: usize) -> Option<&'static [u8]> {
        if cfg!(feature = "step-programs") {
            self.programs[i]
        } else {
            None
        }
    }

    pub(super) fn regex(&self, i: usize) -> &Regex {
        // Built-in patterns are compiled by the catalogue test on every build before anything ships.
        self.regexes[i].get_or_init(|| {
            Regex::new(&self.rules[i].pattern)
                .unwrap_or_else(|_| cannot_fail("rule pattern compiles"))
        })
    }

    /// The rule's pattern, matched only from the start of the haystack, after any run of identifier
    /// characters (shortest first, so the match found is the leftmost one an unanchored search would find).
    /// Capture group numbers are unchanged.
    pub(super) fn anchored_regex(&self, i: usize) -> &Regex {
        // Set in advance for a caller's rule (see `with_regexes`): compiled here only for built-in patterns.
        self.anchored[i].get_or_init(|| {
            Regex::new(&anchored_pattern(&self.rules[i].pattern))
                .unwrap_or_else(|_| cannot_fail("rule pattern compiles"))
        })
    }

    /// Per rule, the merged candidate windows (byte ranges on line boundaries) that its keywords open.
    pub(super) fn windows(&self, text: &str) -> Vec<Vec<(usize, usize)>> {
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
        // Digit runs serve two rules (card numbers, SSNs): found once.
        let mut runs: Option<Vec<(usize, usize, usize)>> = None;
        for &i in &self.structural {
            let starts = match self.rules[i].trigger {
                // From the run's first group of four digits at a word start, where a card number's first
                // group would be: a run with none (`1-1-1-…`) holds no card, and a pattern run over it
                // cost 32x ordinary text per byte.
                Trigger::DigitRun => runs
                    .get_or_insert_with(|| digit_runs(bytes))
                    .iter()
                    .filter(|r| r.2 >= 13)
                    .filter_map(|r| first_group_of_four(bytes, r.0, r.1).map(|s| (s, r.1)))
                    .collect(),
                Trigger::SsnShape => {
                    ssn_shapes(bytes, runs.get_or_insert_with(|| digit_runs(bytes)))
                }
                Trigger::IbanShape => iban_shapes(bytes),
                // One window, the whole text: the scan finds and decodes the runs (`scan_encoded`).
                Trigger::EncodedRun => vec![(0, text.len())],
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
        let Some(prefilter) = &self.prefilter else {
            return windows;
        };
        // Most short texts (messages, field values) hold no keyword at all: one quick check skips the
        // overlapping search.
        if prefilter
            .try_find(&Input::new(text).earliest(true))
            .unwrap_or_else(|_| cannot_fail("an unanchored DFA search"))
            .is_none()
        {
            return windows;
        }
        if windows.is_empty() {
            windows.resize(n, Vec::new());
        }
        // Per multi-line rule: where the line of its last window ends. Further hits on that line add nothing,
        // and are skipped before their line is looked for: one line holding thousands of hits (BEGIN headers
        // pasted into one JSON string) is scanned for its ends once, not once per hit.
        let mut span_line_end = vec![0usize; n];
        // Per word-window rule: where the word holding its last hit ends.
        let mut word_hit_end = vec![0usize; n];
        // Per assignment rule: where its last hit starts, and where the last identifier it refused ends.
        let mut hit_at = vec![0usize; n];
        let mut refused_to = vec![0usize; n];
        // Per rule: the identifier run last looked past for an assignment operator (from, to) and whether one
        // follows it: every hit in one run has the same answer (a long run of keywords is read once).
        let mut follows_memo = vec![(usize::MAX, 0usize, false); n];
        let mut follows = |rule: usize, at: usize| {
            let (from, to, verdict) = follows_memo[rule];
            if from <= at && at <= to {
                return verdict;
            }
            let to = at
                + bytes[at..]
                    .iter()
                    .take_while(|b| is_identifier_byte(**b))
                    .count();
            let verdict = assignment_follows(bytes, identifier_start(bytes, at), to);
            follows_memo[rule] = (at, to, verdict);
            verdict
        };
        // A DFA built with MatchKind::Standard supports overlapping search: it cannot fail.
        for m in prefilter
            .try_find_overlapping_iter(Input::new(text))
            .unwrap_or_else(|_| cannot_fail("a Standard DFA searches overlapping"))
        {
            let rule = self.keyword_rule[m.pattern().as_usize()];
            let list = &mut windows[rule];
            if self.rules[rule].span > 0 {
                // Multi-line secrets start on their keyword's line: one window per such line, not merged, so
                // each block is matched once from its own start (see `scan_blocks`).
                if !list.is_empty() && m.start() < span_line_end[rule] {
                    continue;
                }
                span_line_end[rule] = memchr::memchr(b'\n', &bytes[m.end()..])
                    .map_or(bytes.len(), |i| m.end() + i + 1);
                list.push(line_window(
                    bytes,
                    m.start(),
                    m.end() + self.rules[rule].span,
                ));
                continue;
            }
            let r = &self.rules[rule];
            if r.window == WindowKind::Assignment {
                if r.assignment_after_keyword && !follows(rule, m.end()) {
                    continue;
                }
                // A name ends with its secret word (`db_pass`, `apiKey`, `TOKEN_B64`): a keyword a small letter
                // follows (`keyboard`, `tokenizer`, `passed`) names nothing to a rule judging by the name.
                if r.validator == Some(Validator::Named)
                    && bytes.get(m.end()).is_some_and(u8::is_ascii_lowercase)
                {
                    continue;
                }
                // One window per identifier, not merged: each is matched from its own start. A hit in the
                // identifier of the rule's last hit opens nothing new, and is told by the bytes between the two
                // hits: looking back from every hit to its identifier's start made one long identifier of
                // repeated keywords (`authorization_authorization_…`) quadratic (0.2 s for 100 KB).
                let last_hit = std::mem::replace(&mut hit_at[rule], m.start());
                if !list.is_empty()
                    && last_hit <= m.start()
                    && bytes[last_hit..m.start()]
                        .iter()
                        .all(|b| is_identifier_byte(*b))
                {
                    continue;
                }
                // A hit in the identifier a name check refused last (it ends at `refused_to`) is refused again.
                if m.start() < refused_to[rule] {
                    continue;
                }
                let key_start = identifier_start(bytes, m.start());
                // A rule that judges its match by the name holding the keyword (an assignment's) opens no
                // window at a name that can hold no secret (`max_tokens`, `keyboard`, `tokenizer`): most
                // keyword hits in ordinary text end here.
                // Nor at a marker's rule name (`[REDACTED:netrc-password] =…`): what a second pass reads.
                if r.validator == Some(Validator::Named) {
                    let key_end = m.end()
                        + bytes[m.end()..]
                            .iter()
                            .take_while(|b| is_identifier_byte(**b))
                            .count();
                    if !value_may_follow(bytes, key_end)
                        || bytes[..key_start].ends_with(b"[REDACTED:")
                        || !validators::could_name_a_secret(
                            &text[key_start..key_end],
                            &bytes[..key_start],
                        )
                    {
                        refused_to[rule] = key_end;
                        continue;
                    }
                }
                match list.last() {
                    Some(&(last_start, _)) if last_start == key_start => {}
                    // Same line as the previous window: its end is this line's end (found once per line, so
                    // a long line with many hits is not searched again for every hit).
                    Some(&(_, line_end)) if m.start() < line_end => {
                        list.push((key_start, line_end))
                    }
                    _ => list.push((key_start, line_window(bytes, m.start(), m.end()).1)),
                }
                continue;
            }
            if r.window == WindowKind::Word {
                // A hit in the word of the rule's last hit opens the same window. One in a later word may lie
                // inside that window yet reach further (`use basic Basic <credential>`: the first window ends
                // at the second `Basic`, before its credential), so it opens its own, merged with the last.
                if m.start() < word_hit_end[rule] {
                    continue;
                }
                word_hit_end[rule] = word_end(bytes, m.end());
            } else if list.last().is_some_and(|&(_, end)| m.start() < end) {
                continue; // this hit lies in a window already opened for the rule, which ends at its line's end
            }
            if r.assignment_after_keyword && !follows(rule, m.end()) {
                continue;
            }
            let window = match r.window {
                WindowKind::Line | WindowKind::Column => {
                    line_window(bytes, m.start(), m.end() + r.span)
                }
                // A statement is read from its hit (`INSERT`) on: see `tables::sql_value_cells`.
                WindowKind::SqlValues => (m.start(), m.end()),
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
    pub(super) fn scan_blocks(
        &self,
        i: usize,
        text: &str,
        windows: Vec<(usize, usize)>,
    ) -> Vec<(usize, usize)> {
        let bytes = text.as_bytes();
        let mut blocks = Vec::new();
        // Windows start at line starts and end at line ends, and every multi-line pattern matches on its first
        // line alone. So a search of [offset, end) that finds its leftmost match at p (or none) shows that no
        // window starting before p's line (before `end`) holds a block: those are skipped, which keeps false
        // keyword hits from searching the same span again and again.
        let mut covered = 0;
        for (offset, end) in windows {
            let first_line_end =
                memchr::memchr(b'\n', &bytes[offset..end]).map_or(end, |n| offset + n + 1);
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
                        covered =
                            covered.max(memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |n| n + 1));
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
}

/// What may follow a secret's name for an assignment rule to find a value there: after a closing quote or
/// bracket, `:` or `=` (after spaces, or a line break), or after spaces something a value starts with (a
/// quote, a letter, a digit; the words of `ENV for Vendor: '…'` too). `GITHUB_TOKEN}` or
/// `db_password }}` end there.
fn value_may_follow(bytes: &[u8], mut at: usize) -> bool {
    if bytes.get(at) == Some(&b'\\') {
        at += 1;
    }
    if matches!(bytes.get(at), Some(b'"' | b'\'' | b')' | b']')) {
        at += 1;
    }
    let spaces = bytes[at..]
        .iter()
        .take_while(|b| b.is_ascii_whitespace() || **b == b'\x0B')
        .count();
    match bytes.get(at + spaces) {
        Some(b':' | b'=') => true,
        Some(b) => {
            spaces > 0
                && (b.is_ascii_alphanumeric()
                    || matches!(
                        b,
                        b'"' | b'\'' | b'`' | b'+' | b'/' | b'_' | b'-' | b'.' | b'~' | b'|'
                    ))
        }
        None => false,
    }
}

/// An assignment rule's pattern matched from a window's start, after any run of identifier characters
/// (one group more around the pattern).
pub fn anchored_pattern(pattern: &str) -> String {
    format!("^[A-Za-z0-9_.\\-]*?(?:{pattern})")
}

/// Panics with `why` for an error that cannot happen (a build-time rule that compiles, a search its automaton
/// supports). Not `expect`: that prints the error's `Debug`, whose code (aho-corasick's and regex-lite's
/// error kinds) would ship in the npm module for a panic that never comes.
pub(super) fn cannot_fail<T>(why: &str) -> T {
    panic!("{why}")
}
