//! The guard target's input and its model of a session.
//!
//! The payload is a script: one session call per line (a line never holds a newline, as the shell splits
//! what it reads on them), its first byte saying which. Raw lines are there for the fuzzer to mutate and for
//! the seeds (`tests/vectors/guard.json` converts line for line); built lines (`r`, `b`, `a`, `x`, `p`, `s`,
//! `S`) decode their bytes with `arbitrary` into a template and take their ids from what the session was
//! sent before, so requests get answered, cancelled, timed out and answered late without the fuzzer having
//! to spell matching ids.
//!
//! | line | call |
//! |---|---|
//! | `c` LINE | `client_line(LINE)` |
//! | `r` BYTES | `client_line` of a request or notification built from a [`RequestTemplate`] |
//! | `b` BYTES | `client_line` of a batch of [`Member`]s |
//! | `x` N | `client_line`: the client cancels the N-th request it sent (N: one byte) |
//! | `S` N | `client_line`: the client answers the upstream's N-th request |
//! | `o` DECIMAL | `client_oversize(DECIMAL)` |
//! | `u` LINE | `upstream_line(LINE)` |
//! | `a` BYTES | `upstream_line` of an answer built from an [`AnswerTemplate`] |
//! | `p` N | `upstream_line`: progress for the N-th progress token the client sent |
//! | `s` BYTES | `upstream_line`: the upstream's own request to the client (id from an [`IdChoice`]) |
//! | `O` DECIMAL | `upstream_oversize(DECIMAL)` |
//! | `f` `e`N / `k`N / `s`TEXT / `c` | `upstream_failed`: exited N, killed by N, could not start, closed output |
//! | `e` | `expire` |
//! | `t` DECIMAL | the clock: DECIMAL milliseconds after the header's time (no call) |
//! | `l` TEXT / `L` N TEXT | `upstream_log(TEXT)` / with secret N planted in its middle |
//! | `E` BYTES | `upstream_stderr(BYTES)`, each `~` in them a line break |
//! | `Z` | `upstream_stderr_end()` |
//! | `K` N C BYTES | `upstream_stderr` of BYTES (`~`: a line break) with secret N planted in their middle, given in two pieces cut at C/256 of the length (anywhere: inside the secret, inside a character), then `upstream_stderr_end()` |
//!
//! Any other line is skipped.

use arbitrary::{Arbitrary, Unstructured};
use jsonrpc_errors_guest::guard::{EventName, Failure, Outcome, Peer, Step};
use jsonrpc_errors_guest::message::{self, RawObject};
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::HashMap;

use crate::json::{ArbJson, Text};

pub enum Call<'a> {
    Client(&'a [u8]),
    Request(RequestTemplate),
    Batch(Vec<Member>),
    Cancel(u8),
    ClientAnswer(u8),
    ClientOversize(u64),
    Upstream(&'a [u8]),
    Answer(AnswerTemplate),
    Progress(u8),
    ServerRequest(IdChoice),
    UpstreamOversize(u64),
    Failed(Failure),
    Expire,
    Clock(u64),
    Log(&'a [u8], Option<u8>),
    Stderr(Vec<u8>),
    StderrEnd,
    StderrSplit { secret: u8, cut: u8, bytes: Vec<u8> },
}

/// Stderr bytes as a script line spells them: `~` is a line break (a script line holds none).
fn stderr_bytes(spelled: &[u8]) -> Vec<u8> {
    spelled
        .iter()
        .map(|&b| if b == b'~' { b'\n' } else { b })
        .collect()
}

/// The calls of a script, in order.
pub fn script(payload: &[u8]) -> impl Iterator<Item = Call<'_>> {
    payload.split(|&b| b == b'\n').filter_map(call)
}

fn call(line: &[u8]) -> Option<Call<'_>> {
    let (&op, rest) = line.split_first()?;
    let number = || {
        std::str::from_utf8(rest)
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok())
            .unwrap_or(0)
    };
    let byte = || rest.first().copied().unwrap_or(0);
    let built = || Unstructured::new(rest);
    Some(match op {
        b'c' => Call::Client(rest),
        b'r' => Call::Request(RequestTemplate::arbitrary_take_rest(built()).ok()?),
        b'b' => Call::Batch(Vec::<Member>::arbitrary_take_rest(built()).ok()?),
        b'x' => Call::Cancel(byte()),
        b'S' => Call::ClientAnswer(byte()),
        b'o' => Call::ClientOversize(number() as u64),
        b'u' => Call::Upstream(rest),
        b'a' => Call::Answer(AnswerTemplate::arbitrary_take_rest(built()).ok()?),
        b'p' => Call::Progress(byte()),
        b's' => Call::ServerRequest(IdChoice::arbitrary_take_rest(built()).ok()?),
        b'O' => Call::UpstreamOversize(number() as u64),
        b'f' => Call::Failed(failure(rest)),
        b'e' => Call::Expire,
        b't' => Call::Clock(number() as u64),
        b'l' => Call::Log(rest, None),
        b'L' => Call::Log(rest.get(1..).unwrap_or_default(), Some(byte())),
        b'E' => Call::Stderr(stderr_bytes(rest)),
        b'Z' => Call::StderrEnd,
        b'K' => Call::StderrSplit {
            secret: byte(),
            cut: rest.get(1).copied().unwrap_or(0),
            bytes: stderr_bytes(rest.get(2..).unwrap_or_default()),
        },
        _ => return None,
    })
}

fn failure(spec: &[u8]) -> Failure {
    let n = || {
        std::str::from_utf8(&spec[1..])
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
            .unwrap_or(0)
    };
    match spec.first() {
        Some(b'e') => Failure::Exited(n()),
        Some(b'k') => Failure::Killed(n()),
        Some(b's') => Failure::SpawnFailed(String::from_utf8_lossy(&spec[1..]).into_owned()),
        _ => Failure::ClosedOutput,
    }
}

// ───────────────────────────── templates ─────────────────────────────

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

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
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

// ───────────────────────────── the model ─────────────────────────────

/// An id as the guard's events carry it: a string one redacted and cut for the operator's log.
fn logged_form(id: &Value) -> Value {
    match id {
        Value::String(s) => Value::String(jsonrpc_errors_guest::guard::steps::quoted(s)),
        other => other.clone(),
    }
}

/// The key of the one id among a client batch's members that the operator's log shows as `logged` (ids are
/// redacted there: a member holding a secret in its id is answered with its id whole, and logged redacted).
fn member_key_logged_as(line: &[u8], logged: &Value) -> Option<String> {
    let Ok(Value::Array(members)) = serde_json::from_slice::<Value>(line) else {
        return None;
    };
    let logged_key = key(&logged.to_string());
    let mut keys: Vec<String> = members
        .iter()
        .filter_map(|m| m.get("id"))
        .filter(|id| key(&logged_form(id).to_string()) == logged_key)
        .map(|id| key(&id.to_string()))
        .collect();
    keys.dedup();
    (keys.len() == 1).then(|| keys.remove(0))
}

/// The request ids a client line's cancellations name (the line alone, or each member of a batch).
fn cancelled_ids(line: &[u8]) -> Vec<Value> {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Vec::new();
    };
    let members = match value {
        Value::Array(members) => members,
        one => vec![one],
    };
    members
        .into_iter()
        .filter(|m| m["method"] == "notifications/cancelled")
        .filter_map(|m| m["params"].get("requestId").cloned())
        .collect()
}

/// An id's identity, as JSON-RPC means it: numbers by value as the guard keys them (`message::id_key`: `7`,
/// `7.0`, `7E0` and `0.7e+1` are one id, `-0` and `0` another), strings by their value whatever escapes spell
/// them (the guard answers with the client's id as a value, so its own answers spell strings, and numbers'
/// exponents, their own way).
pub fn key(raw: &str) -> String {
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::String(s)) => json_string(&s),
        _ => match RawValue::from_string(raw.to_string()) {
            Ok(r) => message::id_key(&r),
            Err(_) => raw.to_string(),
        },
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waiting {
    /// Forwarded as a line of its own: its answer is a response of its own.
    Alone,
    /// A member of allowed batch number N (counted from 1 in the order the client sent them): its answer
    /// arrives in that batch's array.
    InBatch(u32),
    /// A member of batch N answered (by the upstream, or by the guard at its deadline), held by the guard
    /// until the batch's array is complete: owed to the client still, and so in flight (its id may not be
    /// used again yet), but no longer pending (a second or late upstream answer to it answers nothing).
    Filled(u32),
}

/// What a session call was.
pub enum Origin<'a> {
    Client(&'a [u8]),
    Upstream(&'a [u8]),
    ClientOversize,
    UpstreamOversize,
    Expire(u64),
    Failed,
}

/// What the client is owed, kept from the session's own steps, and checked against them after every call.
#[derive(Default)]
pub struct Model {
    timeout: bool,
    /// Requests forwarded and not yet answered, cancelled or timed out, by [`key`]. A list per key, so that
    /// the model keeps counting when a finding listed in `FUZZ_KNOWN` lets two through.
    waiting: HashMap<String, Vec<Waiting>>,
    /// Requests forwarded in all.
    forwarded: usize,
    /// Every request id forwarded (as the client wrote it), every progress token, every id of the
    /// upstream's own requests: what built lines refer to.
    pub ids: Vec<String>,
    pub tokens: Vec<String>,
    pub server_ids: Vec<String>,
    /// Replies the guard wrote into an allowed batch for members it did not forward (its `answered` events
    /// in the batch's call), by batch number and key: they reach the client inside that batch's array.
    batch_replies: HashMap<(u32, String), usize>,
    /// Client lines that were arrays: the number of the last one.
    batches: u32,
    down: bool,
    /// The session's `pending` after the last call.
    pending: usize,
}

/// What a line reads as.
enum Msg<'a> {
    Request {
        id: &'a RawValue,
        params: Option<&'a RawValue>,
    },
    Notification,
    Response {
        id: Option<&'a RawValue>,
        error: bool,
    },
    Batch(Vec<&'a RawValue>),
    Other,
}

fn classify(text: &str) -> Msg<'_> {
    if text.trim_start().starts_with('[') {
        return serde_json::from_str::<Vec<&RawValue>>(text).map_or(Msg::Other, Msg::Batch);
    }
    let Ok(obj) = serde_json::from_str::<RawObject<'_>>(text) else {
        return Msg::Other;
    };
    match (obj.get("method"), obj.get("id")) {
        (Some(_), Some(id)) => Msg::Request {
            id,
            params: obj.get("params"),
        },
        (Some(_), None) => Msg::Notification,
        (None, id) if obj.get("result").is_some() || obj.get("error").is_some() => Msg::Response {
            id,
            error: obj.get("error").is_some(),
        },
        _ => Msg::Other,
    }
}

fn is_null(raw: &RawValue) -> bool {
    raw.get() == "null"
}

impl Model {
    pub fn new(timeout: bool) -> Self {
        Model {
            timeout,
            ..Model::default()
        }
    }

    pub fn is_down(&self) -> bool {
        self.down
    }

    /// How the request with this key is waiting, if it is: what a built answer to it must lead to.
    pub fn expectation(&self, key: &str) -> Option<bool> {
        let w = self.waiting.get(key)?;
        w.iter()
            .any(|w| !matches!(w, Waiting::Filled(_)))
            .then(|| w.contains(&Waiting::Alone))
    }

    /// Requests owed an answer that the upstream has not given yet.
    fn owed(&self) -> usize {
        self.waiting
            .values()
            .flatten()
            .filter(|w| !matches!(w, Waiting::Filled(_)))
            .count()
    }

    fn owed_alone(&self) -> usize {
        self.waiting
            .values()
            .flatten()
            .filter(|w| **w == Waiting::Alone)
            .count()
    }

    /// The key of a waiting request whose id the operator's log shows as `logged` (ids are redacted there);
    /// `logged`'s own key when none is waiting (the guard's replies to requests it never forwarded).
    fn waiting_key_logged_as(&self, logged: &Value) -> String {
        let logged_key = key(&logged.to_string());
        let mut keys: Vec<&String> = self.waiting.keys().collect();
        keys.sort();
        keys.into_iter()
            .find(|k| {
                serde_json::from_str::<Value>(k)
                    .is_ok_and(|id| key(&logged_form(&id).to_string()) == logged_key)
            })
            .cloned()
            .unwrap_or_else(|| key(&logged.to_string()))
    }

    fn take(&mut self, key: &str, how: Waiting) -> bool {
        let Some(list) = self.waiting.get_mut(key) else {
            return false;
        };
        let Some(i) = list.iter().position(|w| *w == how) else {
            return false;
        };
        list.remove(i);
        if list.is_empty() {
            self.waiting.remove(key);
        }
        true
    }

    /// Checks one call's outcome and brings the model up to date. `expect`: the key of the request a built
    /// answer picked, with whether it was waiting alone (its answer must reach the client now) or in a batch
    /// (its slot must be filled now: one request fewer pending).
    pub fn check(&mut self, origin: &Origin<'_>, out: &Outcome, expect: Option<(String, bool)>) {
        let json = out.to_json();
        if std::env::var_os("FUZZ_SHOW").is_some() {
            // Replaying a finding: each call, its outcome and what the model expected before it.
            let call = match origin {
                Origin::Client(l) => format!("client_line {:?}", String::from_utf8_lossy(l)),
                Origin::Upstream(l) => format!("upstream_line {:?}", String::from_utf8_lossy(l)),
                Origin::ClientOversize => "client_oversize".into(),
                Origin::UpstreamOversize => "upstream_oversize".into(),
                Origin::Expire(now) => format!("expire {now}"),
                Origin::Failed => "upstream_failed".into(),
            };
            eprintln!(
                "== {call}\n   -> {json}\n   owed before: {:?}, batch replies {:?}",
                self.waiting, self.batch_replies
            );
        }
        assert!(
            serde_json::from_str::<&RawValue>(&json).is_ok(),
            "the outcome is not JSON: {json}"
        );
        let client_batch = matches!(origin, Origin::Client(line) if std::str::from_utf8(line).is_ok_and(|t| matches!(classify(t), Msg::Batch(_))));
        if client_batch {
            self.batches += 1;
        }
        let mut replies: Vec<String> = Vec::new();
        let mut last_answered: Option<String> = None;
        // At a deadline, the request the guard just cancelled upstream (named exactly, where the event that
        // follows names it as the operator's log shows it).
        let mut last_cancelled: Option<String> = None;

        let mut answered: Vec<String> = Vec::new();
        let mut sent_members: Vec<&str> = Vec::new();
        for step in &out.steps {
            match step {
                Step::Forward { to, .. } => {
                    let line = match (origin, to) {
                        (Origin::Client(l), Peer::Upstream)
                        | (Origin::Upstream(l), Peer::Client) => *l,
                        _ => panic!("{step:?} after a call that forwards nothing there"),
                    };
                    let text = std::str::from_utf8(line)
                        .unwrap_or_else(|_| panic!("forwarded invalid UTF-8 as it is: {line:?}"));
                    match to {
                        Peer::Upstream => self.forwarded_to_upstream(text, Waiting::Alone),
                        Peer::Client => self.reached_client(
                            text,
                            origin,
                            last_answered.as_deref(),
                            &mut answered,
                        ),
                    }
                }
                Step::Send { to, line, .. } => {
                    assert!(
                        !line.contains('\n'),
                        "a line with a newline in it: {line:?}"
                    );
                    assert!(
                        serde_json::from_str::<&RawValue>(line).is_ok(),
                        "sent a line that is not JSON: {line}"
                    );
                    match (to, origin) {
                        (Peer::Upstream, _) if self.down => {
                            panic!("wrote to the upstream after it failed: {line}")
                        }
                        (Peer::Upstream, Origin::Client(_)) => {
                            sent_members.push(line);
                            self.forwarded_to_upstream(line, Waiting::InBatch(self.batches));
                        }
                        (Peer::Upstream, Origin::Expire(_)) => {
                            assert!(
                                line.contains(r#""method":"notifications/cancelled""#),
                                "expire wrote {line} upstream"
                            );
                            last_cancelled = cancelled_ids(line.as_bytes())
                                .first()
                                .map(|id| key(&id.to_string()));
                        }
                        (Peer::Upstream, _) => {
                            panic!("wrote {line} upstream in answer to the upstream")
                        }
                        // The guard's replies to the client's own message: not answers to anything forwarded.
                        (Peer::Client, Origin::Client(_) | Origin::ClientOversize) => {}
                        (Peer::Client, _) => self.reached_client(
                            line,
                            origin,
                            last_answered.as_deref(),
                            &mut answered,
                        ),
                    }
                }
                Step::Event(e) if e.event == EventName::ClientCancelled => {
                    // An event's id is the id as the operator's log shows it (a string one redacted): the request
                    // is one the client's cancellation named whose logged form that is, and which waited alone.
                    let logged = e.id.as_ref().expect("a cancellation names its request");
                    let Origin::Client(line) = origin else {
                        panic!("a cancellation reported outside a client call: {e:?}")
                    };
                    let named = cancelled_ids(line);
                    // Compared by key, as the guard compares ids: `-0` names the request `0`.
                    let logged_key = key(&logged.to_string());
                    let k = named
                        .iter()
                        .filter(|id| key(&logged_form(id).to_string()) == logged_key)
                        .map(|id| key(&id.to_string()))
                        .find(|k| self.take(k, Waiting::Alone));
                    assert!(k.is_some(), "cancelled {logged}, which no cancellation in the line named while it waited alone (named: {named:?})");
                }
                Step::Event(e) => {
                    // In a client batch's call, the guard's own replies to its members: each is reported.
                    if e.event == EventName::Answered {
                        let logged = e.id.as_ref().map_or_else(
                            || "null".to_string(),
                            |id| match origin {
                                // A batch member answered here (never forwarded): its id is one of the line's.
                                Origin::Client(line) if client_batch => {
                                    member_key_logged_as(line, id)
                                        .unwrap_or_else(|| self.waiting_key_logged_as(id))
                                }
                                _ => self.waiting_key_logged_as(id),
                            },
                        );
                        let k = match origin {
                            Origin::Expire(_) => last_cancelled.take().unwrap_or(logged),
                            _ => logged,
                        };
                        if client_batch {
                            replies.push(k.clone());
                        }
                        // A batch member answered at its deadline: its answer waits in the array, and a late
                        // upstream answer to it is dropped.
                        if matches!(origin, Origin::Expire(_)) {
                            self.fill(&k);
                        }
                        last_answered = Some(k);
                    }
                }
            }
        }
        // A batch that stays open (a member went upstream as a request): the replies wait in its array.
        if client_batch
            && sent_members
                .iter()
                .any(|s| matches!(classify(s), Msg::Request { .. }))
        {
            for k in replies {
                *self.batch_replies.entry((self.batches, k)).or_default() += 1;
            }
        }
        match origin {
            Origin::Failed => {
                self.down = true;
                assert_eq!(
                    out.pending, 0,
                    "requests still pending after the upstream failed"
                );
                assert!(
                    self.waiting.is_empty(),
                    "the upstream failed and these requests got no answer: {:?}",
                    self.waiting
                );
            }
            Origin::Expire(now) => {
                assert!(
                    out.deadline.is_none_or(|d| d > *now),
                    "after expire at {now}, a deadline of {:?} is left",
                    out.deadline
                );
            }
            _ => {}
        }
        // A raw upstream line (not built from a template, so no expectation) that the guard took for the
        // answer to a batch member: its slot is filled now, as a built answer's would be.
        if let (None, Origin::Upstream(line)) = (&expect, origin) {
            // As the guard reads it: invalid UTF-8 repaired.
            let text = String::from_utf8_lossy(line);
            let id = match classify(&text) {
                Msg::Response { id: Some(id), .. } => Some(key(id.get())),
                _ => None,
            };
            if let Some(k) = id.filter(|_| out.pending + 1 == self.pending) {
                self.fill(&k);
            }
        }
        if let Some((k, alone)) = expect {
            if alone {
                assert!(
                    answered.contains(&k),
                    "the upstream answered {k}, and the client got no answer: {json}"
                );
            } else {
                assert_eq!(
                    out.pending + 1,
                    self.pending,
                    "the upstream answered batch member {k}; pending did not drop: {json}"
                );
                // One of its slots is filled now; the array that carries it reaches the client later (unless
                // it was the last slot: then the array went out in this very call and took the entry).
                self.fill(&k);
            }
        }
        assert!(
            out.pending <= self.forwarded,
            "{} pending, {} forwarded",
            out.pending,
            self.forwarded
        );
        assert!(
            out.pending >= self.owed_alone(),
            "{} pending, yet {} requests forwarded alone are owed an answer: one was dropped without one",
            out.pending,
            self.owed_alone()
        );
        assert!(
            out.pending <= self.owed(),
            "{} pending, only {} owed an answer",
            out.pending,
            self.owed()
        );
        assert_eq!(
            out.deadline.is_some(),
            self.timeout && out.pending > 0,
            "deadline {:?} with {} pending",
            out.deadline,
            out.pending
        );
        self.pending = out.pending;
    }

    /// A batch member's slot is filled: its answer waits for the rest of the array.
    fn fill(&mut self, k: &str) {
        if let Some(w) = self
            .waiting
            .get_mut(k)
            .and_then(|list| list.iter_mut().find(|w| matches!(w, Waiting::InBatch(_))))
        {
            if let Waiting::InBatch(n) = *w {
                *w = Waiting::Filled(n);
            }
        }
    }

    /// A client message the guard passed upstream: a request is now owed an answer.
    fn forwarded_to_upstream(&mut self, text: &str, how: Waiting) {
        assert!(
            !self.down,
            "forwarded to the upstream after it failed: {text}"
        );
        match classify(text) {
            Msg::Request { id, params } => {
                let k = key(id.get());
                // In flight until its answer reaches the client (a batch member's, in its array).
                let in_flight = self.waiting.get(&k).is_some_and(|w| !w.is_empty());
                assert!(
                    !in_flight,
                    "forwarded a request whose id {k} is already in flight: {text}"
                );
                self.waiting.entry(k).or_default().push(how);
                self.forwarded += 1;
                self.ids.push(id.get().to_string());
                let token = params
                    .and_then(RawObject::of)
                    .and_then(|p| p.get("_meta"))
                    .and_then(RawObject::of)
                    .and_then(|m| m.get("progressToken"));
                if let Some(t) = token {
                    self.tokens.push(t.get().to_string());
                }
            }
            Msg::Notification | Msg::Response { .. } => {}
            Msg::Batch(_) => panic!("forwarded a batch whole: {text}"),
            Msg::Other => panic!("forwarded something that is no JSON-RPC message: {text}"),
        }
    }

    /// A message that reached the client from the upstream, or an answer of the guard's own: an answer must
    /// be owed, and is then no longer.
    /// `last_answered`: the request the guard last reported answering in this call (after a failure or a
    /// deadline, the array that follows is the batch that answer completed).
    fn reached_client(
        &mut self,
        text: &str,
        origin: &Origin<'_>,
        last_answered: Option<&str>,
        answered: &mut Vec<String>,
    ) {
        let from_upstream = matches!(origin, Origin::Upstream(_));
        match classify(text) {
            Msg::Request { .. } | Msg::Notification => {
                assert!(
                    from_upstream,
                    "the guard itself wrote a call to the client: {text}"
                );
                if let Msg::Request { id, .. } = classify(text) {
                    self.server_ids.push(id.get().to_string());
                }
            }
            Msg::Response { id: None, .. } => {
                panic!("a response without an id reached the client: {text}")
            }
            // An upstream error about a request it could not read: sanitized and passed on, answering none.
            Msg::Response {
                id: Some(id),
                error,
            } if from_upstream && is_null(id) => {
                assert!(
                    error,
                    "a success response with a null id reached the client: {text}"
                );
            }
            Msg::Response { id: Some(id), .. } => {
                let k = key(id.get());
                assert!(self.take(&k, Waiting::Alone), "an answer to {k}, which is owed none (answered twice, or never forwarded): {text}");
                answered.push(k);
            }
            Msg::Batch(members) => {
                assert!(!members.is_empty(), "an empty array reached the client");
                let keys: Vec<String> = members
                    .iter()
                    .map(|m| match classify(m.get()) {
                        Msg::Response { id: Some(id), .. } => key(id.get()),
                        _ => panic!("a batch answer holds {}, which is no response", m.get()),
                    })
                    .collect();
                // One batch's array: the batch whose members account for every answer in it (an id can be in
                // flight in one batch and refused as a duplicate in a later one).
                // An upstream answer completes the batch of the request it answers (in flight in one batch
                // only); after a failure or a deadline, any batch that accounts for the answers will do.
                // The request whose answer completed the batch: the upstream's, or the guard's own (reported
                // just before the array); it is in flight in one batch only. Else any batch that accounts for
                // every answer in the array.
                let completed_by = match origin {
                    Origin::Upstream(line) => match classify(&String::from_utf8_lossy(line)) {
                        Msg::Response { id: Some(id), .. } => Some(key(id.get())),
                        _ => None,
                    },
                    _ => last_answered.map(str::to_string),
                };
                let completing = completed_by.and_then(|k| {
                    self.waiting
                        .get(&k)
                        .into_iter()
                        .flatten()
                        .find_map(|w| match w {
                            Waiting::InBatch(n) | Waiting::Filled(n) => Some(*n),
                            Waiting::Alone => None,
                        })
                });
                let batch = completing
                    .or_else(|| self.batch_answered_by(&keys))
                    .unwrap_or_else(|| {
                        panic!("a batch answer holding answers owed to no one batch: {text}")
                    });
                for k in keys {
                    if !self.take(&k, Waiting::Filled(batch))
                        && !self.take(&k, Waiting::InBatch(batch))
                    {
                        let allowance = self
                            .batch_replies
                            .get_mut(&(batch, k.clone()))
                            .filter(|n| **n > 0);
                        let Some(n) = allowance else {
                            panic!("batch {batch}'s array holds an answer to {k}, which it is not owed: {text}")
                        };
                        *n -= 1;
                    }
                    answered.push(k);
                }
                // The array goes out once, complete: nothing of that batch is owed any more.
                let left: Vec<&String> = self
                    .waiting
                    .iter()
                    .filter(|(_, w)| w.iter().any(|w| matches!(w, Waiting::InBatch(n) | Waiting::Filled(n) if *n == batch)))
                    .map(|(k, _)| k)
                    .collect();
                assert!(
                    left.is_empty(),
                    "batch {batch}'s array reached the client without answers to {left:?}: {text}"
                );
            }
            Msg::Other => {
                panic!("something that is no JSON-RPC message reached the client: {text}")
            }
        }
    }

    /// The batch whose members and replies can account for every one of `keys` (an array's answers).
    fn batch_answered_by(&self, keys: &[String]) -> Option<u32> {
        let first = keys.first()?;
        let mut candidates: Vec<u32> = self
            .waiting
            .get(first)
            .into_iter()
            .flatten()
            .filter_map(|w| match w {
                Waiting::InBatch(n) | Waiting::Filled(n) => Some(*n),
                Waiting::Alone => None,
            })
            .collect();
        candidates.extend(
            self.batch_replies
                .iter()
                .filter(|((_, k), c)| k == first && **c > 0)
                .map(|((n, _), _)| *n),
        );
        let slots = |n: u32, k: &String| {
            self.waiting.get(k).map_or(0, |w| {
                w.iter()
                    .filter(|w| matches!(w, Waiting::InBatch(b) | Waiting::Filled(b) if *b == n))
                    .count()
            })
        };
        candidates.into_iter().find(|&n| {
            // Every answer in the array is one of batch n's slots or replies, and every slot of batch n still
            // owed is in the array (it goes out complete).
            let accounted = keys.iter().all(|k| {
                let replies = self
                    .batch_replies
                    .get(&(n, k.clone()))
                    .copied()
                    .unwrap_or(0);
                keys.iter().filter(|x| *x == k).count() <= slots(n, k) + replies
            });
            let complete = self
                .waiting
                .keys()
                .all(|k| slots(n, k) <= keys.iter().filter(|x| *x == k).count());
            accounted && complete
        })
    }
}
