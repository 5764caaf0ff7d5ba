//! What a guard session tells its shell to do: the steps of one call, in order, as JSON text.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Peer {
    Client,
    Upstream,
}

/// One thing for the shell to do. The steps of a call are carried out in order; steps for the same peer
/// must be written in that order (that is what keeps responses in order per id).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "step", rename_all = "kebab-case")]
pub enum Step {
    /// Write the line the shell just passed in, byte for byte, to `to`.
    Forward { to: Peer },
    /// Write `line` (one JSON-RPC message or batch, no newline in it) to `to`.
    Send { to: Peer, line: String },
    /// Log this (and count it): never a message body.
    Event(Box<Event>),
}

/// A log record for the operator: what happened, at the taxonomy's level for the kind, with the internal
/// detail the client did not get (redacted for the operator: no secrets, but paths and stack traces kept).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    pub event: EventName,
    pub level: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The code the client got (none for an `isError` tool result).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// The correlation id the client's response carries, when it carries one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    /// The JSON-RPC id of the request concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The events a session reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventName {
    /// The guard answered a request itself (bad client message, upstream failure, timeout).
    Answered,
    /// An upstream error response was sanitized and mapped into the dialect.
    Sanitized,
    /// An `isError` tool result's text was redacted (or cut).
    Redacted,
    /// An upstream message that was not valid UTF-8 was repaired before it was passed on.
    Repaired,
    /// A line or message was not relayed (the detail says why).
    Dropped,
    /// The client cancelled a request in flight: no response is owed for it any more.
    ClientCancelled,
    /// The upstream ended (exited, was killed, closed its output, could not start): it can no longer answer.
    UpstreamEnded,
}

impl Event {
    pub fn new(event: EventName, level: &str) -> Self {
        Event {
            event,
            level: level.to_string(),
            kind: None,
            code: None,
            category: None,
            gate: None,
            correlation_id: None,
            id: None,
            method: None,
            detail: None,
        }
    }

    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    pub fn id(mut self, id: &Value) -> Self {
        self.id = Some(id.clone());
        self
    }

    pub fn method(mut self, method: &str) -> Self {
        self.method = Some(method.to_string());
        self
    }
}

/// The result of one session call.
#[derive(Debug, Serialize)]
pub struct Outcome {
    pub steps: Vec<Step>,
    /// Client requests still waiting for a response.
    pub pending: usize,
    /// When the earliest of them times out (unix milliseconds): the shell calls `expire` then.
    pub deadline: Option<u64>,
}

impl Outcome {
    pub fn to_json(&self) -> String {
        // Strings, integers and values parsed from valid JSON: serializing them cannot fail.
        serde_json::to_string(self).unwrap_or_else(|_| r#"{"steps":[],"pending":0,"deadline":null}"#.to_string())
    }
}
