//! Server-sent events as the upstream streams them (the WHATWG parsing rules: lines end in LF, CRLF or CR;
//! `data` lines join with LF; an empty line ends an event; a line starting with `:` is a comment), read with
//! bounded memory: an event's data longer than the cap is discarded as it streams, its first and last bytes
//! kept (as the guard reads an oversize line from a child), and the other fields are capped small.

use crate::proxy::io::{Read, EDGE_BYTES};

/// The longest field name, and the longest value of a field other than `data`, kept.
const FIELD_CAP: usize = 1024;

/// One event.
#[derive(Debug)]
pub struct Event {
    /// Its `event` field (`message` when none was given).
    pub kind: String,
    /// Its data: whole, or oversize (only its ends kept).
    pub data: Read,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// Reading the field name.
    Name,
    /// Reading the value of `data`.
    Data,
    /// Reading the value of another field (`event`, `id`, `retry`), kept up to [`FIELD_CAP`].
    Other,
    /// A comment or a field nobody reads: skipped to the line's end.
    Skip,
}

/// The parser's state between chunks.
pub struct Parser {
    cap: usize,
    field: Field,
    name: Vec<u8>,
    value: Vec<u8>,
    /// Skip the one space after the colon.
    at_value_start: bool,
    /// A CR ended the last line: an LF right after it is part of the same line end.
    after_cr: bool,
    data: Vec<u8>,
    data_len: u64,
    data_lines: usize,
    oversize: bool,
    tail: Vec<u8>,
    kind: Option<String>,
    /// The last event id the stream gave (it carries over to later events, and is what a reconnection sends).
    pub last_id: Option<String>,
    /// The reconnection time the stream asked for, in milliseconds.
    pub retry_ms: Option<u64>,
}

impl Parser {
    /// A parser that keeps at most `cap` bytes of an event's data.
    pub fn new(cap: usize) -> Parser {
        Parser {
            cap,
            field: Field::Name,
            name: Vec::new(),
            value: Vec::new(),
            at_value_start: false,
            after_cr: false,
            data: Vec::new(),
            data_len: 0,
            data_lines: 0,
            oversize: false,
            tail: Vec::new(),
            kind: None,
            last_id: None,
            retry_ms: None,
        }
    }

    /// Reads `bytes`, appending the events they complete to `out`.
    pub fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<Event>) {
        while !bytes.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if bytes[0] == b'\n' {
                    bytes = &bytes[1..];
                    continue;
                }
            }
            let end = memchr::memchr2(b'\n', b'\r', bytes);
            let chunk = &bytes[..end.unwrap_or(bytes.len())];
            self.take(chunk);
            match end {
                Some(i) => {
                    self.after_cr = bytes[i] == b'\r';
                    self.line_end(out);
                    bytes = &bytes[i + 1..];
                }
                None => bytes = &[],
            }
        }
    }

    /// Part of a line (no line end in it).
    fn take(&mut self, mut chunk: &[u8]) {
        while !chunk.is_empty() {
            match self.field {
                Field::Name => match memchr::memchr(b':', chunk) {
                    Some(i) => {
                        self.push_name(&chunk[..i]);
                        self.field = match self.name.as_slice() {
                            b"" => Field::Skip,
                            b"data" => {
                                self.start_data_line();
                                Field::Data
                            }
                            b"event" | b"id" | b"retry" => Field::Other,
                            _ => Field::Skip,
                        };
                        self.at_value_start = true;
                        chunk = &chunk[i + 1..];
                    }
                    None => {
                        self.push_name(chunk);
                        return;
                    }
                },
                Field::Data | Field::Other => {
                    if self.at_value_start {
                        self.at_value_start = false;
                        if chunk[0] == b' ' {
                            chunk = &chunk[1..];
                            continue;
                        }
                    }
                    if self.field == Field::Data {
                        self.push_data(chunk);
                    } else {
                        let room = FIELD_CAP.saturating_sub(self.value.len()).min(chunk.len());
                        self.value.extend_from_slice(&chunk[..room]);
                    }
                    return;
                }
                Field::Skip => return,
            }
        }
    }

    fn push_name(&mut self, part: &[u8]) {
        let room = FIELD_CAP.saturating_sub(self.name.len()).min(part.len());
        self.name.extend_from_slice(&part[..room]);
    }

    /// A `data` line begins: lines after the first are joined with LF.
    fn start_data_line(&mut self) {
        if self.data_lines > 0 {
            self.push_data(b"\n");
        }
        self.data_lines += 1;
    }

    fn push_data(&mut self, part: &[u8]) {
        self.data_len += part.len() as u64;
        if !self.oversize && self.data.len() + part.len() > self.cap {
            self.oversize = true;
            keep_tail(&mut self.tail, &self.data);
            keep_tail(&mut self.tail, part);
            let room = EDGE_BYTES.saturating_sub(self.data.len()).min(part.len());
            if self.data.len() < EDGE_BYTES {
                self.data.extend_from_slice(&part[..room]);
            }
            self.data.truncate(EDGE_BYTES);
            self.data.shrink_to_fit();
        } else if self.oversize {
            let room = EDGE_BYTES.saturating_sub(self.data.len()).min(part.len());
            self.data.extend_from_slice(&part[..room]);
            keep_tail(&mut self.tail, part);
        } else {
            self.data.extend_from_slice(part);
        }
    }

    fn line_end(&mut self, out: &mut Vec<Event>) {
        match self.field {
            Field::Name if self.name.is_empty() => self.dispatch(out),
            // A line with no colon: the whole line is the field name, its value empty.
            Field::Name => {
                if self.name == b"data" {
                    self.start_data_line();
                }
                self.value.clear();
                self.finish_other();
            }
            Field::Other => self.finish_other(),
            Field::Data | Field::Skip => {}
        }
        self.field = Field::Name;
        self.name.clear();
        self.value.clear();
    }

    fn finish_other(&mut self) {
        let value = String::from_utf8_lossy(&self.value).into_owned();
        match self.name.as_slice() {
            b"event" => self.kind = Some(value),
            // An id with a NUL is ignored (the spec's rule).
            b"id" if !value.contains('\0') => self.last_id = Some(value),
            b"retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry_ms = value.parse().ok();
            }
            _ => {}
        }
    }

    /// An empty line: the event gathered so far, if it has data.
    fn dispatch(&mut self, out: &mut Vec<Event>) {
        let kind = self.kind.take().unwrap_or_else(|| "message".into());
        let had_data = self.data_lines > 0;
        let data = std::mem::take(&mut self.data);
        let tail = std::mem::take(&mut self.tail);
        let length = std::mem::replace(&mut self.data_len, 0);
        let oversize = std::mem::replace(&mut self.oversize, false);
        self.data_lines = 0;
        if !had_data {
            return;
        }
        let data = if oversize {
            Read::Oversize {
                length,
                head: data,
                tail,
            }
        } else {
            Read::Line(data)
        };
        out.push(Event { kind, data });
    }
}

/// The last [`EDGE_BYTES`] of `tail` followed by `more`.
fn keep_tail(tail: &mut Vec<u8>, more: &[u8]) {
    if more.len() >= EDGE_BYTES {
        tail.clear();
        tail.extend_from_slice(&more[more.len() - EDGE_BYTES..]);
    } else {
        tail.extend_from_slice(more);
        if tail.len() > EDGE_BYTES {
            tail.drain(..tail.len() - EDGE_BYTES);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&[u8]], cap: usize) -> Vec<(String, String)> {
        let mut p = Parser::new(cap);
        let mut out = Vec::new();
        for c in chunks {
            p.feed(c, &mut out);
        }
        out.into_iter()
            .map(|e| {
                let data = match e.data {
                    Read::Line(l) => String::from_utf8(l).unwrap(),
                    Read::Oversize { length, head, tail } => format!(
                        "<oversize {length} {}..{}>",
                        String::from_utf8_lossy(&head),
                        String::from_utf8_lossy(&tail)
                    ),
                    other => panic!("{other:?}"),
                };
                (e.kind, data)
            })
            .collect()
    }

    #[test]
    fn events_are_read_whatever_the_line_ends_and_chunking() {
        let stream = b": ping\r\nevent: message\r\nid: 7\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata:x\n\ndata\r\rretry: 50\nevent: endpoint\ndata: /m?s=1\n\n";
        let whole = events(&[stream], 1 << 20);
        assert_eq!(
            whole,
            [
                ("message".into(), "{\"a\":\n1}".into()),
                ("message".into(), "x".into()),
                ("message".into(), "".into()),
                ("endpoint".into(), "/m?s=1".into()),
            ]
        );
        // Every split point, including between CR and LF, gives the same events.
        for at in 1..stream.len() {
            assert_eq!(
                events(&[&stream[..at], &stream[at..]], 1 << 20),
                whole,
                "split at {at}"
            );
        }
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(events(&bytes, 1 << 20), whole);
    }

    #[test]
    fn an_event_over_the_cap_keeps_only_its_ends() {
        let big = "x".repeat(3 * EDGE_BYTES);
        let stream = format!("data: {{\"id\":1,{big}\ndata: ,\"end\":2}}\n\ndata: ok\n\n");
        let got = events(&[stream.as_bytes()], 100);
        assert_eq!(got.len(), 2);
        let length = "{\"id\":1,".len() + big.len() + "\n,\"end\":2}".len();
        assert!(
            got[0]
                .1
                .starts_with(&format!("<oversize {length} {{\"id\":1,xxx")),
            "{}",
            &got[0].1[..40]
        );
        assert!(got[0].1.ends_with("xxx\n,\"end\":2}>"));
        assert_eq!(got[1].1, "ok");
        let mut p = Parser::new(100);
        let mut out = Vec::new();
        for c in stream.as_bytes().chunks(7) {
            p.feed(c, &mut out);
            assert!(p.data.len() <= 100.max(EDGE_BYTES) && p.tail.len() <= EDGE_BYTES);
        }
    }

    #[test]
    fn the_other_fields_are_capped() {
        let long_id = "i".repeat(5000);
        let stream =
            format!("id: {long_id}\ndata: a\n\ndata: b\n\nretry: x\nretry: 250\ndata: c\n\n");
        let mut p = Parser::new(1 << 20);
        let mut out = Vec::new();
        p.feed(stream.as_bytes(), &mut out);
        assert_eq!(out.len(), 3);
        assert_eq!(p.last_id.as_deref().map(str::len), Some(FIELD_CAP));
        assert_eq!(p.retry_ms, Some(250));
    }
}
