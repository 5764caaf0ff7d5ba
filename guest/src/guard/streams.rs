//! Several client streams on one upstream (`Session::client_line_on`): an HTTP front serves many requests,
//! from one client or many, through one upstream process, so the ids and progress tokens the clients chose
//! may collide there. Requests arriving on streams get ids of the session's own upstream (a counter: unique
//! across streams), and so do their progress tokens; answers and progress come back with what the client
//! wrote, on the stream it came from. The rewriting touches only those values: the rest of each line is
//! passed on byte for byte.

use serde_json::value::RawValue;

/// Where the session's client streams stand.
#[derive(Default)]
pub struct Streams {
    /// The next id (and progress token) the session gives the upstream.
    next: u64,
}

impl Streams {
    /// A fresh upstream id (or token): a JSON integer no other request in flight has.
    pub fn allocate(&mut self) -> u64 {
        self.next += 1;
        self.next
    }
}

/// The key under which a stream's request id is found in flight: ids are the client's own per stream.
pub fn alias(stream: u64, client_key: &str) -> String {
    format!("{stream}\u{0}{client_key}")
}

/// `text` with the values `parts` (raw JSON values borrowed from `text`, in any order) replaced: each
/// `(part, replacement)`. Everything else stays byte for byte.
pub fn splice(text: &str, parts: &mut [(&RawValue, String)]) -> String {
    let offset = |raw: &RawValue| raw.get().as_ptr() as usize - text.as_ptr() as usize;
    parts.sort_by_key(|(raw, _)| offset(raw));
    let mut out = String::with_capacity(text.len() + 16);
    let mut at = 0;
    for (raw, replacement) in parts.iter() {
        let start = offset(raw);
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
        let params = crate::message::CallParams::read(e.params).unwrap();
        let token = params.meta("progressToken").unwrap();
        let out = splice(
            line,
            &mut [(token, "8".into()), (e.id.unwrap(), "7".into())],
        );
        assert_eq!(
            out,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":8},"x":"id"}}"#
        );
    }
}
