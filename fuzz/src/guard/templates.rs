//! Templates: requests, batches and answers decoded with `arbitrary`, their ids taken from what the session
//! was sent before.

use arbitrary::Arbitrary;
use serde_json::Value;

use super::ids::{json_string, key};
use crate::json::{ArbJson, Text};

/// An id as a client (or the upstream) might spell it. Small ranges, so that ids repeat: duplicates in
/// flight, reuse after an answer, late answers meeting a new request.
#[derive(Arbitrary, Debug)]
pub enum IdChoice {
    Int(u8),
    Str(u8),
    /// An integer written with a zero fraction (`3.0`): the same id as `3`.
    Float(u8),
    Null,
    Max,
    NegZero,
    NonAscii,
    /// `"é"` written with an escape: the same string as [`IdChoice::NonAscii`].
    NonAsciiEscaped,
    Fuzzed(String),
}

impl IdChoice {
    pub fn text(&self) -> String {
        match self {
            IdChoice::Int(n) => (n % 8).to_string(),
            IdChoice::Str(n) => format!("\"r{}\"", n % 8),
            IdChoice::Float(n) => format!("{}.0", n % 8),
            IdChoice::Null => "null".into(),
            IdChoice::Max => "18446744073709551615".into(),
            IdChoice::NegZero => "-0".into(),
            IdChoice::NonAscii => "\"é\"".into(),
            IdChoice::NonAsciiEscaped => "\"\\u00e9\"".into(),
            IdChoice::Fuzzed(s) => serde_json::to_string(s).expect("a string serializes"),
        }
    }
}

#[derive(Arbitrary, Debug)]
pub struct RequestTemplate {
    /// None: a notification.
    pub id: Option<IdChoice>,
    pub method: MethodChoice,
    /// A progress token (`"p0"` to `"p3"`) in `params._meta`, with object params.
    pub progress_token: Option<u8>,
    pub params: ParamsChoice,
}

#[derive(Arbitrary, Debug)]
pub enum MethodChoice {
    ToolsCall,
    Initialize,
    Ping,
    ResourcesRead,
    Fuzzed(String),
}

#[derive(Arbitrary, Debug)]
pub enum ParamsChoice {
    Object,
    Absent,
    Array,
    /// Not an object or array: an invalid request.
    Scalar,
}

impl RequestTemplate {
    pub fn line(&self) -> String {
        let method = match &self.method {
            MethodChoice::ToolsCall => "tools/call",
            MethodChoice::Initialize => "initialize",
            MethodChoice::Ping => "ping",
            MethodChoice::ResourcesRead => "resources/read",
            MethodChoice::Fuzzed(m) => m,
        };
        let mut line = String::from(r#"{"jsonrpc":"2.0""#);
        if let Some(id) = &self.id {
            line.push_str(&format!(r#","id":{}"#, id.text()));
        }
        line.push_str(&format!(
            r#","method":{}"#,
            serde_json::to_string(method).expect("a string serializes")
        ));
        match self.params {
            ParamsChoice::Object => {
                let meta = self
                    .progress_token
                    .map(|t| format!(r#","_meta":{{"progressToken":"p{}"}}"#, t % 4))
                    .unwrap_or_default();
                line.push_str(&format!(
                    r#","params":{{"name":"query","arguments":{{}}{meta}}}"#
                ));
            }
            ParamsChoice::Absent => {}
            ParamsChoice::Array => line.push_str(r#","params":[1]"#),
            ParamsChoice::Scalar => line.push_str(r#","params":3"#),
        }
        line.push('}');
        line
    }
}

/// A member of a client batch.
#[derive(Arbitrary, Debug)]
pub enum Member {
    Call(RequestTemplate),
    /// A response (to a request of the upstream's, or to none).
    Response(IdChoice),
    /// Any JSON value (mostly not a valid message).
    Value(ArbJson),
}

pub fn batch_line(members: &[Member]) -> String {
    let texts: Vec<String> = members
        .iter()
        .map(|m| match m {
            Member::Call(t) => t.line(),
            Member::Response(id) => {
                format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, id.text())
            }
            Member::Value(v) => v.to_value().to_string(),
        })
        .collect();
    format!("[{}]", texts.join(","))
}

/// An upstream answer to one of the requests the client sent (the `pick`-th, modulo their number).
#[derive(Arbitrary, Debug)]
pub struct AnswerTemplate {
    pub pick: u8,
    pub respell: Respell,
    pub shape: Shape,
    /// Plant secret N in the answer's texts (error message and data, tool error text).
    pub plant: Option<u8>,
}

/// How the upstream writes the id back: JSON-RPC ids are values, and servers re-serialize them.
#[derive(Arbitrary, Debug)]
pub enum Respell {
    AsSent,
    /// Non-ASCII characters of a string as `\uXXXX` escapes (Python's `json.dumps`).
    Escaped,
    /// A string with no escape it does not need (`JSON.stringify`).
    Decoded,
    /// An integer with a zero fraction (`7` as `7.0`).
    FractionZero,
    /// A number with an exponent (`7` as `7E0`, `1.5` as `15e-1`).
    Exponent,
    /// A number through a double, as a JavaScript server writes it back (`1E2` as `100`), when the double
    /// holds it exactly (`respell`: a long id rounded to another number would answer another request, or
    /// none, while the expectation is built for the id sent).
    Double,
}

#[derive(Arbitrary, Debug)]
pub enum Shape {
    Result(ArbJson),
    Error {
        code: ErrorCode,
        message: Text,
        data: Option<ArbJson>,
    },
    /// An MCP tool result with `isError: true`.
    ToolError(Text),
    /// Not a valid response: both members, no version, a code that is not an integer.
    ResultAndError,
    NoVersion,
    StringCode,
    /// An error whose `data` nests 64 + N levels deep (past serde_json's limit of 128 when N > 64).
    DeepData(u8),
    /// An error with a null id (the upstream could not read some request): not an answer to this one.
    NullId,
}

#[derive(Arbitrary, Debug)]
pub enum ErrorCode {
    Standard(u8),
    Custom(i32),
}

impl AnswerTemplate {
    /// The id as the upstream writes it back.
    pub fn respelled_id(&self, id: &str) -> String {
        respell(id, &self.respell)
    }

    /// The answer line for the request whose id the client wrote as `id`.
    pub fn line(&self, id: &str, secret: Option<&str>) -> String {
        let id = self.respelled_id(id);
        let plant = |s: &str| match secret {
            Some(secret) => format!("{s} {secret} "),
            None => s.to_string(),
        };
        let planted = |v: &Option<ArbJson>| match (v, secret) {
            (Some(v), Some(secret)) => {
                Some(v.to_value_planting(&mut crate::json::Planting::new(secret, 0)))
            }
            (Some(v), None) => Some(v.to_value()),
            (None, _) => None,
        };
        let head = format!(r#"{{"jsonrpc":"2.0","id":{id}"#);
        match &self.shape {
            Shape::Result(v) => format!(r#"{head},"result":{}}}"#, v.to_value()),
            Shape::Error {
                code,
                message,
                data,
            } => {
                let code = match code {
                    ErrorCode::Standard(i) => {
                        [-32700, -32600, -32601, -32602, -32603][*i as usize % 5]
                    }
                    ErrorCode::Custom(n) => *n,
                };
                let mut error = serde_json::Map::new();
                error.insert("code".into(), code.into());
                error.insert("message".into(), Value::String(plant(message.as_str())));
                if let Some(d) = planted(data) {
                    error.insert("data".into(), d);
                }
                format!(r#"{head},"error":{}}}"#, Value::Object(error))
            }
            Shape::ToolError(text) => {
                let content = serde_json::json!([{"type": "text", "text": plant(text.as_str())}]);
                format!(r#"{head},"result":{{"content":{content},"isError":true}}}}"#)
            }
            Shape::ResultAndError => format!(
                r#"{head},"result":{{}},"error":{{"code":-32000,"message":{}}}}}"#,
                json_string(&plant("both"))
            ),
            Shape::NoVersion => format!(
                r#"{{"id":{id},"error":{{"code":-32000,"message":{}}}}}"#,
                json_string(&plant("no version"))
            ),
            Shape::StringCode => format!(
                r#"{head},"error":{{"code":"E42","message":{}}}}}"#,
                json_string(&plant("string code"))
            ),
            Shape::DeepData(n) => {
                let depth = 64 + *n as usize;
                format!(
                    r#"{head},"error":{{"code":-32000,"message":"deep","data":{}1{}}}}}"#,
                    "[".repeat(depth),
                    "]".repeat(depth)
                )
            }
            Shape::NullId => format!(
                r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32000,"message":{}}}}}"#,
                json_string(&plant("null id"))
            ),
        }
    }

    /// Whether this answers the request it picked (a null id answers none).
    pub fn answers(&self) -> bool {
        !matches!(self.shape, Shape::NullId)
    }
}

/// The id as the upstream writes it back: the same JSON value, spelled its way (a spelling that is not
/// valid JSON or not the same id, a mistake of this harness, falls back to the id as sent).
fn respell(id: &str, how: &Respell) -> String {
    let written = respelled(id, how);
    if serde_json::from_str::<Value>(&written).is_ok() && key(&written) == key(id) {
        written
    } else {
        id.to_string()
    }
}

fn respelled(id: &str, how: &Respell) -> String {
    let decoded = serde_json::from_str::<Value>(id).ok();
    match (how, decoded) {
        (Respell::Escaped, Some(Value::String(s))) => {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    c if (c as u32) < 0x20 || !c.is_ascii() => {
                        let mut units = [0u16; 2];
                        for u in c.encode_utf16(&mut units) {
                            out.push_str(&format!("\\u{:04x}", u));
                        }
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
        (Respell::Decoded, Some(Value::String(s))) => json_string(&s),
        (Respell::FractionZero, Some(Value::Number(_)))
            if id.bytes().all(|b| b.is_ascii_digit() || b == b'-') =>
        {
            format!("{id}.0")
        }
        (Respell::Exponent, Some(Value::Number(_))) if !id.contains(['e', 'E']) => {
            match id.split_once('.') {
                // The point moved to the end (`-0.50` as `-50e-2`), without the leading zeros JSON forbids.
                Some((whole, fraction)) => {
                    let (sign, whole) = whole.strip_prefix('-').map_or(("", whole), |w| ("-", w));
                    let digits = format!("{whole}{fraction}");
                    let digits = match digits.trim_start_matches('0') {
                        "" => "0",
                        d => d,
                    };
                    format!("{sign}{digits}e-{}", fraction.len())
                }
                None => format!("{id}E0"),
            }
        }
        (Respell::Double, Some(Value::Number(_))) => match id.parse::<f64>() {
            Ok(f) if f.is_finite() => {
                if f.abs() >= 1e21 {
                    format!("{f:e}")
                } else {
                    format!("{f}")
                }
            }
            _ => id.to_string(),
        },
        _ => id.to_string(),
    }
}
