//! The windows a rule's regex sees: the line around a keyword hit, the word holding it, the identifier an
//! assignment starts at, and the structural scans for secrets with no literal to key on (digit runs, IBAN
//! shapes). Each is a byte range of the input; see the design notes in [`super`].

/// The line around `at`: from just after the previous newline to just after the next one at or past `reach`.
pub(super) fn line_window(bytes: &[u8], at: usize, reach: usize) -> (usize, usize) {
    let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
    let reach = reach.min(bytes.len());
    let end = memchr::memchr(b'\n', &bytes[reach..]).map_or(bytes.len(), |i| reach + i + 1);
    (start, end)
}

pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// A few short literals looked for together (the allowlist's markers, in every candidate secret): one pass
/// over a text that compares only where a literal may start, instead of one search per literal.
pub(super) struct LiteralSet {
    literals: Vec<String>,
    /// Per byte value: the range of `by_first` holding the literals that start with it (empty: none does).
    /// A random token's letters start a marker every ten bytes or so (`E`, `R`, `x`, `y`): only the literals
    /// of that byte are compared there, not all of them (this check was 6% of redaction time on a dense log).
    first: [(u32, u32); 256],
    /// Literal indexes grouped by first byte.
    by_first: Vec<u32>,
    /// An empty literal is found in every text (as `str::contains` finds it).
    has_empty: bool,
}

impl LiteralSet {
    pub(super) fn new(literals: &[String]) -> Self {
        let mut first = [(0u32, 0u32); 256];
        let mut by_first = Vec::new();
        for b in 0..=255u8 {
            let from = by_first.len() as u32;
            by_first.extend(
                (0..literals.len())
                    .filter(|&i| literals[i].as_bytes().first() == Some(&b))
                    .map(|i| i as u32),
            );
            first[b as usize] = (from, by_first.len() as u32);
        }
        LiteralSet {
            literals: literals.to_vec(),
            first,
            by_first,
            has_empty: literals.iter().any(String::is_empty),
        }
    }

    /// Whether any of the literals occurs in `hay`.
    pub(super) fn found_in(&self, hay: &str) -> bool {
        let bytes = hay.as_bytes();
        self.has_empty
            || bytes.iter().enumerate().any(|(at, &b)| {
                let (from, to) = self.first[b as usize];
                from < to
                    && self.by_first[from as usize..to as usize]
                        .iter()
                        .any(|&i| bytes[at..].starts_with(self.literals[i as usize].as_bytes()))
            })
    }
}

/// Where `needle` first occurs in `hay`. The needles searched for per window or per value (a rule's required
/// literals, the allowlist's markers, `://`) are a few bytes long: memchr on their first byte and a compare
/// beats `str::find`, whose Two-Way searcher is built anew on every call (its set-up was 13% of redaction
/// time in the component on a secret-dense log). A needle longer than `SHORT` bytes (a caller's rule may
/// require one) keeps Two-Way's linear bound.
pub(super) fn find_literal(hay: &str, needle: &str) -> Option<usize> {
    const SHORT: usize = 16;
    let (hay_bytes, needle_bytes) = (hay.as_bytes(), needle.as_bytes());
    let Some((&first, rest)) = needle_bytes.split_first() else {
        return Some(0);
    };
    if needle_bytes.len() > SHORT {
        return hay.find(needle);
    }
    let mut from = 0;
    while let Some(i) = memchr::memchr(first, &hay_bytes[from..]) {
        let at = from + i;
        if hay_bytes[at + 1..].starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The windows that hold (whole) at least one of a rule's required literals. Each literal's next occurrence
/// is remembered with the position its search started from, so windows in text order cost one forward pass
/// over the text, however many share a line.
pub(super) fn holding_required(
    text: &str,
    required: &[String],
    mut windows: Vec<(usize, usize)>,
) -> Vec<(usize, usize)> {
    // Per literal: (searched from, next occurrence at or after that point, or usize::MAX for none).
    let mut next: Vec<(usize, usize)> = vec![(usize::MAX, usize::MAX); required.len()];
    windows.retain(|&(start, end)| {
        required
            .iter()
            .zip(next.iter_mut())
            .any(|(literal, (from, at))| {
                if start < *from || *at < start {
                    *from = start;
                    // Not memchr's memmem: that searcher's code costs the npm wasm 3 KB gzipped.
                    *at = find_literal(&text[start..], literal).map_or(usize::MAX, |p| start + p);
                }
                *at != usize::MAX && *at + literal.len() <= end
            })
    });
    windows
}

/// The whitespace-delimited word holding `start..end`, plus `words_after` following words (within the line).
pub(super) fn word_window(
    bytes: &[u8],
    start: usize,
    end: usize,
    words_after: usize,
) -> (usize, usize) {
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

/// Where the whitespace-delimited word holding the byte before `at` (or starting at `at`) ends.
pub(super) fn word_end(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && !is_space(bytes[at]) {
        at += 1;
    }
    at
}

pub(super) fn push_window(list: &mut Vec<(usize, usize)>, (start, end): (usize, usize)) {
    match list.last_mut() {
        Some(last) if start <= last.1 => last.1 = last.1.max(end),
        _ => list.push((start, end)),
    }
}

pub(super) fn is_identifier_byte(b: u8) -> bool {
    matches!(b, b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-')
}

/// The start of the identifier (`db_password`, `x-api-key`, `app.secret`) holding the byte at `at`. An
/// escaped line break before it is no part of it: in `…\r\nX-Api-Key: …` (a request printed as a Python
/// bytes literal) the identifier is `X-Api-Key`, not `nX-Api-Key`.
pub(super) fn identifier_start(bytes: &[u8], mut at: usize) -> usize {
    while at > 0 && is_identifier_byte(bytes[at - 1]) {
        at -= 1;
    }
    if at >= 1
        && matches!(bytes[at], b'n' | b'r' | b't')
        && bytes[at - 1] == b'\\'
        && bytes.get(at + 1).is_some_and(|b| b.is_ascii_alphabetic())
    {
        at += 1;
    }
    at
}

/// After a keyword, the rest of its identifier (`token` of `SERVICE_TOKEN_B64`), then an optional closing
/// quote, or a parenthesis or bracket that one before the identifier (at `start`) opened (`Key (api_key)=(…)`,
/// `user[password]=…`; not a marker's `]`, `[REDACTED:netrc-password] =…`), spaces, then `=` or `:`.
pub(super) fn assignment_follows(bytes: &[u8], start: usize, mut at: usize) -> bool {
    while bytes.get(at).is_some_and(|b| is_identifier_byte(*b)) {
        at += 1;
    }
    // `\"` closes a name in JSON inside a JSON string.
    if bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'"') {
        at += 1;
    }
    let opener = start.checked_sub(1).map(|i| bytes[i]);
    match bytes.get(at) {
        Some(b'"' | b'\'') => at += 1,
        Some(b')') if opener == Some(b'(') => at += 1,
        Some(b']') if opener == Some(b'[') => at += 1,
        _ => {}
    }
    while matches!(bytes.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    matches!(bytes.get(at), Some(b'=' | b':'))
}

/// Runs of >= 9 digits, single spaces or dashes allowed between digits: (start, end, digits).
pub(super) fn digit_runs(bytes: &[u8]) -> Vec<(usize, usize, usize)> {
    // A run of 9 digits spans 9 bytes that are all digits, spaces or dashes: where the 9th byte from `i` is
    // none of these, no run that counts starts at `i` or in the 8 bytes after it, and they are skipped (most
    // text is letters: this pass then reads about one byte in nine).
    const SHORTEST: usize = 9;
    let may_be_in_run = |b: u8| b.is_ascii_digit() || b == b' ' || b == b'-';
    let mut found = Vec::new();
    let (mut i, n) = (0, bytes.len());
    while i < n {
        if bytes
            .get(i + SHORTEST - 1)
            .is_some_and(|&b| !may_be_in_run(b))
        {
            i += SHORTEST;
            continue;
        }
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
            } else if matches!(bytes[i], b' ' | b'-')
                && i + 1 < n
                && bytes[i + 1].is_ascii_digit()
                && i > start
                && bytes[i - 1].is_ascii_digit()
            {
                i += 1;
            } else {
                break;
            }
        }
        if digits >= 9 {
            found.push((start, i, digits));
        }
    }
    found
}

/// In the digit run `start..end`: the first four digits in a row at a word start (the run's start, or just
/// past one of its separators).
pub(super) fn first_group_of_four(bytes: &[u8], start: usize, end: usize) -> Option<usize> {
    (start..end.saturating_sub(3)).find(|&at| {
        (at == start || !bytes[at - 1].is_ascii_digit())
            && bytes[at..at + 4].iter().all(u8::is_ascii_digit)
    })
}

/// The parts of digit runs shaped like a US Social Security number, `ddd-dd-dddd` (a run's parts are split
/// by its single spaces: `123-45-6789 2026-11-21` is two).
pub(super) fn ssn_shapes(bytes: &[u8], runs: &[(usize, usize, usize)]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for &(start, end, _) in runs {
        let mut part = start;
        for i in start..=end {
            if i == end || bytes[i] == b' ' {
                let p = &bytes[part..i];
                if p.len() == 11
                    && p[3] == b'-'
                    && p[6] == b'-'
                    && p.iter().filter(|b| b.is_ascii_digit()).count() == 9
                {
                    found.push((part, i));
                }
                part = i + 1;
            }
        }
    }
    found
}

/// IBAN-shaped runs: two capitals, two digits, then >= 11 capitals, digits or spaces.
pub(super) fn iban_shapes(bytes: &[u8]) -> Vec<(usize, usize)> {
    // A shape takes 15 bytes that are all capitals, digits or spaces: where the 15th byte from `i` is none of
    // these, no shape starts at `i` or in the 14 bytes after it (the same skip as `digit_runs`'). The byte
    // before a shape is still read where it is: the skip lands just past a byte that is not alphanumeric
    // or is lower-case, so a shape starting there is judged as before.
    const SHORTEST: usize = 15;
    let may_be_in_shape = |b: u8| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' ';
    let mut found = Vec::new();
    let n = bytes.len();
    let mut i = 0;
    while i + 4 <= n {
        if bytes
            .get(i + SHORTEST - 1)
            .is_some_and(|&b| !may_be_in_shape(b))
        {
            i += SHORTEST;
            continue;
        }
        if bytes[i].is_ascii_uppercase()
            && bytes[i + 1].is_ascii_uppercase()
            && bytes[i + 2].is_ascii_digit()
            && bytes[i + 3].is_ascii_digit()
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
        {
            let tail = bytes[i + 4..]
                .iter()
                .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b' ')
                .count();
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

/// The shortest run that is decoded as base64 or hex: 16 characters encode 12 bytes (`password=abc`), and
/// shorter runs are words.
pub(super) const SHORTEST_ENCODED_RUN: usize = 16;

/// The bytes of a base64 (either alphabet) or hex run, as a table: the run scan reads every byte of the long
/// words of secret-dense text.
const IN_ENCODED_RUN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'-' | b'_');
        b += 1;
    }
    t
};

fn in_encoded_run(b: u8) -> bool {
    IN_ENCODED_RUN[b as usize]
}

/// Runs of base64 (either alphabet) or hex characters, `SHORTEST_ENCODED_RUN` long at least, with their
/// padding: (start, end). A run must stand alone (not glued to a word by a character of neither alphabet
/// but `=`, `:`, `,`, quotes and brackets), and is skipped when it has a shape known to carry no text or
/// judged by another rule: an SSH public key (`ssh-ed25519 AAAA…`), a digest after its algorithm
/// (`sha256:…`, `sha384-…`), an image's data (`data:image/png;base64,…`), a UUID, a JWT's segment. What is
/// left is decoded (hex when it is all hex digits).
pub(super) fn encoded_runs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let (mut i, n) = (0, bytes.len());
    // `i` is always where a run would start: the text's start, just past a byte no run holds, or a run's end.
    while i + SHORTEST_ENCODED_RUN <= n {
        // The last byte of the next SHORTEST that no run holds: no run that counts starts at or before it.
        // Read from the end, so ordinary text (a space every few bytes) is passed over most of a stride at a
        // time.
        if let Some(k) = (i..i + SHORTEST_ENCODED_RUN)
            .rev()
            .find(|&k| !in_encoded_run(bytes[k]))
        {
            i = k + 1;
            continue;
        }
        let start = i;
        let mut run_end = i + SHORTEST_ENCODED_RUN;
        while run_end < n && in_encoded_run(bytes[run_end]) {
            run_end += 1;
        }
        let mut end = run_end;
        while end < n && end - run_end < 2 && bytes[end] == b'=' {
            end += 1;
        }
        // A run glued to a word (the byte before or after it a letter of another script, a `.` before it or
        // a `%`) is part of something else: a domain, a path, an escape.
        let glued_before = start > 0 && !is_run_boundary(bytes[start - 1]);
        let glued_after = end < n && !is_run_boundary(bytes[end]) && bytes[end] != b'.';
        if !glued_before && !glued_after && !known_non_text(bytes, start, run_end) {
            found.push((start, end));
        }
        i = end;
    }
    found
}

fn is_run_boundary(b: u8) -> bool {
    b.is_ascii_whitespace()
        || matches!(
            b,
            b'=' | b':'
                | b','
                | b';'
                | b'"'
                | b'\''
                | b'`'
                | b'('
                | b')'
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'<'
                | b'>'
                | b'|'
                | b'\\'
        )
}

/// Shapes that carry no text, told by the run and what stands before it.
fn known_non_text(bytes: &[u8], start: usize, end: usize) -> bool {
    let run = &bytes[start..end];
    let starts =
        |hay: &[u8], p: &[u8]| hay.len() >= p.len() && hay[..p.len()].eq_ignore_ascii_case(p);
    let ends = |hay: &[u8], p: &[u8]| {
        hay.len() >= p.len() && hay[hay.len() - p.len()..].eq_ignore_ascii_case(p)
    };
    // A UUID (a hex digest alone is decoded: it reads as no text, and its length is also a credential line's).
    if run.len() == 36
        && run.iter().enumerate().all(|(i, b)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                *b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        })
    {
        return true;
    }
    // A JWT's segment (a JSON header or claims, `eyJ…` then a `.`): the jwt rule judges the token whole.
    if run.starts_with(b"eyJ") && bytes.get(end) == Some(&b'.') {
        return true;
    }
    // A digest named by its algorithm: SRI's `sha384-…` (the run holds the name), `sha256:…`, `md5=…`.
    const ALGORITHMS: [&[u8]; 5] = [b"sha1", b"sha256", b"sha384", b"sha512", b"md5"];
    if ALGORITHMS
        .iter()
        .any(|a| starts(run, a) && run.get(a.len()) == Some(&b'-'))
    {
        return true;
    }
    let before = &bytes[start.saturating_sub(40)..start];
    if let Some((b':' | b'=', name)) = before.split_last() {
        if ALGORITHMS.iter().any(|a| ends(name, a)) {
            return true;
        }
    }
    // An SSH public key's blob starts with the length of its key type's name (`AAAA`), after that name.
    if run.starts_with(b"AAAA") {
        let word_before = before
            .split(|b| b.is_ascii_whitespace())
            .rev()
            .find(|w| !w.is_empty())
            .unwrap_or(&[]);
        if [b"ssh-".as_slice(), b"ecdsa-", b"sk-"]
            .iter()
            .any(|p| starts(word_before, p))
        {
            return true;
        }
    }
    // An image's, a font's, audio's or video's data URI.
    ends(before, b";base64,")
        && [
            b"data:image/".as_slice(),
            b"data:font/",
            b"data:audio/",
            b"data:video/",
            b"data:application/octet-stream",
        ]
        .iter()
        .any(|m| before.windows(m.len()).any(|w| w.eq_ignore_ascii_case(m)))
}

/// The lines holding a percent escape (`%3D`) or a character reference (`&#61;`, `&amp;`): (start, end
/// without the line break).
pub(super) fn escaped_lines(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut found: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some(at) = memchr::memchr2(b'%', b'&', &bytes[from..]).map(|i| from + i) {
        if super::encodings::escape_at(&bytes[at..]).is_none() {
            from = at + 1;
            continue;
        }
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        found.push((start, end));
        from = end;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `digit_runs` as it was before it skipped: every byte read.
    fn digit_runs_reading_every_byte(bytes: &[u8]) -> Vec<(usize, usize, usize)> {
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
                } else if matches!(bytes[i], b' ' | b'-')
                    && i + 1 < n
                    && bytes[i + 1].is_ascii_digit()
                    && i > start
                    && bytes[i - 1].is_ascii_digit()
                {
                    i += 1;
                } else {
                    break;
                }
            }
            if digits >= 9 {
                found.push((start, i, digits));
            }
        }
        found
    }

    /// `iban_shapes` as it was before it skipped.
    fn iban_shapes_reading_every_byte(bytes: &[u8]) -> Vec<(usize, usize)> {
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
                let tail = bytes[i + 4..]
                    .iter()
                    .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b' ')
                    .count();
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

    /// Text made of the bytes the scans care about (digits, capitals, separators) and the ones they skip on.
    fn shaped_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                4 => proptest::sample::select(vec!['0', '1', '7', '9']),
                2 => proptest::sample::select(vec![' ', '-', '\n']),
                2 => proptest::sample::select(vec!['D', 'E', 'G', 'B']),
                2 => proptest::sample::select(vec!['a', 'x', '.', ':', 'é']),
            ],
            0..80,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    /// `encoded_runs` as a reader of every byte would find them: each maximal run of the alphabets, its
    /// padding, judged the same way.
    fn encoded_runs_reading_every_byte(bytes: &[u8]) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if !in_encoded_run(bytes[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && in_encoded_run(bytes[i]) {
                i += 1;
            }
            let mut end = i;
            while end < bytes.len() && end - i < 2 && bytes[end] == b'=' {
                end += 1;
            }
            let glued_before = start > 0 && !is_run_boundary(bytes[start - 1]);
            let glued_after =
                end < bytes.len() && !is_run_boundary(bytes[end]) && bytes[end] != b'.';
            if i - start >= SHORTEST_ENCODED_RUN
                && !glued_before
                && !glued_after
                && !known_non_text(bytes, start, i)
            {
                found.push((start, end));
            }
            i = end;
        }
        found
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn the_encoded_run_scan_finds_what_reading_every_byte_finds(
            text in "([A-Za-z0-9+/_=-]{0,24}[ .:%é\\n]){0,8}"
        ) {
            prop_assert_eq!(encoded_runs(text.as_bytes()), encoded_runs_reading_every_byte(text.as_bytes()));
        }

        #[test]
        fn skipping_scans_find_what_reading_every_byte_finds(text in shaped_text()) {
            let bytes = text.as_bytes();
            prop_assert_eq!(digit_runs(bytes), digit_runs_reading_every_byte(bytes));
            prop_assert_eq!(iban_shapes(bytes), iban_shapes_reading_every_byte(bytes));
        }

        #[test]
        fn find_literal_finds_what_str_find_finds(
            hay in "[ab.@é]{0,60}",
            needle in "[ab.@é]{0,3}|[ab]{17,20}",
        ) {
            prop_assert_eq!(find_literal(&hay, &needle), hay.find(needle.as_str()));
        }

        #[test]
        fn a_literal_set_finds_what_any_contains_finds(
            hay in "[EXAMPLExy_-]{0,40}",
            literals in proptest::collection::vec("[EXAMPLExy_-]{0,4}", 0..12),
        ) {
            let set = LiteralSet::new(&literals);
            prop_assert_eq!(
                set.found_in(&hay),
                literals.iter().any(|l| hay.contains(l.as_str()))
            );
        }
    }

    #[test]
    fn skipping_scans_still_find_the_shapes_they_look_for() {
        let text = "iban DE89 3704 0044 0532 0130 00, ssn 078-05-1120; card 4111 1111 1111 1111.";
        let runs = digit_runs(text.as_bytes());
        let ssn = ssn_shapes(text.as_bytes(), &runs);
        assert_eq!(
            ssn.iter().map(|&(s, e)| &text[s..e]).collect::<Vec<_>>(),
            ["078-05-1120"]
        );
        assert!(runs
            .iter()
            .any(|&(s, e, _)| &text[s..e] == "4111 1111 1111 1111"));
        let ibans = iban_shapes(text.as_bytes());
        assert_eq!(
            ibans.iter().map(|&(s, e)| &text[s..e]).collect::<Vec<_>>(),
            ["DE89 3704 0044 0532 0130 00"]
        );
    }
}
