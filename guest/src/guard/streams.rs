//! Several client streams on one upstream (`Session::client_line_on`): an HTTP front serves many requests,
//! from one client or many, through one upstream process, so the ids and progress tokens the clients chose
//! may collide there. Requests arriving on streams get ids of the session's own upstream, and so do their
//! progress tokens; answers and progress come back with what the client wrote, on the stream it came from.
//! The rewriting touches only those values: the rest of each line is passed on byte for byte.
//!
//! The session's ids and tokens are unguessable: 128 bits drawn from the callers' entropy (the guest imports
//! nothing: its randomness is `CallContext::entropy`), written as JSON strings (as numbers they would be 53
//! bits at most, the integers a JavaScript server reads exactly). A counter made them guessable: a client
//! that had an echoing server (or any tool that writes what it is given) send progress, a cancellation or an
//! answer under another stream's number reached that stream. What reaches a stream now is only what names
//! an id or a token it owns, which no other client can name.

use crate::context::splitmix64;
use serde_json::value::RawValue;

/// Where the session's client streams stand: the state its ids and tokens are drawn from.
pub struct Streams {
    state: [u64; 2],
    drawn: u64,
}

impl Streams {
    /// Seeded with the entropy of the call that opened the first stream.
    pub fn new(entropy: u64) -> Self {
        // Mixed before it is kept: `draw` xors in its call's entropy, which for the first name is this
        // very value, and would cancel it out (the first half of every session's first name was fixed).
        let mut seed = entropy;
        Streams {
            state: [splitmix64(&mut seed), splitmix64(&mut seed)],
            drawn: 0,
        }
    }

    /// A fresh upstream id (or token): 32 hex digits (128 bits), from everything drawn so far and this call's
    /// `entropy` (the caller's randomness, fresh per call). Unique in practice; the session still checks
    /// that none in flight has it (`Session::fresh_name`).
    pub fn draw(&mut self, entropy: u64) -> String {
        self.drawn += 1;
        self.state[0] ^= entropy;
        self.state[1] ^= entropy.rotate_left(29) ^ self.drawn;
        let (hi, lo) = (
            splitmix64(&mut self.state[0]),
            splitmix64(&mut self.state[1]),
        );
        const HEX: &[u8; 16] = b"0123456789abcdef";
        (0..32)
            .map(|i| {
                let word = if i < 16 { hi } else { lo };
                HEX[((word >> (60 - 4 * (i % 16))) & 0xF) as usize] as char
            })
            .collect()
    }
}

/// The key under which a stream's request id is found in flight: ids are the client's own per stream.
pub fn alias(stream: u64, client_key: &str) -> String {
    format!("{stream}\u{0}{client_key}")
}

/// `text` with the values `parts` (raw JSON values borrowed from `text`, in any order) replaced: each
/// `(part, replacement)`. Everything else stays byte for byte.
pub fn splice(text: &str, parts: &[(&RawValue, String)]) -> String {
    let offset = |raw: &RawValue| raw.get().as_ptr() as usize - text.as_ptr() as usize;
    // The parts in text order, by (offset, index): distinct values of one text start at distinct offsets.
    // Sorted by the heap (see `heap_sort`): a stable `sort_by_key` would be one more sort's code in the npm
    // guard module (~5 KB).
    let mut order: Vec<(usize, usize)> = parts
        .iter()
        .enumerate()
        .map(|(i, (raw, _))| (offset(raw), i))
        .collect();
    crate::heap_sort::sort(&mut order);
    let mut out = String::with_capacity(text.len() + 16);
    let mut at = 0;
    for (start, i) in order {
        let (raw, replacement) = &parts[i];
        out.push_str(&text[at..start]);
        out.push_str(replacement);
        at = start + raw.get().len();
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{parse, Parsed};

    #[test]
    fn splicing_replaces_only_the_values_named() {
        let line = r#"{"jsonrpc":"2.0","id":"a b","method":"tools/call","params":{"_meta":{"progressToken":"t"},"x":"id"}}"#;
        let Parsed::Object(e) = parse(line) else {
            panic!()
        };
        let params = crate::message::RequestParams::read(e.params).unwrap();
        let token = params.meta("progressToken").unwrap();
        let out = splice(line, &[(token, "8".into()), (e.id.unwrap(), "7".into())]);
        assert_eq!(
            out,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":8},"x":"id"}}"#
        );
    }
}
