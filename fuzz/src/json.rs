//! JSON built by `arbitrary` (for the structured modes of the targets), and the checks of what the API
//! promises about the JSON it returns.

use arbitrary::Arbitrary;
use serde_json::{Map, Value};

/// Deeper than this, a generated value is cut to `null`: the guest parses with serde_json's recursion limit
/// (128), and a tree this deep already reaches every code path that nesting can.
const MAX_DEPTH: usize = 24;

/// A JSON value as `arbitrary` builds it. Strings and keys are drawn partly from [`WORDS`], so the fuzzer
/// reaches the keys and texts the guest treats specially without having to spell them.
#[derive(Arbitrary, Debug, Clone)]
pub enum ArbJson {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A number spelled as in [`NUMBERS`] (exponents, huge integers, trailing zeros).
    Number(u8),
    Str(Text),
    Array(Vec<ArbJson>),
    Object(Vec<(Text, ArbJson)>),
}

/// A string: fuzzed, or one of [`WORDS`].
#[derive(Arbitrary, Debug, Clone)]
pub enum Text {
    Fuzzed(String),
    Word(u8),
}

/// Keys and texts with a meaning to the guest: sensitive and diagnostic keys, JSON-RPC members, secret
/// shapes its rules look for, paths, traces, and characters that stress UTF-8 and JSON escaping.
pub const WORDS: &[&str] = &[
    "password", "token", "api_key", "apiKey", "secret", "authorization", "cookie", "session", "key",
    "signature", "stack", "stackTrace", "stack_trace", "traceback", "trace", "frames", "env", "cause",
    "exception", "data", "message", "code", "id", "jsonrpc", "error", "result", "method", "params", "isError",
    "content", "text", "type", "details", "reason", "kind", "correlation_id", "timestamp", "tool", "url",
    "Bearer abc.def.ghi", "password=hunter2", "postgres://app:hunter2@db.internal/x",
    "https://svc:hunter2@mcp.internal:8443/rpc?token=abc123XYZ789", "/home/alice/app.py",
    "Traceback (most recent call last):\n  File \"/home/alice/app.py\", line 3", "at Object.<anonymous> (/srv/app/index.js:3:9)",
    "-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEA\n-----END PRIVATE KEY-----",
    "alice@example.com", "4111 1111 1111 1111", "DE89370400440532013000", "10.0.0.7", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
    "[REDACTED:github-token]", "EXAMPLE", "${DB_PASSWORD}", "é", "文件", "\u{2028}", "\u{feff}", "\u{0}", "\\", "\"", "\n", "\r\n",
    "", " ",
];

/// Number spellings serde_json keeps verbatim (the guest parses with arbitrary precision).
pub const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1.50",
    "1e400",
    "-1e-400",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "2147483648",
    "-32600",
    "-32000.0",
    "0.1",
    "1E2",
    "123456789012345678901234567890",
];

impl Text {
    pub fn as_str(&self) -> &str {
        match self {
            Text::Fuzzed(s) => s,
            Text::Word(i) => WORDS[*i as usize % WORDS.len()],
        }
    }
}

/// Where to plant a secret while building a value: the `index`-th string or key (in document order)
/// gets ` secret ` appended.
pub struct Planting<'a> {
    pub secret: &'a str,
    pub index: usize,
    /// Set once the secret is in the value (there may be fewer strings than `index`).
    pub planted: bool,
    seen: usize,
}

impl<'a> Planting<'a> {
    pub fn new(secret: &'a str, index: usize) -> Self {
        Planting {
            secret,
            index,
            planted: false,
            seen: 0,
        }
    }

    fn visit(&mut self, s: &str) -> String {
        let here = self.seen == self.index;
        self.seen += 1;
        if here {
            self.planted = true;
            format!("{s} {} ", self.secret)
        } else {
            s.to_string()
        }
    }
}

impl ArbJson {
    pub fn to_value(&self) -> Value {
        self.build(0, &mut None)
    }

    /// The value with a secret planted in one of its strings or keys (see [`Planting`]).
    pub fn to_value_planting(&self, planting: &mut Planting<'_>) -> Value {
        self.build(0, &mut Some(planting))
    }

    fn build(&self, depth: usize, planting: &mut Option<&mut Planting<'_>>) -> Value {
        if depth > MAX_DEPTH {
            return Value::Null;
        }
        let string = |s: &str, planting: &mut Option<&mut Planting<'_>>| match planting {
            Some(p) => p.visit(s),
            None => s.to_string(),
        };
        match self {
            ArbJson::Null => Value::Null,
            ArbJson::Bool(b) => Value::Bool(*b),
            ArbJson::Int(n) => Value::from(*n),
            // Non-finite floats have no JSON spelling.
            ArbJson::Float(f) => {
                serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number)
            }
            ArbJson::Number(i) => {
                serde_json::from_str(NUMBERS[*i as usize % NUMBERS.len()]).unwrap_or(Value::Null)
            }
            ArbJson::Str(t) => Value::String(string(t.as_str(), planting)),
            ArbJson::Array(items) => {
                Value::Array(items.iter().map(|v| v.build(depth + 1, planting)).collect())
            }
            ArbJson::Object(members) => {
                let mut map = Map::new();
                for (k, v) in members {
                    let key = string(k.as_str(), planting);
                    let value = v.build(depth + 1, planting);
                    map.insert(key, value);
                }
                Value::Object(map)
            }
        }
    }
}

/// Parses `text` as exactly one JSON document (serde_json refuses trailing characters), or panics.
pub fn parse_one(text: &str, what: &str) -> Value {
    match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => panic!("{what} is not one JSON document ({e}): {text}"),
    }
}

/// Panics unless `v` is a JSON-RPC 2.0 response: `"jsonrpc": "2.0"`, an `id` (string, number or null),
/// exactly one of `result` / `error`, and an error object with an integer `code` and a string `message`.
pub fn assert_response(v: &Value, what: &str) {
    let fail = |why: &str| -> ! { panic!("{what} is not a JSON-RPC 2.0 response ({why}): {v}") };
    let Some(obj) = v.as_object() else {
        fail("not an object")
    };
    if obj.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        fail("jsonrpc is not \"2.0\"");
    }
    match obj.get("id") {
        Some(Value::String(_) | Value::Number(_) | Value::Null) => {}
        Some(_) => fail("id is not a string, a number or null"),
        None => fail("no id"),
    }
    match (obj.get("result"), obj.get("error")) {
        (Some(_), None) => {}
        (None, Some(error)) => assert_error_object(error, what),
        _ => fail("not exactly one of result and error"),
    }
}

/// Panics unless `e` is a JSON-RPC error object: an integer `code`, a string `message`.
pub fn assert_error_object(e: &Value, what: &str) {
    let ok = e.get("code").is_some_and(|c| c.as_i64().is_some())
        && e.get("message").is_some_and(Value::is_string);
    assert!(
        ok,
        "{what}: not a JSON-RPC error object (integer code, string message): {e}"
    );
}
