//! What a proxy can still learn of a line too long to read: its first and last bytes, as a shell saw them
//! stream past while it discarded the rest. Enough to answer it, or the request it answers, at once rather
//! than never (an oversize response to a pending request) or with an id the client cannot match.
//!
//! JSON-RPC writers put the envelope's members first or last (Python's SDKs: `jsonrpc`, `id`, then the body;
//! TypeScript's: the body, then `jsonrpc`, `id`), so the top-level members are read forward from the head
//! for as long as their values are whole, and backward from the tail for as long as they are scalars (a
//! string or an atom can be read backward exactly; an object or array cannot, and stops the walk).

/// Top-level members found in a line's head and tail.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Sniffed {
    /// The `id` member's JSON text, when it was seen whole and is a string or a number.
    pub id: Option<String>,
    /// A `method` member was seen: the line is a call.
    pub method: bool,
    /// A `result` or an `error` member was seen: the line is a response.
    pub response: bool,
}

/// Reads the top-level members of an object whose first bytes are `head` and last bytes are `tail` (either
/// may be empty, and they may overlap).
pub fn sniff(head: &[u8], tail: &[u8]) -> Sniffed {
    let mut found = Sniffed::default();
    let mut note = |key: &[u8], value: Option<&[u8]>| match key {
        // The first id read is kept (a later one is skipped).
        b"id" if found.id.is_none() => {
            found.id = value
                .filter(|v| matches!(v.first(), Some(b'"' | b'-' | b'0'..=b'9')))
                .and_then(|v| {
                    let text = std::str::from_utf8(v).ok()?;
                    serde_json::from_str::<&serde_json::value::RawValue>(text)
                        .ok()
                        .map(|_| text.to_string())
                });
        }
        b"method" => found.method = true,
        b"result" | b"error" => found.response = true,
        _ => {}
    };
    forward(head, &mut note);
    backward(tail, &mut note);
    found
}

fn skip_ws_forward(text: &[u8], mut i: usize) -> usize {
    while i < text.len() && matches!(text[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

/// The end (one past the closing quote) of the string that opens at `start`.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The end of the value that starts at `start`, when it ends within `text`.
fn value_end(text: &[u8], start: usize) -> Option<usize> {
    match *text.get(start)? {
        b'"' => string_end(text, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            while i < text.len() {
                match text[i] {
                    b'"' => {
                        i = string_end(text, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let end = text[start..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b' ' | b'\t' | b'\r' | b'\n'))?;
            Some(start + end)
        }
    }
}

/// Top-level members from the start, while their values are whole.
fn forward(head: &[u8], note: &mut impl FnMut(&[u8], Option<&[u8]>)) {
    let mut i = skip_ws_forward(head, 0);
    // A byte order mark before the object (RFC 8259 lets a reader ignore it).
    if head[i..].starts_with("\u{feff}".as_bytes()) {
        i = skip_ws_forward(head, i + 3);
    }
    if head.get(i) != Some(&b'{') {
        return;
    }
    i += 1;
    loop {
        i = skip_ws_forward(head, i);
        if head.get(i) != Some(&b'"') {
            return;
        }
        let Some(key_end) = string_end(head, i) else {
            return;
        };
        let key = &head[i + 1..key_end - 1];
        i = skip_ws_forward(head, key_end);
        if head.get(i) != Some(&b':') {
            return;
        }
        i = skip_ws_forward(head, i + 1);
        let Some(end) = value_end(head, i) else {
            // The value runs past the head: its name still tells what the line is.
            note(key, None);
            return;
        };
        note(key, Some(&head[i..end]));
        i = skip_ws_forward(head, end);
        if head.get(i) != Some(&b',') {
            return;
        }
        i += 1;
    }
}

fn skip_ws_backward(text: &[u8], mut end: usize) -> usize {
    while end > 0 && matches!(text[end - 1], b' ' | b'\t' | b'\r' | b'\n') {
        end -= 1;
    }
    end
}

/// The start of the string whose closing quote is at `close`: the nearest quote before it that is not
/// escaped (inside a JSON string every quote is).
fn string_start(text: &[u8], close: usize) -> Option<usize> {
    let mut i = close;
    while i > 0 {
        i -= 1;
        if text[i] == b'"' {
            let backslashes = text[..i].iter().rev().take_while(|&&b| b == b'\\').count();
            if backslashes % 2 == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// Top-level members from the end, while their values are scalars.
fn backward(tail: &[u8], note: &mut impl FnMut(&[u8], Option<&[u8]>)) {
    let mut end = skip_ws_backward(tail, tail.len());
    if end == 0 || tail[end - 1] != b'}' {
        return;
    }
    end -= 1;
    loop {
        end = skip_ws_backward(tail, end);
        if end == 0 {
            return;
        }
        let value_start = match tail[end - 1] {
            b'"' => match string_start(tail, end - 1) {
                Some(s) => s,
                None => return,
            },
            b'}' | b']' | b'{' | b',' | b':' => return,
            _ => match tail[..end]
                .iter()
                .rposition(|b| matches!(b, b':' | b' ' | b'\t' | b'\r' | b'\n'))
            {
                Some(p) => p + 1,
                None => return,
            },
        };
        let value = &tail[value_start..end];
        let colon = skip_ws_backward(tail, value_start);
        if colon == 0 || tail[colon - 1] != b':' {
            return;
        }
        let key_close = skip_ws_backward(tail, colon - 1);
        if key_close == 0 || tail[key_close - 1] != b'"' {
            return;
        }
        let Some(key_open) = string_start(tail, key_close - 1) else {
            return;
        };
        note(&tail[key_open + 1..key_close - 1], Some(value));
        end = skip_ws_backward(tail, key_open);
        match end.checked_sub(1).map(|i| tail[i]) {
            Some(b',') => end -= 1,
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(prefix: &str, body_bytes: usize, suffix: &str) -> String {
        format!("{prefix}{}{suffix}", "x".repeat(body_bytes))
    }

    #[test]
    fn ids_are_found_first_or_last() {
        let python = big(
            r#"{"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"image","data":""#,
            100_000,
            r#""}]}}"#,
        );
        let typescript = big(
            r#"{"result":{"content":[{"type":"image","data":""#,
            100_000,
            r#""}]},"jsonrpc":"2.0","id":"req-\"9\""}"#,
        );
        for (text, id) in [(&python, "17"), (&typescript, r#""req-\"9\"""#)] {
            let (h, t) = (
                &text.as_bytes()[..4096],
                &text.as_bytes()[text.len() - 4096..],
            );
            assert_eq!(
                sniff(h, t),
                Sniffed {
                    id: Some(id.into()),
                    method: false,
                    response: true
                },
                "{}",
                &text[..60]
            );
        }
        let call = big(
            r#"{"method":"tools/call","params":{"arguments":{"blob":""#,
            100_000,
            r#""}},"jsonrpc":"2.0","id":-3.5e2}"#,
        );
        assert_eq!(
            sniff(
                &call.as_bytes()[..100],
                &call.as_bytes()[call.len() - 100..]
            ),
            Sniffed {
                id: Some("-3.5e2".into()),
                method: true,
                response: false
            }
        );
    }

    #[test]
    fn what_cannot_be_read_whole_is_not_guessed() {
        // The id's value is cut by the head's end; the tail ends in an object; an id that is no scalar.
        assert_eq!(
            sniff(br#"{"jsonrpc":"2.0","id":"abc"#, b""),
            Sniffed::default()
        );
        assert_eq!(sniff(b"", br#""x"}]}}"#), Sniffed::default());
        assert_eq!(sniff(br#"{"id":{"a":1},"method":"m""#, b"").id, None);
        assert_eq!(sniff(br#"{"id":null,"result":1}"#, b"").id, None);
        // Quotes and braces inside strings do not confuse either walk.
        let text = br#"{"note":"a \"quoted\" } brace","id":5,"error":{"code":1}}"#;
        assert_eq!(sniff(text, b"").id.as_deref(), Some("5"));
        assert_eq!(
            sniff(b"", br#"ignored \"x\", "id" : "a\\" }"#)
                .id
                .as_deref(),
            Some(r#""a\\""#)
        );
        // Not an object at all.
        assert_eq!(sniff(b"[1,2", b"3]"), Sniffed::default());
        assert_eq!(sniff(b"", b""), Sniffed::default());
    }
}
