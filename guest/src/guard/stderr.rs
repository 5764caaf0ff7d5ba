//! The upstream's stderr for the operator's log: bytes read in any pieces joined into whole lines (a line
//! is never redacted in two halves), and a private-key block one chunk leaves open carried into the next.

use super::oplog::operator_redactor;
use crate::redact::{self, Redacted, Secrets};

/// What the joiner holds between calls.
#[derive(Default)]
pub(super) struct StderrLog {
    /// The text `log` was last given ended inside a private-key block (its BEGIN line, no END yet).
    key_block_open: bool,
    /// What `push` holds of a line whose end has not been written yet, and how much of it is known to hold
    /// no line break (it is not searched again as the line grows).
    partial: Vec<u8>,
    no_newline_before: usize,
}

impl StderrLog {
    /// Text about the upstream for the operator's log, whole lines (the upstream's stderr comes through
    /// `Session::upstream_stderr`, which cuts it at line ends): secrets redacted, stack traces and paths
    /// kept. Successive texts are one stream: a private-key block one chunk
    /// leaves open (a pipe read, a burst cut at a size limit) is redacted in the next one up to its END
    /// line, as if they had come in one piece; its body lines never reach the log on their own.
    pub fn log(&mut self, text: &str, env: &Secrets) -> String {
        let continued = self.key_block_open;
        // A block whose BEGIN line was in an earlier chunk: one is put before this chunk, so the rule takes
        // the body lines that continue it (and its END line) together with it.
        let mut joined = String::new();
        let source = if continued {
            joined.reserve(KEY_BLOCK_HEADER.len() + 1 + text.len());
            joined.push_str(KEY_BLOCK_HEADER);
            joined.push('\n');
            joined.push_str(text);
            &joined
        } else {
            text
        };
        let r = redact::redact_with(source, env, &operator_redactor());
        self.key_block_open = ends_in_open_key_block(source, &r);
        if !continued {
            return r.text;
        }
        // The header and the rest of the block are one replacement, and the block has one already, where it
        // began: this one goes, with the line break after it, so the log reads the same however the stream
        // was cut. Nor is the header itself part of the chunk, were it ever left as it is (the operator's
        // policy always redacts it).
        let header_end = match (r.findings.first(), r.written.first()) {
            (Some(f), Some(&(_, written_end))) if f.start == 0 => written_end,
            _ => KEY_BLOCK_HEADER.len(),
        };
        let rest = r.text.get(header_end..).unwrap_or_default();
        rest.strip_prefix('\n').unwrap_or(rest).to_string()
    }

    /// Bytes of the upstream's stderr as a shell read them, in any pieces (`end`: the stream is over), for
    /// the operator's log: the redacted text of the lines they complete. Text is only ever cut at a line end:
    /// a line cut in two would be redacted as two, and a token across the cut would reach the log in two
    /// halves (found probing the guard: every runtime's shell cut wherever its buffer filled). The unfinished
    /// line is held until its end arrives, except beyond [`STDERR_LINE_CAP`] (then it is logged in pieces,
    /// cut after a space where it has one, never inside a UTF-8 sequence). Invalid UTF-8 is repaired.
    pub fn push(&mut self, bytes: &[u8], end: bool, env: &Secrets) -> String {
        let partial = &mut self.partial;
        partial.extend_from_slice(bytes);
        let cut = if end {
            partial.len()
        } else {
            match partial[self.no_newline_before..]
                .iter()
                .rposition(|&b| b == b'\n')
            {
                Some(i) => self.no_newline_before + i + 1,
                None if partial.len() >= STDERR_LINE_CAP => overlong_line_cut(partial),
                None => {
                    self.no_newline_before = partial.len();
                    0
                }
            }
        };
        if cut == 0 {
            return String::new();
        }
        let rest = partial.split_off(cut);
        let lines = std::mem::replace(partial, rest);
        self.no_newline_before = 0;
        self.log(&String::from_utf8_lossy(&lines), env)
    }
}

/// A stderr line longer than this, its end not yet written, is logged in pieces rather than held without
/// bound (`StderrLog::push`).
pub const STDERR_LINE_CAP: usize = 1024 * 1024;

/// Where to cut a line too long to hold: after its last space or tab (a word, a token, stays whole), or, in a
/// line without one, at its end unless that splits a UTF-8 sequence (then before the sequence).
fn overlong_line_cut(line: &[u8]) -> usize {
    if let Some(i) = line.iter().rposition(|&b| b == b' ' || b == b'\t') {
        return i + 1;
    }
    let len = line.len();
    let Some(start) = (len.saturating_sub(4)..len)
        .rev()
        .find(|&i| line[i] & 0xC0 != 0x80)
    else {
        return len;
    };
    let width = match line[start] {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    };
    if start + width > len {
        start
    } else {
        len
    }
}

/// The catalogue rule for private-key blocks, and the BEGIN line that reopens a block an earlier stderr
/// chunk left open (`StderrLog::log`).
const KEY_BLOCK_RULE: &str = "pem-private-key";
const KEY_BLOCK_HEADER: &str = "-----BEGIN PRIVATE KEY-----";

/// Whether `source` ends inside a private-key block: its last block has no END line and nothing but blank
/// space follows it (a block the rule ended at a line that is no body line is closed).
fn ends_in_open_key_block(source: &str, redacted: &Redacted) -> bool {
    redacted
        .findings
        .iter()
        .rev()
        .find(|f| f.rule == KEY_BLOCK_RULE)
        .is_some_and(|f| {
            !source[f.start..f.end].contains("-----END") && source[f.end..].trim().is_empty()
        })
}
