//! What the transport reads of a message to carry it over HTTP (never to decide anything about it: that is
//! the session's): a message's kind, id, method and MCP revision, the name the stateless revision's headers
//! carry, the request a cancellation names; of the upstream's messages, whether one answers a given request.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// The stateless revisions (each request names its revision in `_meta`, and carries it in headers).
pub const MODERN: &[&str] = &["2026-07-28"];
const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
struct Params<'a> {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    uri: Option<String>,
    #[serde(borrow, default, rename = "requestId")]
    request_id: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<&'a RawValue>,
}

/// A message on its way to the upstream, as far as HTTP needs to know it.
#[derive(Debug, Default, Clone)]
pub struct Outbound {
    /// A request: its id as written (JSON text).
    pub id: Option<String>,
    pub method: Option<String>,
    /// The MCP revision the request names in `params._meta` (the stateless revisions do).
    pub revision: Option<String>,
    /// What `Mcp-Name` carries: a tool's or prompt's name, a resource's URI.
    pub name: Option<String>,
    /// A `notifications/cancelled`: the id of the request it cancels (JSON text).
    pub cancels: Option<String>,
}

impl Outbound {
    /// Reads what it can; a line it cannot read is carried as it is (a notification, as far as HTTP goes).
    pub fn peek(line: &[u8]) -> Outbound {
        let Ok(env) = serde_json::from_slice::<Envelope>(line) else {
            return Outbound::default();
        };
        let params: Params = env
            .params
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or_default();
        let revision = params
            .meta
            .and_then(|m| serde_json::from_str::<serde_json::Map<String, Value>>(m.get()).ok())
            .and_then(|m| m.get(PROTOCOL_VERSION_META)?.as_str().map(str::to_string));
        let method = env.method.clone();
        let name = match method.as_deref() {
            Some("tools/call" | "prompts/get") => params.name,
            Some("resources/read") => params.uri,
            _ => None,
        };
        let cancels = (method.as_deref() == Some("notifications/cancelled"))
            .then(|| params.request_id.map(|r| r.get().to_string()))
            .flatten();
        let is_request = method.is_some() && env.id.is_some_and(|id| id.get() != "null");
        Outbound {
            id: is_request
                .then(|| env.id.map(|i| i.get().to_string()))
                .flatten(),
            method,
            revision,
            name,
            cancels,
        }
    }

    pub fn is_request(&self) -> bool {
        self.id.is_some()
    }

    /// Whether the request is sent under a stateless revision.
    pub fn is_modern(&self) -> bool {
        self.revision
            .as_deref()
            .is_some_and(|r| MODERN.contains(&r))
    }
}

/// The key an id is known by, whatever its spelling (`1`, `1.0`, `"a"`, `"\u0061"`): its value.
pub fn id_key(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Number(n)) => match n.as_f64() {
            Some(f) => format!("n:{f}"),
            None => format!("n:{n}"),
        },
        Ok(Value::String(s)) => format!("s:{s}"),
        Ok(other) => format!("o:{other}"),
        Err(_) => format!("r:{text}"),
    }
}

/// An upstream message, as far as the transport needs to know it.
pub struct Inbound {
    /// A response: the key of the id it answers.
    pub answers: Option<String>,
}

impl Inbound {
    pub fn peek(line: &[u8]) -> Inbound {
        let answers = serde_json::from_slice::<Envelope>(line)
            .ok()
            .filter(|e| e.method.is_none() && (e.result.is_some() || e.error.is_some()))
            .and_then(|e| e.id.map(|id| id_key(id.get())));
        Inbound { answers }
    }
}

/// An error response the upstream wrote with another id (or `null`: it could not read the request's) as the
/// body of an HTTP error: the same error under the request's own id, which it answers (the official SDK
/// clients read it so). None if the body is no JSON-RPC error response.
pub fn error_for(body: &[u8], id: &str) -> Option<Vec<u8>> {
    let env = serde_json::from_slice::<Envelope>(body).ok()?;
    if env.method.is_some() || env.result.is_some() || env.error.is_none() {
        return None;
    }
    if env.id.is_some_and(|own| id_key(own.get()) == id_key(id)) {
        return Some(body.to_vec());
    }
    let mut value: serde_json::Map<String, Value> = serde_json::from_slice(body).ok()?;
    value.insert("id".into(), serde_json::from_str(id).ok()?);
    serde_json::to_vec(&value).ok()
}

/// The revision an `initialize` result agreed on.
pub fn negotiated_version(line: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(line).ok()?;
    Some(
        value
            .pointer("/result/protocolVersion")?
            .as_str()?
            .to_string(),
    )
}

/// A header value as the stateless revision carries a name (`Mcp-Name`): as it is when it is plain printable
/// ASCII, else `=?base64?...?=` (the SDKs' encoding).
pub fn header_value(text: &str) -> String {
    let plain = !text.is_empty()
        && text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && text.trim() == text
        && !(text.starts_with("=?base64?") && text.ends_with("?="));
    if plain {
        text.to_string()
    } else {
        use base64::Engine;
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(text.as_bytes())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_http_needs_is_read_from_a_message() {
        let call = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let o = Outbound::peek(call);
        assert_eq!(o.id.as_deref(), Some("7"));
        assert_eq!(o.name.as_deref(), Some("echo"));
        assert!(o.is_request() && o.is_modern());
        let cancel =
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a b"}}"#;
        let o = Outbound::peek(cancel);
        assert_eq!(o.cancels.as_deref(), Some(r#""a b""#));
        assert!(!o.is_request());
        let answer = br#"{"jsonrpc":"2.0","id":"s1","result":{}}"#;
        assert!(!Outbound::peek(answer).is_request());
        assert!(!Outbound::peek(b"not json").is_request());
        assert!(!Outbound::peek(br#"{"jsonrpc":"2.0","id":null,"method":"x"}"#).is_request());
    }

    #[test]
    fn an_answer_is_known_by_its_ids_value() {
        assert_eq!(
            Inbound::peek(br#"{"jsonrpc":"2.0","id":1.0,"result":{}}"#).answers,
            Some(id_key("1"))
        );
        assert_eq!(
            Inbound::peek(br#"{"jsonrpc":"2.0","id":"\u0061","error":{}}"#).answers,
            Some(id_key(r#""a""#))
        );
        assert_eq!(
            Inbound::peek(br#"{"jsonrpc":"2.0","id":1,"method":"x"}"#).answers,
            None
        );
        assert_eq!(
            Inbound::peek(br#"{"jsonrpc":"2.0","method":"x"}"#).answers,
            None
        );
        assert_ne!(id_key("1"), id_key(r#""1""#));
    }

    #[test]
    fn an_http_error_body_answers_the_request_it_was_for() {
        let body =
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request"}}"#;
        let fixed = error_for(body, "42").unwrap();
        assert_eq!(
            String::from_utf8(fixed).unwrap(),
            r#"{"jsonrpc":"2.0","id":42,"error":{"code":-32000,"message":"Bad Request"}}"#
        );
        assert!(error_for(b"<html>502</html>", "42").is_none());
        assert!(error_for(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, "1").is_none());
    }

    #[test]
    fn a_name_header_is_plain_or_base64() {
        assert_eq!(header_value("echo"), "echo");
        assert_eq!(header_value("é"), "=?base64?w6k=?=");
        assert_eq!(header_value(" x"), "=?base64?IHg=?=");
    }
}
