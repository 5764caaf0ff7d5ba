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
    /// one absent or null when none). Anything else is refused with -32602 (`data.reason` "invalid-failure").
    pub fn from_json(text: &str) -> Result<UpstreamFailure, ErrorObject> {
        serde_json::from_str(text)
            .ok()
            .and_then(read_upstream_failure)
            .ok_or_else(|| {
                ErrorObject::invalid_params(
                    "invalid-failure",
                    "failure must be spawn-failed, exited, killed or closed-output as JSON",
                )
            })
    }
}

fn read_upstream_failure(value: Value) -> Option<UpstreamFailure> {
    let (case, payload) = case(value)?;
    Some(match (case.as_str(), payload) {
        ("spawn-failed", Some(v)) => UpstreamFailure::SpawnFailed(json_text(v)?),
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
    /// one absent or null when none). Anything else is refused with -32602 (`data.reason` "invalid-failure").
    pub fn from_json(text: &str) -> Result<RequestFailure, ErrorObject> {
        serde_json::from_str(text)
            .ok()
            .and_then(read_request_failure)
            .ok_or_else(|| {
                ErrorObject::invalid_params(
                    "invalid-failure",
                    "failure must be unreachable, refused or session-gone as JSON",
                )
            })
    }
}

fn read_request_failure(value: Value) -> Option<RequestFailure> {
    let (case, payload) = case(value)?;
    Some(match (case.as_str(), payload) {
        ("unreachable", Some(v)) => RequestFailure::Unreachable(json_text(v)?),
        ("refused", Some(Value::Object(mut fields))) => {
            let status = {
                let v = fields.remove("status")?;
                v.as_u64().and_then(|n| u16::try_from(n).ok())?
            };
            let retry_after_secs = match fields.remove("retry_after_secs") {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.as_u64()?),
            };
            if !fields.is_empty() {
                return None;
            }
            RequestFailure::Refused {
                status,
                retry_after_secs,
            }
        }
        ("session-gone", None) => RequestFailure::SessionGone,
        _ => return None,
    })
}

/// A case's name and its payload: `"name"`, or `{"name": payload}`.
fn case(value: Value) -> Option<(String, Option<Value>)> {
    match value {
        Value::String(name) => Some((name, None)),
        Value::Object(members) if members.len() == 1 => members
            .into_iter()
            .next()
            .map(|(name, payload)| (name, Some(payload))),
        _ => None,
    }
}

fn json_text(value: Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s),
        _ => None,
    }
}
