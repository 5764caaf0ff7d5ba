//! Responses of the HTTP front: one JSON-RPC message as `application/json`, or a stream of them as
//! `text/event-stream` (SSE); what the shell needs to know of a message to frame it (is it the end of its
//! stream, its error code), read from its top-level members only.

use super::super::io::Outgoing;
use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use serde::de::IgnoredAny;
use serde::Deserialize;
use std::time::Duration;
use tokio::sync::mpsc;

/// Comment lines on an SSE stream that has nothing to say, so intermediaries keep it open and a client
/// that went away is noticed (the write fails).
pub const PING_EVERY: Duration = Duration::from_secs(15);

#[derive(Deserialize)]
struct Top {
    method: Option<IgnoredAny>,
    /// Whether `id` is there at all: `"id": null` is a request's (which the session refuses), not absent.
    #[serde(default, deserialize_with = "present")]
    id: bool,
    result: Option<IgnoredAny>,
    error: Option<Code>,
}

/// A member that is there, whatever its value (`null` too, which `Option` would read as absent).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

#[derive(Deserialize)]
struct Code {
    code: Option<serde_json::Number>,
}

/// What a message is, by its top-level members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `method` and `id`.
    Request,
    /// `method`, no `id`.
    Notification,
    /// `result` or `error`, no `method`: an answer (`code`: the error's, when it has one).
    Response { code: Option<i64> },
    /// An array (a batch, or a batch's answer).
    Batch,
    /// Anything else (not JSON, not an object): the session's to judge.
    Other,
}

pub fn shape(bytes: &[u8]) -> Shape {
    let first = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace() && **b != 0xEF && **b != 0xBB && **b != 0xBF);
    if first == Some(&b'[') {
        return Shape::Batch;
    }
    match serde_json::from_slice::<Top>(bytes) {
        Ok(Top {
            method: Some(_),
            id: true,
            ..
        }) => Shape::Request,
        Ok(Top {
            method: Some(_),
            id: false,
            ..
        }) => Shape::Notification,
        Ok(Top {
            method: None,
            result,
            error,
            ..
        }) if result.is_some() || error.is_some() => Shape::Response {
            code: error.and_then(|e| e.code).and_then(|c| c.as_i64()),
        },
        _ => Shape::Other,
    }
}

/// Whether a message to the client ends its request's stream (the answer, or a batch's array of answers).
pub fn is_final(bytes: &[u8]) -> bool {
    matches!(shape(bytes), Shape::Response { .. } | Shape::Batch)
}

pub fn json(status: StatusCode, bytes: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// An SSE event carrying one message (the session's lines are single-line JSON).
fn event(bytes: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(bytes.len() + 24);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// Something the SSE stream holds while it lives, and lets go of when it ends or the client leaves.
pub trait Held: Send + 'static {
    /// The stream delivered its final message.
    fn finished(&mut self) {}
}

struct SseState<H: Held> {
    first: Option<Outgoing>,
    rx: mpsc::UnboundedReceiver<Outgoing>,
    held: H,
    /// A request's stream ends with its answer; a GET stream ends with the session, an A2A streaming
    /// request's at the session's `end` step.
    ends_with_answer: bool,
    done: bool,
}

/// `text/event-stream` of `first` (if any) and what follows on `rx`, with pings while it is quiet.
pub fn sse<H: Held>(
    first: Option<Outgoing>,
    rx: mpsc::UnboundedReceiver<Outgoing>,
    held: H,
    ends_with_answer: bool,
) -> Response {
    let state = SseState {
        first,
        rx,
        held,
        ends_with_answer,
        done: false,
    };
    let stream = futures_util::stream::unfold(state, |mut st| async move {
        if st.done {
            return None;
        }
        let next = match st.first.take() {
            Some(out) => Some(out),
            None => tokio::select! {
                out = st.rx.recv() => match out {
                    Some(out) => Some(out),
                    None => {
                        // A stream not ended by an answer (a GET stream, an A2A request's events) ends when
                        // its sender goes: the session's `end`, or the relay's end. It is owed nothing more.
                        if !st.ends_with_answer {
                            st.held.finished();
                        }
                        return None;
                    }
                },
                _ = tokio::time::sleep(PING_EVERY) => None,
            },
        };
        let chunk = match next {
            Some(out) => {
                if st.ends_with_answer && is_final(&out.bytes) {
                    st.done = true;
                    st.held.finished();
                }
                event(&out.bytes)
            }
            None => Bytes::from_static(b": ping\n\n"),
        };
        Some((Ok::<_, std::convert::Infallible>(chunk), st))
    });
    let mut response = Response::new(Body::from_stream(stream));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, no-transform"),
    );
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_told_apart_by_their_members() {
        assert_eq!(
            shape(br#"{"jsonrpc":"2.0","id":1,"method":"x"}"#),
            Shape::Request
        );
        assert_eq!(
            shape(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#),
            Shape::Notification
        );
        assert_eq!(
            shape(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Shape::Response { code: None }
        );
        assert_eq!(
            shape(
                br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
            ),
            Shape::Response { code: Some(-32700) }
        );
        assert_eq!(
            shape(br#"{"jsonrpc":"2.0","id":null,"method":"x"}"#),
            Shape::Request,
            "a null id is there: the request is the session's to refuse, not a notification to drop"
        );
        assert_eq!(
            shape(br#"{"jsonrpc":"2.0","method":"x","params":null}"#),
            Shape::Notification
        );
        assert_eq!(shape(b" [1]"), Shape::Batch);
        assert_eq!(shape(b"{not json"), Shape::Other);
        assert!(is_final(br#"{"id":"a","error":{"code":1e3,"message":""}}"#));
        assert!(!is_final(br#"{"method":"sampling/createMessage","id":0}"#));
    }
}
