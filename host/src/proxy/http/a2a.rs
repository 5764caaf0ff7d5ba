//! The A2A endpoint (`--upstream-protocol a2a`): an A2A agent at a URL served behind the guard. A2A 1.0 over
//! JSON-RPC: each POST to [`PATH`] is one request on a stream of its own, to the relay shared by every
//! client (no session, no handshake: an agent needs none), answered with what the session sends that stream;
//! the agent's card at [`card::WELL_KNOWN`], fetched from the agent and served with its JSON-RPC interface
//! pointing at the guard. The HTTP request's rules are the front's (access, content type, sizes); `A2A-Version`
//! must name 1.x (a request without it is A2A 0.3's, which the guard does not relay: A2A's -32009).
//!
//! The streaming methods (`SendStreamingMessage`, `SubscribeToTask`) are answered with an SSE stream of what
//! the session sends the request's stream, each message one event, until the session settles the request
//! (its `end` step: a final event, an error, the agent's stream ended, the timeout); one the session answers
//! at once (it never went to the agent) is answered with that answer alone, as JSON. A client that leaves
//! closes the agent's stream too (the session cancels the request; the link closes its exchange).

use super::body::sse;
use super::body::{json, shape};
use super::front::Busy;
use super::front::Front;
use super::mcp::{
    aborter, access_refused, blank, check_post, ended, exchange, oversize, owed, read_body,
    unavailable, Era, Read_, Slot, BODY_TIMEOUT,
};
use super::upstream::Upstream;
use crate::proxy::io::Read;
use crate::proxy::transport::http::{agent_card, A2A_VERSION};
use crate::proxy::transport::Spec;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json as value, Value};
use std::sync::Arc;
use std::time::Instant;

/// Where the guard serves the agent's JSON-RPC interface.
pub const PATH: &str = "/a2a";
pub use crate::proxy::transport::http::card::WELL_KNOWN as CARD_PATH;
const VERSION_HEADER: &str = "a2a-version";
/// The methods whose answer is an SSE stream of many responses (how they are framed: the session decides
/// when such a request is settled).
const STREAMING: [&str; 2] = ["SendStreamingMessage", "SubscribeToTask"];
/// The JSON-RPC binding's name in an agent card's interfaces.
const JSONRPC: &str = "JSONRPC";

/// POST /a2a: one A2A request.
pub async fn endpoint(State(front): State<Arc<Front>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Some(refused) = access_refused(&front, &parts.headers) {
        return refused;
    }
    if parts.method != axum::http::Method::POST {
        let mut r = (StatusCode::METHOD_NOT_ALLOWED, "A2A requests are POSTs\n").into_response();
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return r;
    }
    if front.draining() {
        return unavailable(&front, "the guard is shutting down");
    }
    if let Some(refused) = check_post(&front, &parts) {
        return refused;
    }
    let at = Instant::now();
    let bytes = match read_body(body, front.max_bytes, &parts.headers, at + BODY_TIMEOUT).await {
        Ok(Read_::Whole(bytes)) => bytes,
        Ok(Read_::Oversize { length, head }) => return oversize(&front, length, &head),
        Err(r) => return r,
    };
    if let Some(refused) = blank(&front, &bytes) {
        return refused;
    }
    let head: Head = serde_json::from_slice(&bytes).unwrap_or_default();
    // Absent: A2A 0.3 (the SDKs' rule); the guard relays 1.x only, which is what it tells the agent it speaks.
    let version = parts
        .headers
        .get(VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .unwrap_or("0.3");
    if version.split('.').next() != A2A_VERSION.split('.').next() {
        tracing::info!(
            event = "http-refused",
            version,
            "an A2A request of a version the guard does not relay"
        );
        return own_error(
            &front,
            value!({"kind": "version-not-supported", "version": version}),
            head.id,
        );
    }
    let streaming = head
        .method
        .as_deref()
        .is_some_and(|m| STREAMING.contains(&m));
    let Some(up) = front
        .shared
        .ensure(&front.children, || front.draining())
        .await
    else {
        return unavailable(&front, "no upstream");
    };
    let len = bytes.len();
    if streaming {
        return stream(&front, &parts, up, Read::Line(bytes), len, at).await;
    }
    let owed = owed(shape(&bytes), &bytes);
    exchange(
        &front,
        &parts,
        up,
        Read::Line(bytes),
        len,
        at,
        owed,
        false,
        Era::A2a,
    )
    .await
}

/// A streaming request: handed to the session on a stream of its own, and answered with an SSE stream of
/// what the session sends there until it ends that stream; or, when the session answered it at once (it
/// never went to the agent), with that answer as JSON.
async fn stream(
    front: &Arc<Front>,
    parts: &axum::http::request::Parts,
    up: Arc<Upstream>,
    read: Read,
    len: usize,
    at: Instant,
) -> Response {
    let Some(mut slot) = Slot::open(front, &up, parts.extensions.get::<Arc<Busy>>()) else {
        return unavailable(front, "too many open streams");
    };
    let (stream, mut rx) = up.open_stream_of_many(aborter(parts));
    slot.stream = Some(stream);
    let ack = match up.submit(stream, read, len, at).await {
        Ok(ack) => ack.await,
        Err(_) => {
            slot.finished = true;
            return unavailable(front, "the session ended");
        }
    };
    match ack {
        Ok(ack) if !ack.broken && ack.to_upstream => sse(None, rx, slot, false),
        Ok(ack) if !ack.broken => match rx.recv().await {
            Some(answer) => {
                slot.finished = true;
                json(StatusCode::OK, answer.bytes)
            }
            None => ended(slot),
        },
        _ => ended(slot),
    }
}

/// The guard's own answer to a request it does not relay: the component renders `kind` in the session's
/// dialect (A2A's codes in the `a2a` dialect), under the request's id.
fn own_error(front: &Front, mut kind: Value, id: Option<&RawValue>) -> Response {
    if let Some(id) = id.and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok()) {
        kind["id"] = id;
    }
    let dialect = &front.children.dialect;
    let body = front
        .children
        .runtime
        .map_error(
            &kind.to_string(),
            dialect,
            jsonrpc_errors_host::Context::now(),
        )
        .unwrap_or_else(|f| f.to_json());
    json(StatusCode::OK, body.into_bytes())
}

/// What the endpoint reads of a request before the session does: its id (for its own answers) and method.
#[derive(Deserialize, Default)]
struct Head<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
}

/// GET /.well-known/agent-card.json: the agent's card, its JSON-RPC interface pointing at the guard.
pub async fn card(State(front): State<Arc<Front>>, request: Request<Body>) -> Response {
    let (parts, _) = request.into_parts();
    if let Some(refused) = access_refused(&front, &parts.headers) {
        return refused;
    }
    let Spec::Http(spec) = &front.children.transport else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let fetched = match agent_card(spec).await {
        Ok(bytes) => bytes,
        Err(why) => {
            tracing::warn!(event = "upstream-transport", detail = %why, "the agent card could not be fetched");
            return (
                StatusCode::BAD_GATEWAY,
                "the agent's card could not be fetched\n",
            )
                .into_response();
        }
    };
    let Ok(Value::Object(mut card)) = serde_json::from_slice::<Value>(&fetched) else {
        tracing::warn!(
            event = "upstream-transport",
            "the agent card is not a JSON object"
        );
        return (
            StatusCode::BAD_GATEWAY,
            "the agent's card is not a JSON object\n",
        )
            .into_response();
    };
    // The guard's own address as the client reached it (the front checked `Host`).
    let host = parts
        .headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    rewrite(&mut card, &format!("http://{host}{PATH}"));
    let mut r = (StatusCode::OK, Value::Object(card).to_string()).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// The card a client of the guard gets: only the JSON-RPC interface, at `url` (the guard relays no other
/// binding, and a client must not reach the agent around it); A2A 0.3's `url` likewise; streaming as the
/// agent offers it (relayed); no signatures (they signed the agent's URLs, which the guard replaced).
pub fn rewrite(card: &mut serde_json::Map<String, Value>, url: &str) {
    if let Some(Value::Array(interfaces)) = card.get_mut("supportedInterfaces") {
        interfaces.retain(|i| i.get("protocolBinding").and_then(Value::as_str) == Some(JSONRPC));
        for interface in interfaces.iter_mut() {
            interface["url"] = Value::from(url);
        }
    }
    if card.contains_key("url") {
        card.insert("url".into(), Value::from(url));
        card.insert("preferredTransport".into(), Value::from(JSONRPC));
    }
    card.remove("additionalInterfaces");
    card.remove("signatures");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_points_at_the_guard_only() {
        let mut card = value!({
            "name": "agent",
            "supportedInterfaces": [
                {"url": "http://agent:9/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": "http://agent:9/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
                {"url": "agent:10", "protocolBinding": "GRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": true},
            "signatures": [{"protected": "x", "signature": "y"}],
        });
        rewrite(card.as_object_mut().unwrap(), "http://127.0.0.1:7/a2a");
        assert_eq!(
            card["supportedInterfaces"],
            value!([{"url": "http://127.0.0.1:7/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}])
        );
        assert_eq!(
            card["capabilities"]["streaming"], true,
            "streams are relayed"
        );
        assert!(card.get("signatures").is_none());
        assert!(!card.to_string().contains("agent:"));
    }
}
