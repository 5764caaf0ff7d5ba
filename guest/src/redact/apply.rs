//! Applying a rule set to a text: every validated match becomes a candidate, overlaps are resolved into
//! spans, the replacements are written, and the result is settled (scanned again where a replacement can
//! have uncovered more) so that redaction is idempotent.

use super::candidate::Candidate;
use super::engine::engine;
use super::finding::{Finding, Redacted};
use super::redactor::Redactor;
use super::scan::candidates;
use super::secrets::Secrets;
use super::windows::is_space;
use std::borrow::Cow;

/// Redacts `text` under a caller's options (method, disabled rules/categories, extra rules, allowlist).
pub fn redact_with(text: &str, secrets: &Secrets, redactor: &Redactor) -> Redacted {
    settle(text, candidates(text, secrets, redactor), secrets, redactor)
}

/// [`redact_with`] for an owned text when only the text is wanted: text with nothing to redact (most error
/// messages) comes back as it is, without a copy.
pub fn redact_owned(text: String, secrets: &Secrets, redactor: &Redactor) -> String {
    let found = candidates(&text, secrets, redactor);
    if found.iter().all(|c| c.refused) {
        return text;
    }
    settle(&text, found, secrets, redactor).text
}

/// A replacement written: where it is in the output (start, end), and the span of the input it replaced.
type Marker = (usize, usize, usize, usize);

/// Applies the candidates, then makes sure a second pass would find nothing more. A secret glued to another
/// one can be hidden by it (`sq0atp-…` followed by `-----BEGIN`: the `-` made the token look longer); once
/// its neighbour is a marker, it is plain to see. And a multi-line secret replaced by one marker joins the
/// lines around it, which a line-based rule then reads as one. So the output is scanned again where that
/// can matter: the word around a marker glued to other text, the whole line around a marker that replaced
/// line breaks. What turns up is mapped back to the input and the union applied, until nothing new does:
/// redaction is idempotent. A marker standing alone between spaces costs nothing more; text with no
/// finding costs nothing more at all.
fn settle(text: &str, found: Vec<Candidate>, secrets: &Secrets, redactor: &Redactor) -> Redacted {
    settle_reaching(text, found, secrets, redactor, None)
}

/// [`settle`], with the reach of a region around a multi-line marker given (`usize::MAX`: to the text's
/// ends, as before it was bounded; the property test's reference), or `None` for `multi_line_reach`.
fn settle_reaching(
    text: &str,
    mut found: Vec<Candidate>,
    secrets: &Secrets,
    redactor: &Redactor,
    mut reach: Option<usize>,
) -> Redacted {
    let mut r = apply(text, &mut found, redactor);
    // The input's refused values take part in every round: a span found later can reach them too.
    found.retain(|c| c.refused);
    // Bounded: each round only adds spans, and a glued secret is uncovered in a round or two.
    for _ in 0..4 {
        if r.findings.is_empty() {
            break;
        }
        let markers: Vec<Marker> = r
            .findings
            .iter()
            .zip(&r.written)
            .map(|(f, &(s, e))| (s, e, f.start, f.end))
            .collect();
        let out = r.text.as_bytes();
        let mut more = Vec::new();
        let mut scanned_to = 0;
        // Regions looked at again without finding anything new, with the places of the markers in them: the
        // same text with markers in the same places finds the same again (what `candidates` finds depends on
        // the text alone). A secret-dense log repeats `password=[REDACTED:secret-assignment]` or
        // `"[REDACTED:email]",` on line after line: looked at once, not once per line (the rescans were 40% of
        // the time on such a log). At most 32 are kept, so that text of all-different words costs as before;
        // none without the `settle-memo` feature (the npm base module, which has no room for the code).
        const REMEMBER: bool = cfg!(feature = "settle-memo");
        const REMEMBERED: usize = 32;
        let mut quiet: Vec<(&str, usize, &[Marker])> = Vec::new();
        let replaced_lines = |m: &Marker| text.as_bytes()[m.2..m.3].contains(&b'\n');
        // The next span that ends at a delimiter: spans are visited in order.
        let mut next_delimited = 0;
        for (at, &(out_start, out_end, _, _)) in markers.iter().enumerate() {
            // A marker: the whitespace-delimited word holding it and whatever is glued to it, or, after a span
            // that delimits (URL userinfo), to the end of the line: it clipped whatever overlapped it, so an
            // assignment whose key sat in the userinfo was dropped, and the windows its value hid were never
            // looked at (found by cargo-fuzz: `x-access-token:…@host/…client_secret": "…"` kept the secret).
            // They lie on the rest of the line.
            // The span's end, not its name: a delimiting match merged into a span a token began (cargo-fuzz:
            // `https://sk_test_…x-access-token:…@github.com/…client_secret": "…"`, named `stripe-key`) clipped
            // just the same.
            let to_line_end = r.ends_at_delimiter.get(next_delimited) == Some(&at);
            next_delimited += to_line_end as usize;
            // A marker in the region looked at last adds nothing (that region held its word, or ran on to the
            // line's end or the text's), but for a delimiting one glued into a word that region ended (found by
            // cargo-fuzz: `Pwd=vb'ts://token:2@secret: …` kept the last secret).
            if out_start < scanned_to
                && !(to_line_end && out.get(scanned_to).is_some_and(|&b| b != b'\n'))
            {
                continue;
            }
            let word_end = out[out_end..]
                .iter()
                .position(|&b| if to_line_end { b == b'\n' } else { is_space(b) })
                .map_or(out.len(), |i| out_end + i);
            // A marker that replaced line breaks (this one, or one glued into its word, which the word's
            // region would otherwise hide: found by cargo-fuzz, `at /5@g.co-----BEGIN…`) joined the lines
            // around it: a multi-line rule's match, a stack trace, that now runs on through the joined line may
            // start lines above it and run on below (found by cargo-fuzz: a PEM block inside a JS trace). So
            // the text is looked at again from the line of the region looked at last, in whole lines. How
            // far: a match that reaches the joined line lies in its rule's window, which runs at most the
            // rule's `span` past its keyword (a line and the next few for the rest); so from twice the
            // longest span before the marker to as far after it. Regions never overlap but for a line, so
            // each byte is looked at about once more per round, and only near a multi-line secret. (Looked
            // at to the text's end, a key block early in a 1 MB log had the whole log scanned twice: 44% of
            // the time on the mixed log.)
            let multi_line = markers[at..]
                .iter()
                .take_while(|m| m.0 < word_end)
                .any(replaced_lines);
            let (start, end) = if multi_line {
                // How far a region around a multi-line marker reaches, found when first needed.
                let reach = *reach.get_or_insert_with(|| multi_line_reach(redactor));
                let line_start =
                    |at: usize| memchr::memrchr(b'\n', &out[..at]).map_or(0, |i| i + 1);
                let ahead = word_end.saturating_add(reach).min(out.len());
                (
                    line_start(scanned_to).max(line_start(out_start.saturating_sub(reach))),
                    memchr::memchr(b'\n', &out[ahead..]).map_or(out.len(), |i| ahead + i + 1),
                )
            } else {
                (
                    out[..out_start]
                        .iter()
                        .rposition(|b| is_space(*b))
                        .map_or(0, |i| i + 1),
                    word_end,
                )
            };
            scanned_to = end;
            if start == out_start && end == out_end {
                continue;
            }
            let region = &r.text[start..end];
            let inside = if REMEMBER {
                &markers[markers.partition_point(|m| m.0 < start)
                    ..markers.partition_point(|m| m.0 < end)]
            } else {
                &[]
            };
            let same_places = |at: usize, other: &[Marker]| {
                other.len() == inside.len()
                    && other
                        .iter()
                        .zip(inside)
                        .all(|(o, m)| o.0 - at == m.0 - start && o.1 - at == m.1 - start)
            };
            if REMEMBER
                && quiet
                    .iter()
                    .any(|&(text, at, other)| text == region && same_places(at, other))
            {
                continue;
            }
            let found_before = more.len();
            // A value refused in the output is judged on markers (`[REDACTED:…]` is a placeholder), not on
            // what the input held there: only what a second pass would redact counts.
            for mut c in candidates(region, secrets, redactor)
                .into_iter()
                .filter(|c| !c.refused)
            {
                c.start += start;
                c.end += start;
                // Only what reaches past the markers is new: a marker itself is no secret.
                if markers
                    .iter()
                    .any(|&(ms, me, _, _)| ms <= c.start && c.end <= me)
                {
                    continue;
                }
                c.start = to_input(&markers, c.start, false);
                c.end = to_input(&markers, c.end, true);
                more.push(c);
            }
            if REMEMBER && more.len() == found_before && quiet.len() < REMEMBERED {
                quiet.push((region, start, inside));
            }
        }
        if more.is_empty() {
            break;
        }
        let mut next_delimited = 0;
        found.extend(r.findings.iter().enumerate().map(|(at, f)| Candidate {
            start: f.start,
            end: f.end,
            priority: 0,
            rule: Cow::Owned(f.rule.clone()),
            category: Cow::Owned(f.category.clone()),
            delimits: {
                let delimits = r.ends_at_delimiter.get(next_delimited) == Some(&at);
                next_delimited += delimits as usize;
                delimits
            },
            refused: false,
        }));
        found.extend(more);
        let next = apply(text, &mut found, redactor);
        found.retain(|c| c.refused);
        if next.findings == r.findings {
            break;
        }
        r = next;
    }
    r
}

/// How far before and after a marker that joined lines a match can start or end and still reach the joined
/// line: twice the longest `span` of the rules in play (a multi-line rule's window runs `span` bytes past its
/// keyword, to the end of that line), and a margin for patterns whose spaces take a line break between two
/// lines that both open a window.
fn multi_line_reach(redactor: &Redactor) -> usize {
    const MARGIN: usize = 4096;
    let longest = |rules: &[super::rules::Rule]| rules.iter().map(|r| r.span).max().unwrap_or(0);
    let longest = longest(&engine().builtin.rules)
        .max(redactor.extra.as_ref().map_or(0, |set| longest(&set.rules)));
    longest.saturating_mul(2).saturating_add(MARGIN)
}

/// Maps an output position back to the input: inside a marker, to the start (or, for an end, the end) of
/// the span it replaced; elsewhere, by the length the markers before it added or removed.
pub(super) fn to_input(markers: &[Marker], at: usize, is_end: bool) -> usize {
    let mut shift: isize = 0;
    for &(out_start, out_end, in_start, in_end) in markers {
        let inside = if is_end {
            out_start < at && at <= out_end
        } else {
            out_start <= at && at < out_end
        };
        if inside {
            return if is_end { in_end } else { in_start };
        }
        if out_end <= at {
            shift += (out_end - out_start) as isize - (in_end - in_start) as isize;
        }
    }
    (at as isize - shift) as usize
}

/// Resolves overlaps and writes the replacements. Candidates are taken by earliest start, then catalogue
/// order, then longest; a candidate that overlaps the span before it is merged into it: the union is
/// redacted, never a part (an environment value a catalogue rule only partly covered, a token running on
/// after an assignment's value). The one exception is a span whose rule `delimits` (URL userinfo ends at
/// its `@`): what overlaps it is clipped there, so the host and path that follow survive.
///
/// A refused value (a template, a placeholder, an allowlisted example) takes part in the union when it
/// overlaps a redaction, directly or through other such values; alone, or wholly inside a span, it changes
/// nothing. It was judged on its whole text (`${…}` or `{{…}}` end to end); once a marker replaces part of
/// it, what is left is judged differently, so a second pass found it (cargo-fuzz: `secret={{ … &token=… }}`
/// with the URL token running past the `}}` was a template, and its rest a secret once the token was a
/// marker). Redacting it with the secret keeps redaction idempotent. One sort and one sweep, as before.
pub(super) fn apply(text: &str, candidates: &mut [Candidate], redactor: &Redactor) -> Redacted {
    // In `Candidate`'s order (its `Ord`): candidates that compare equal (same span, same rule) are
    // interchangeable, so an unstable sort serves. The slice's own sort, not `heap_sort`: this one is on the
    // redaction's path, where the heap measured 2-5% slower on a secret-dense 1 MiB log in the npm base
    // module (settling sorts the candidates once per round, and they arrive in sorted runs, which pdqsort
    // takes in linear time).
    candidates.sort_unstable();
    // First settle the spans, then write: a span may still grow after it was accepted. The last span is
    // `pending` while only refused values make it up: it is dropped unless a secret joins it.
    let mut spans: Vec<Finding> = Vec::new();
    // The spans whose end is a delimiting candidate's (whoever began them), by index: the last span's is
    // known once another follows it. (Indexes, not a flag per span: the npm module has no room for the code
    // of one more vector type.)
    let mut ends_at_delimiter: Vec<usize> = Vec::new();
    let mut last_delimited = false;
    let mut pending = false;
    let mut cursor = 0;
    let mut cursor_delimits = false;
    for c in candidates.iter() {
        if c.start < cursor {
            pending &= c.refused;
            if c.end > cursor && !cursor_delimits {
                if let Some(last) = spans.last_mut() {
                    last.end = c.end;
                }
                cursor = c.end;
                cursor_delimits = c.delimits;
            }
            continue;
        }
        if pending {
            spans.pop();
        } else if cursor_delimits && !spans.is_empty() {
            last_delimited = true;
        }
        pending = c.refused;
        // Adjacent spans of one rule (consecutive stack frames found line by line) become one redaction.
        if let Some(last) = spans
            .last_mut()
            .filter(|l| !c.refused && l.rule == c.rule.as_ref() && l.end == c.start)
        {
            last.end = c.end;
        } else {
            if last_delimited {
                ends_at_delimiter.push(spans.len() - 1);
            }
            spans.push(Finding {
                rule: c.rule.to_string(),
                category: c.category.to_string(),
                start: c.start,
                end: c.end,
            });
        }
        last_delimited = false;
        cursor = c.end;
        cursor_delimits = c.delimits;
    }
    if pending {
        spans.pop();
    } else if cursor_delimits && !spans.is_empty() {
        ends_at_delimiter.push(spans.len() - 1);
    }
    let mut out = String::with_capacity(text.len());
    let mut written = Vec::with_capacity(spans.len());
    let mut at = 0;
    for f in &spans {
        out.push_str(&text[at..f.start]);
        let from = out.len();
        redactor.write_replacement(&mut out, &f.rule, &text[f.start..f.end]);
        written.push((from, out.len()));
        at = f.end;
    }
    out.push_str(&text[at..]);
    Redacted {
        text: out,
        findings: spans,
        written,
        ends_at_delimiter,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Lines of a long log: ordinary ones, secrets on one line, and the multi-line secrets whose markers join
    /// lines (key blocks, stack traces, a key block inside a trace), some glued to the text around them.
    fn log_line() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => "[a-z ]{10,120}".prop_map(|s| format!("INFO {s}")),
            1 => "[A-Za-z0-9]{20}".prop_map(|s| format!("password={s} at /srv/app.py")),
            1 => Just("user alice.smith@example.com failed".to_string()),
            1 => "[A-Za-z0-9+/]{40}".prop_map(|b| format!(
                "key: -----BEGIN RSA PRIVATE KEY-----\n{b}\n{b}\n-----END RSA PRIVATE KEY-----"
            )),
            1 => "[A-Za-z0-9+/]{40}".prop_map(|b| format!(
                "-----BEGIN PRIVATE KEY-----\n{b}\nINFO server started"
            )),
            1 => "[a-z]{3,8}".prop_map(|f| format!(
                "Traceback (most recent call last):\n  File \"/srv/{f}.py\", line 3, in {f}\nValueError: token=ghp_{f}0123456789abcdefghijklmnopqrstuvwxyzAB"
            )),
            1 => "[a-z]{3,8}".prop_map(|f| format!(
                "Error: boom\n    at {f} (/srv/{f}.js:1:2)\n    at -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n-----END PRIVATE KEY-----"
            )),
            // A secret glued to a key block on a trace's frame line (cargo-fuzz): the joined line reads as a
            // frame on a second pass, below frames that a first pass saw.
            2 => (
                proptest::sample::select(&["    at /", "    at f (/srv/", "at ", ""][..]),
                proptest::sample::select(&["ann@corp.example", "5@g.co", "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"][..]),
                "[A-Za-z0-9+/]{0,20}=?",
                "(:[0-9]{1,3}){0,2}\\)?",
                0..3usize,
            )
                .prop_map(|(prefix, glued, body, tail, frames)| format!(
                    "Error: boom\n{}{prefix}{glued}-----BEGINPRIVATE KEY-----\n{body}{tail}",
                    "    at g (/srv/g.js:4:2)\n".repeat(frames)
                )),
            1 => Just(String::new()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Settling looks at the text around a marker that joined lines as far as any rule's match can reach
        /// the joined line; it finds what looking at the whole rest of the text found. The logs are longer
        /// than that reach (~20 KB), so the bound is what is compared.
        #[test]
        fn a_bounded_look_around_a_multi_line_marker_finds_what_the_whole_text_finds(
            lines in proptest::collection::vec(log_line(), 800..1100),
        ) {
            let text = lines.join("\n");
            let (secrets, redactor) = (Secrets::none(), Redactor::default());
            let bounded = settle_reaching(&text, candidates(&text, secrets, &redactor), secrets, &redactor, None);
            let whole =
                settle_reaching(&text, candidates(&text, secrets, &redactor), secrets, &redactor, Some(usize::MAX));
            prop_assert!(text.len() > 2 * multi_line_reach(&redactor), "{} bytes", text.len());
            prop_assert_eq!(bounded.text, whole.text);
            prop_assert_eq!(bounded.findings, whole.findings);
        }

        /// A match that a marker joining lines makes possible can start lines above the marker's line and end
        /// lines below it: a `.netrc` entry whose `account` held a key block reads as an entry once the block
        /// is a marker, from its `machine` line to its `password` line. Settling finds it as looking at the
        /// whole text does, however far (within the rule's window) the entry runs either side of the marker.
        /// A look-around that reaches less (the marker's own lines only) keeps the password.
        #[test]
        fn a_bounded_look_around_finds_a_match_that_runs_past_the_marker_s_lines(
            padding in (800..1100usize, 800..1100usize),
            above in proptest::collection::vec(
                proptest::sample::select(&["login alice", "account ops", "port 21", "protocol ftp"][..]), 0..16),
            below in proptest::collection::vec(
                proptest::sample::select(&["login alice", "port 21", "protocol ftps"][..]), 0..16),
            body in "[A-Za-z0-9+/]{24,64}",
            password in "[a-z]{5,9}[0-9]{1,2}",
        ) {
            let lines = |n: usize| (0..n).map(|i| format!("INFO request {i} served in 3 ms\n")).collect::<String>();
            let entry_above = above.iter().map(|l| format!("{l}\n")).collect::<String>();
            let entry_below = below.iter().map(|l| format!("{l}\n")).collect::<String>();
            let text = format!(
                "{}machine ftp.example.com\n{entry_above}account -----BEGIN PRIVATE KEY-----\n{body}\n\
                 -----END PRIVATE KEY-----\n{entry_below}password {password}\n{}",
                lines(padding.0),
                lines(padding.1),
            );
            let (secrets, redactor) = (Secrets::none(), Redactor::default());
            let settled = |reach| {
                settle_reaching(&text, candidates(&text, secrets, &redactor), secrets, &redactor, reach)
            };
            let (bounded, whole) = (settled(None), settled(Some(usize::MAX)));
            prop_assert!(text.len() > 2 * multi_line_reach(&redactor), "{} bytes", text.len());
            // The case is one settling must catch: the first pass keeps the password, the whole look finds it.
            let first = apply(&text, &mut candidates(&text, secrets, &redactor), &redactor);
            let kept = format!("password {password}\n");
            prop_assert!(first.text.contains(&kept), "the first pass found it");
            prop_assert!(!whole.text.contains(&kept), "the whole look kept it");
            prop_assert_eq!(bounded.text, whole.text);
            prop_assert_eq!(bounded.findings, whole.findings);
        }
    }
}
