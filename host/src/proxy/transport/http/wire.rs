//! HTTP as the transport reads it: media types, `Retry-After`, bodies read with a cap (a JSON message whole,
//! or only its ends past the cap), and a request given the guard's own id.

use super::sse;
use crate::proxy::io::{Read, EDGE_BYTES};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap};

fn media(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

pub(super) fn is_sse(headers: &HeaderMap) -> bool {
    media(headers) == "text/event-stream"
}

pub(super) fn is_json(headers: &HeaderMap) -> bool {
    media(headers) == "application/json"
}

/// An event that carries a message (an unnamed one, or `message`).
pub(super) fn is_message(event: &sse::Event) -> bool {
    event.kind == "message"
}

/// `Retry-After` in seconds: a number of seconds, or an HTTP date from now.
pub(super) fn retry_after(headers: &HeaderMap) -> Option<u64> {
    let text = headers.get(header::RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = text.parse::<u64>() {
        return Some(secs);
    }
    let at = httpdate::parse_http_date(text).ok()?;
    Some(
        at.duration_since(std::time::SystemTime::now())
            .map_or(0, |d| d.as_secs_f64().ceil() as u64),
    )
}

/// A body of at most `cap` bytes, or None (longer, or cut).
pub(super) async fn read_capped(mut body: Incoming, cap: usize) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.ok()?.into_data() else {
            continue;
        };
        if bytes.len() + data.len() > cap {
            return None;
        }
        bytes.extend_from_slice(&data);
    }
    Some(bytes)
}

/// A JSON body as one message: whole, or (past `cap`) only its ends, the rest discarded as it streams.
pub(super) async fn read_message(mut body: Incoming, cap: usize) -> Result<Read, hyper::Error> {
    let mut bytes = Vec::new();
    let mut tail = Vec::new();
    let mut length: u64 = 0;
    let mut oversize = false;
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame?.into_data() else {
            continue;
        };
        length += data.len() as u64;
        if !oversize && bytes.len() + data.len() > cap {
            oversize = true;
            keep_tail(&mut tail, &bytes);
            bytes.truncate(EDGE_BYTES);
        }
        if oversize {
            let room = EDGE_BYTES.saturating_sub(bytes.len()).min(data.len());
            bytes.extend_from_slice(&data[..room]);
            keep_tail(&mut tail, &data);
        } else {
            bytes.extend_from_slice(&data);
        }
    }
    Ok(if oversize {
        Read::Oversize {
            length,
            head: bytes,
            tail,
        }
    } else {
        Read::Line(bytes)
    })
}

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

/// `line` (a request) with its id replaced by `id` (JSON text).
pub(super) fn with_id(line: &[u8], id: &str) -> Option<Vec<u8>> {
    let mut value: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(line).ok()?;
    value.insert("id".into(), serde_json::from_str(id).ok()?);
    serde_json::to_vec(&value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;
    use std::time::Duration;

    #[test]
    fn retry_after_is_seconds_or_a_date() {
        let mut h = HeaderMap::new();
        h.insert(header::RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&h), Some(7));
        let later = std::time::SystemTime::now() + Duration::from_secs(120);
        h.insert(
            header::RETRY_AFTER,
            HeaderValue::from_str(&httpdate::fmt_http_date(later)).unwrap(),
        );
        assert!(retry_after(&h).is_some_and(|s| (118..=121).contains(&s)));
        h.insert(header::RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn a_request_gets_the_guards_own_id() {
        let line = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"a":1}}"#;
        assert_eq!(
            String::from_utf8(with_id(line, r#""g""#).unwrap()).unwrap(),
            r#"{"jsonrpc":"2.0","id":"g","method":"initialize","params":{"a":1}}"#
        );
    }
}
