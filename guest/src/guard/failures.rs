// Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.

//! Why the upstream failed, as the session takes it. A case that carries a record holds its fields.

use crate::error::ErrorObject;
use serde_json::Value;

/// Why the upstream can no longer answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamFailure {
    /// It could not be started: the operating system's reason.
    SpawnFailed(String),
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it.
    Killed(i32),
    /// It closed its output while still running.
    ClosedOutput,
}

impl UpstreamFailure {
    /// Reads `upstream-failure` as JSON (the npm module's glue): a case without a payload as its name, one with a
    /// payload as an object of one member named after the case, a record's fields in snake_case (an optional
    /// one absent or null when none; others are not read). Anything else is refused with -32602 (`data.reason` "invalid-failure").
    pub fn from_json(text: &str) -> Result<UpstreamFailure, ErrorObject> {
        serde_json::from_str(text)
            .ok()
            .as_ref()
            .and_then(read_upstream_failure)
            .ok_or_else(not_a_failure)
    }
}

fn read_upstream_failure(value: &Value) -> Option<UpstreamFailure> {
    let (case, payload) = case(value)?;
    Some(match (case, payload) {
        ("spawn-failed", Some(v)) => UpstreamFailure::SpawnFailed(v.as_str().map(String::from)?),
        ("exited", Some(v)) => {
            UpstreamFailure::Exited(v.as_i64().and_then(|n| i32::try_from(n).ok())?)
        }
        ("killed", Some(v)) => {
            UpstreamFailure::Killed(v.as_i64().and_then(|n| i32::try_from(n).ok())?)
        }
        ("closed-output", None) => UpstreamFailure::ClosedOutput,
        _ => return None,
    })
}

/// Why one request got no answer from an upstream reached request by request (over HTTP, each request is
/// an exchange of its own). The upstream is not gone: the next request is tried again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestFailure {
    /// No answer could be had: the connection was refused or reset, the name did not resolve, TLS failed,
    /// the response ended before its answer. The reason, naming no credential.
    Unreachable(String),
    /// The upstream answered with an HTTP status and no JSON-RPC answer to the request (its body is never
    /// passed on).
    ///
    /// An HTTP status an upstream refused a request with.
    Refused {
        status: u16,
        /// Its `Retry-After`, in seconds, when it gave one.
        retry_after_secs: Option<u64>,
    },
    /// The upstream's session that the request was sent on is gone (HTTP 404 to a request that named it),
    /// and no new one could be opened in its place.
    SessionGone,
}

impl RequestFailure {
    /// Reads `request-failure` as JSON (the npm module's glue): a case without a payload as its name, one with a
    /// payload as an object of one member named after the case, a record's fields in snake_case (an optional
    /// one absent or null when none; others are not read). Anything else is refused with -32602 (`data.reason` "invalid-failure").
    pub fn from_json(text: &str) -> Result<RequestFailure, ErrorObject> {
        serde_json::from_str(text)
            .ok()
            .as_ref()
            .and_then(read_request_failure)
            .ok_or_else(not_a_failure)
    }
}

fn read_request_failure(value: &Value) -> Option<RequestFailure> {
    let (case, payload) = case(value)?;
    Some(match (case, payload) {
        ("unreachable", Some(v)) => RequestFailure::Unreachable(v.as_str().map(String::from)?),
        ("refused", Some(Value::Object(fields))) => {
            let status = {
                let v = fields.get("status")?;
                v.as_u64().and_then(|n| u16::try_from(n).ok())?
            };
            let retry_after_secs = match fields.get("retry_after_secs") {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.as_u64()?),
            };
            RequestFailure::Refused {
                status,
                retry_after_secs,
            }
        }
        ("session-gone", None) => RequestFailure::SessionGone,
        _ => return None,
    })
}

/// What `from_json` refuses: no shell's generated marshaller writes it (Python's and TypeScript's check each
/// part first), so one word for every variant keeps the npm module small.
#[cold]
fn not_a_failure() -> ErrorObject {
    ErrorObject::invalid_params(
        "invalid-failure",
        "failure must be a case of the WIT's variant, as JSON",
    )
}

/// A case's name and its payload: `"name"`, or `{"name": payload}`.
fn case(value: &Value) -> Option<(&str, Option<&Value>)> {
    match value {
        Value::String(name) => Some((name, None)),
        Value::Object(members) if members.len() == 1 => members
            .iter()
            .next()
            .map(|(name, payload)| (name.as_str(), Some(payload))),
        _ => None,
    }
}
