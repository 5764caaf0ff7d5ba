//! The scan: a rule set's rules run inside their windows, each validated match a [`Candidate`]; and the
//! candidates of a text, under the built-in rules, a caller's rules and the environment's values.

use super::candidate::Candidate;
use super::encodings;
use super::engine::engine;
use super::finding::{ENV_CATEGORY, ENV_RULE};
use super::normalize;
use super::programs;
use super::redactor::Redactor;
use super::rules::{Trigger, Validator, WindowKind};
use super::ruleset::{cannot_fail, RuleSet};
use super::secrets::Secrets;
use super::tables;
use super::validators;
use super::windows::{encoded_runs, escaped_lines, holding_required};
use aho_corasick::automaton::Automaton as _;
use aho_corasick::Input;
use std::borrow::Cow;

/// How deep decoding goes: text decoded from decoded text (a doubly percent-encoded credential, base64 of a
/// percent-encoded line) is scanned; what that decodes to is not (each level scans at most what the one
/// above decoded, so the work stays linear with a fixed factor).
const MAX_DECODING_DEPTH: usize = 2;

/// How many keys inside a value an assignment rule refused are matched again (see `scan_assignments`).
const MAX_RESCANS_INSIDE_A_REFUSED_VALUE: usize = 8;

impl RuleSet {
    /// Adds every validated match of every enabled rule to `candidates`; `priority_base` orders rule sets.
    /// `secrets` and `depth` (how many decodings deep `text` is) are for the rules that scan decoded text.
    pub(super) fn scan(
        &self,
        text: &str,
        secrets: &Secrets,
        redactor: &Redactor,
        priority_base: usize,
        depth: usize,
        candidates: &mut Vec<Candidate>,
    ) {
        for (i, windows) in self.windows(text).into_iter().enumerate() {
            let rule = &self.rules[i];
            if windows.is_empty() || !redactor.enabled(&rule.id, &rule.category) {
                continue;
            }
            if rule.trigger == Trigger::EncodedRun {
                if depth < MAX_DECODING_DEPTH {
                    self.scan_encoded(i, text, secrets, redactor, priority_base, depth, candidates);
                }
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
                self.scan_assignments(i, text, &windows, redactor, priority_base, candidates);
                continue;
            }
            if matches!(rule.window, WindowKind::Column | WindowKind::SqlValues) {
                self.scan_columns(i, text, &windows, redactor, priority_base, candidates);
                continue;
            }
            let blocks;
            let windows = if rule.span > 0 {
                blocks = self.scan_blocks(i, text, windows);
                &blocks
            } else {
                &windows
            };
            let objects =
                (!rule.object_holds.is_empty()).then(|| ObjectIndex::new(text, &rule.object_holds));
            for &(offset, end) in windows {
                self.accept_all(
                    i,
                    text,
                    &text[offset..end],
                    offset,
                    redactor,
                    priority_base,
                    candidates,
                    objects.as_ref(),
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
        redactor: &Redactor,
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
                            redactor,
                            priority_base,
                            candidates,
                            None,
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
                                redactor,
                                priority_base,
                                candidates,
                                None,
                            ),
                            group(0),
                        )
                    }
                    None => (false, None),
                }
            };
            match (taken, whole) {
                // Up to the secret's end, not the match's: a value cut where a `|` joins the next pair
                // leaves that pair's key to its own window.
                (true, Some((_, match_end))) => {
                    resume = candidates.last().map_or(offset + match_end, |c| {
                        if c.end < offset + match_end && text[c.end..].starts_with('|') {
                            c.end
                        } else {
                            offset + match_end
                        }
                    })
                }
                (false, Some((_, match_end))) if offset + match_end > refused_to => {
                    (refused_to, rescanned) = (offset + match_end, 0);
                }
                _ => {}
            }
        }
    }

    /// The encoded runs of `text` decoded and scanned as text by every rule (see [`Trigger::EncodedRun`]). A
    /// base64 or hex run that decodes to text holding a secret (a token, a credential, an environment value)
    /// is a candidate of rule `i` whole: its pieces are not the secret's. A line holding percent escapes or
    /// character references is decoded in place, and each secret found in it is a candidate of rule `i`
    /// where it is written (one the plain scan found too is the same span: the rule listed first names it,
    /// and `encoded-secret` comes after the rules that read plain text).
    #[allow(clippy::too_many_arguments)]
    fn scan_encoded(
        &self,
        i: usize,
        text: &str,
        secrets: &Secrets,
        redactor: &Redactor,
        priority_base: usize,
        depth: usize,
        candidates: &mut Vec<Candidate>,
    ) {
        let bytes = text.as_bytes();
        let is_secret = |c: &Candidate| {
            !c.refused && matches!(c.category.as_ref(), "token" | "credential" | ENV_CATEGORY)
        };
        for (start, end) in encoded_runs(bytes) {
            let run = &bytes[start..end];
            let core = run
                .strip_suffix(b"==")
                .or_else(|| run.strip_suffix(b"="))
                .unwrap_or(run);
            let decoded = if core.len().is_multiple_of(2) && core.iter().all(u8::is_ascii_hexdigit)
            {
                encodings::decode_hex_text(core)
            } else if core.iter().any(u8::is_ascii_uppercase)
                && core.iter().any(u8::is_ascii_lowercase)
            {
                encodings::decode_base64_text(core)
            } else {
                None
            };
            let Some(decoded) = decoded else {
                continue;
            };
            // (An environment value that is the whole decoded text is found as written: its encoded forms
            // are among the values the environment's matcher looks for.)
            if candidates_at(&decoded, secrets, redactor, depth + 1)
                .iter()
                .any(|c| {
                    is_secret(c)
                        && !(c.category == ENV_CATEGORY && c.start == 0 && c.end == decoded.len())
                })
            {
                let (id, category) = self.names(i);
                candidates.push(Candidate {
                    start,
                    end,
                    priority: priority_base + i,
                    rule: id,
                    category,
                    delimits: false,
                    refused: false,
                });
            }
        }
        for (line_start, line_end) in escaped_lines(bytes) {
            let line = &text[line_start..line_end];
            let Some((decoded, starts)) = encodings::decode_escapes(line) else {
                continue;
            };
            for mut c in candidates_at(&decoded, secrets, redactor, depth + 1) {
                if !is_secret(&c) {
                    continue;
                }
                // An environment value stays one, however it is written.
                if c.category == ENV_CATEGORY {
                    c.start = line_start + starts[c.start];
                    c.end = line_start + starts[c.end];
                    candidates.push(c);
                    continue;
                }
                let (id, category) = self.names(i);
                candidates.push(Candidate {
                    start: line_start + starts[c.start],
                    end: line_start + starts[c.end],
                    priority: priority_base + i,
                    rule: id,
                    category,
                    delimits: false,
                    refused: false,
                });
            }
        }
    }

    /// Rule `i`'s id and category, borrowed for the catalogue's rules (they live as long as the process).
    fn names(&self, i: usize) -> (Cow<'static, str>, Cow<'static, str>) {
        let builtin = &engine().builtin;
        if std::ptr::eq(self, builtin) {
            (
                Cow::Borrowed(builtin.rules[i].id.as_str()),
                Cow::Borrowed(builtin.rules[i].category.as_str()),
            )
        } else {
            (
                Cow::Owned(self.rules[i].id.clone()),
                Cow::Owned(self.rules[i].category.clone()),
            )
        }
    }

    /// A table rule's windows are header lines (or `INSERT` statements): each secret column's cell under them
    /// is matched by the rule's pattern (anchored at the cell's start) and judged by its header cell's name.
    fn scan_columns(
        &self,
        i: usize,
        text: &str,
        windows: &[(usize, usize)],
        redactor: &Redactor,
        priority_base: usize,
        candidates: &mut Vec<Candidate>,
    ) {
        let rule = &self.rules[i];
        let secret_name =
            |name: &str| validators::classify_name(name) != validators::NameClass::None;
        let cells = if rule.window == WindowKind::SqlValues {
            tables::sql_value_cells(text, windows, &secret_name)
        } else {
            let separator = rule.separator.as_bytes().first().copied().unwrap_or(b',');
            tables::column_cells(text, windows, separator, &secret_name)
        };
        for tables::ColumnCell { name, cell } in cells {
            let hay = &text[cell.0..cell.1];
            let Some(c) = self.regex(i).captures(hay) else {
                continue;
            };
            let group = |g: usize| c.get(g).map(|m| (cell.0 + m.start(), cell.0 + m.end()));
            self.accept(
                i,
                &group,
                text,
                text,
                0,
                redactor,
                priority_base,
                candidates,
                Some(name),
            );
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
        redactor: &Redactor,
        priority_base: usize,
        candidates: &mut Vec<Candidate>,
        name_span: Option<(usize, usize)>,
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
        // An assignment's unquoted value ends where a `|` joins the next pair (`token=abc|password: x`).
        let value = match rule.validator {
            Some(Validator::Named) if !hay[..start].ends_with(['"', '\'']) => {
                &value[..validators::joined_pair_start(value).unwrap_or(value.len())]
            }
            _ => value,
        };
        if value.is_empty() {
            return false;
        }
        // The match's name: its first group that holds no secret (`db_pass` of `db_pass=…`).
        // (A table's cell is named by its column's header cell, given as `name_span`.)
        let name = name_span.or_else(|| {
            (1..10)
                .filter(|g| !rule.secret_groups.contains(g))
                .find_map(group)
        });
        let around = validators::Around {
            text,
            start: offset + start,
            end: offset + start + value.len(),
            match_start: offset + group(0).map_or(start, |m| m.0),
            name_start: offset + name.map_or(start, |n| n.0),
            name_end: offset + name.map_or(start, |n| n.1),
        };
        let refused = engine().allowlisted(value)
            || redactor.allows(value)
            || rule.validator.is_some_and(|v| {
                !validators::passes(v, name.map(|(s, e)| &hay[s..e]), value, around)
            });
        // A refused value is kept too: if another finding's redaction reaches its first or last byte, the
        // verdict was on text that is no longer there, and `apply` redacts it after all.
        // The catalogue's rules live as long as the process: their names are borrowed, not copied.
        let (id, category) = self.names(i);
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
        redactor: &Redactor,
        priority_base: usize,
        candidates: &mut Vec<Candidate>,
        objects: Option<&ObjectIndex>,
    ) {
        let in_object = |start: usize| objects.is_none_or(|o| o.holds_around(offset + start));
        if let Some(program) = self.program(i) {
            for m in programs::matches(program, hay) {
                if !m.get(0).is_some_and(|(s, _)| in_object(s)) {
                    continue;
                }
                self.accept(
                    i,
                    &|g| m.get(g),
                    text,
                    hay,
                    offset,
                    redactor,
                    priority_base,
                    candidates,
                    None,
                );
            }
        } else {
            for caps in self.regex(i).captures_iter(hay) {
                if !caps.get(0).is_some_and(|m| in_object(m.start())) {
                    continue;
                }
                self.accept(
                    i,
                    &|g| caps.get(g).map(|m| (m.start(), m.end())),
                    text,
                    hay,
                    offset,
                    redactor,
                    priority_base,
                    candidates,
                    None,
                );
            }
        }
    }
}

/// Where a text's braces are and where a literal occurs in it, to tell whether a match sits in a flat JSON
/// object (no brace between the match and either end) that holds the literal too (a rule's
/// `object_holds`): two binary searches per match, however large the object or the text.
struct ObjectIndex {
    /// Each brace's position, and whether it opens.
    braces: Vec<(usize, bool)>,
    literal: Vec<usize>,
}

impl ObjectIndex {
    fn new(text: &str, literal: &str) -> ObjectIndex {
        let bytes = text.as_bytes();
        let braces = memchr::memchr2_iter(b'{', b'}', bytes)
            .map(|i| (i, bytes[i] == b'{'))
            .collect();
        let mut at_literal = Vec::new();
        let mut from = 0;
        while let Some(i) = super::windows::find_literal(&text[from..], literal) {
            at_literal.push(from + i);
            from += i + 1;
        }
        ObjectIndex {
            braces,
            literal: at_literal,
        }
    }

    /// Whether the match at `at` lies between a `{` and a `}` with no brace between them and it, and the
    /// literal occurs between those two braces.
    fn holds_around(&self, at: usize) -> bool {
        let next = self.braces.partition_point(|&(b, _)| b < at);
        match (
            next.checked_sub(1).and_then(|i| self.braces.get(i)),
            self.braces.get(next),
        ) {
            (Some(&(open, true)), Some(&(close, false))) => {
                let first = self.literal.partition_point(|&l| l <= open);
                self.literal.get(first).is_some_and(|&l| l < close)
            }
            _ => false,
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
pub(super) fn candidates(text: &str, secrets: &Secrets, redactor: &Redactor) -> Vec<Candidate> {
    candidates_at(text, secrets, redactor, 0)
}

/// [`candidates`] of text decoded `depth` times.
fn candidates_at(
    text: &str,
    secrets: &Secrets,
    redactor: &Redactor,
    depth: usize,
) -> Vec<Candidate> {
    let Some(view) = normalize::view(text) else {
        return candidates_as_written(text, secrets, redactor, depth);
    };
    let mut found = candidates_as_written(&view.text, secrets, redactor, depth);
    for c in &mut found {
        c.start = view.original(c.start, false);
        c.end = view.original(c.end, true);
    }
    // An environment value written with such characters is found as written.
    environment_values(text, secrets, redactor, &mut found);
    found
}

fn candidates_as_written(
    text: &str,
    secrets: &Secrets,
    redactor: &Redactor,
    depth: usize,
) -> Vec<Candidate> {
    let e = engine();
    let mut candidates = Vec::new();
    e.builtin
        .scan(text, secrets, redactor, 0, depth, &mut candidates);
    if let Some(extra) = &redactor.extra {
        // Caller rules rank after the built-ins: a built-in's more specific name wins a tie.
        extra.scan(
            text,
            secrets,
            redactor,
            e.builtin.rules.len(),
            depth,
            &mut candidates,
        );
    }
    environment_values(text, secrets, redactor, &mut candidates);
    candidates
}

/// The caller's environment secrets found in `text`.
fn environment_values(
    text: &str,
    secrets: &Secrets,
    redactor: &Redactor,
    candidates: &mut Vec<Candidate>,
) {
    if let Some(matcher) = secrets
        .matcher
        .as_ref()
        .filter(|_| redactor.enabled(ENV_RULE, ENV_CATEGORY))
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
