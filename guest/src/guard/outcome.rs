// Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.

//! What a guard session's calls return (`session-outcome`, its `step`s and their records) and the JSON
//! text every shell reads it as. The events' builders are `steps.rs`'s.

use serde_json::Value;

/// Where a step writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    Client,
    Upstream,
}

impl Peer {
    /// The case's name, as the JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            Peer::Client => "client",
            Peer::Upstream => "upstream",
        }
    }
}

/// What an event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// The upstream ended (exited, was killed, closed its output, could not start).
    UpstreamEnded,
    /// A policy's `block` action: the message was not passed on.
    Blocked,
    /// A policy's `audit` action: a rule found something; the message passed untouched.
    Audited,
}

impl EventName {
    /// The case's name, as the JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            EventName::Answered => "answered",
            EventName::Sanitized => "sanitized",
            EventName::Redacted => "redacted",
            EventName::Repaired => "repaired",
            EventName::Dropped => "dropped",
            EventName::ClientCancelled => "client-cancelled",
            EventName::UpstreamEnded => "upstream-ended",
            EventName::Blocked => "blocked",
            EventName::Audited => "audited",
        }
    }
}

/// One step of a call, carried out in order; in JSON, an object whose `step` member names the case and
/// whose other members are the case's record's fields (absent when none).
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Write the line just given to the session, byte for byte, to `to`.
    Forward {
        to: Peer,
        /// The client stream, once the session serves several (`client-line-on`).
        stream: Option<u64>,
    },
    /// Write `line` (one JSON-RPC message or batch, no newline in it) to `to`.
    Send {
        to: Peer,
        /// The client stream, once the session serves several (`client-line-on`).
        stream: Option<u64>,
        line: String,
    },
    /// A record for the operator's log and the metrics: never a message body.
    Event(Box<Event>),
    /// The request client stream `stream` was owed answers for, answered with many (A2A's streaming methods:
    /// each event a response under its id), is settled: nothing more is written to that stream, and a shell
    /// that frames each request's answers as one response (an HTTP front's event stream) ends it. A request
    /// answered once gets none: its answer ends its stream.
    End {
        /// The client stream, once the session serves several (`client-line-on`).
        stream: Option<u64>,
    },
}

/// A record for the operator's log and the metrics: never a message body.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub event: EventName,
    pub level: String,
    pub kind: Option<String>,
    /// The code the client got (none for an `isError` tool result).
    pub code: Option<i32>,
    pub category: Option<String>,
    pub gate: Option<String>,
    /// The correlation id the client's response carries, when it carries one.
    pub correlation_id: Option<String>,
    /// The JSON-RPC id of the request concerned.
    pub id: Option<Value>,
    pub method: Option<String>,
    pub detail: Option<String>,
    /// A policy decision's rule (or category): never the value it found.
    pub rule: Option<String>,
    /// The tool (or method) a policy decision was taken for, as a label of a bounded set: a tool the
    /// upstream listed or the policy names (or the glob that matched it), a method MCP defines, else
    /// `other` (the name then in `detail`); at most 64 bytes.
    pub tool: Option<String>,
}

impl Event {
    /// One with `event` and `level`, every other member absent.
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
            rule: None,
            tool: None,
        }
    }
}

/// What every session method but the stderr and log ones returns, as JSON text.
#[derive(Debug)]
pub struct Outcome {
    /// The steps to carry out, in order.
    pub steps: Vec<Step>,
    /// Client requests still waiting for an answer.
    pub pending: usize,
    /// When to call `expire` (unix milliseconds), or null.
    pub deadline: Option<u64>,
}

impl Outcome {
    /// The outcome as JSON text (snake_case keys; a step's absent member left out, the outcome's null),
    /// written member by member rather than by derived serializers: this runs once per relayed message, and
    /// the npm module is downloaded (each derived serializer adds to it).
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(64);
        out.push_str("{\"steps\":[");
        for (i, step) in self.steps.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match step {
                Step::Forward { to, stream } => {
                    out.push_str("{\"step\":\"forward\",\"to\":\"");
                    out.push_str(to.name());
                    out.push('"');
                    if let Some(v) = stream {
                        out.push_str(",\"stream\":");
                        out.push_str(&v.to_string());
                    }
                    out.push('}');
                }
                Step::Send { to, stream, line } => {
                    out.push_str("{\"step\":\"send\",\"to\":\"");
                    out.push_str(to.name());
                    out.push('"');
                    if let Some(v) = stream {
                        out.push_str(",\"stream\":");
                        out.push_str(&v.to_string());
                    }
                    out.push_str(",\"line\":");
                    push_str(&mut out, line);
                    out.push('}');
                }
                Step::Event(e) => {
                    out.push_str("{\"step\":\"event\",\"event\":\"");
                    out.push_str(e.event.name());
                    out.push_str("\",\"level\":");
                    push_str(&mut out, &e.level);
                    push_member(&mut out, "kind", e.kind.as_deref());
                    if let Some(v) = &e.code {
                        out.push_str(",\"code\":");
                        out.push_str(&v.to_string());
                    }
                    push_member(&mut out, "category", e.category.as_deref());
                    push_member(&mut out, "gate", e.gate.as_deref());
                    push_member(&mut out, "correlation_id", e.correlation_id.as_deref());
                    if let Some(v) = &e.id {
                        out.push_str(",\"id\":");
                        out.push_str(&v.to_string());
                    }
                    push_member(&mut out, "method", e.method.as_deref());
                    push_member(&mut out, "detail", e.detail.as_deref());
                    push_member(&mut out, "rule", e.rule.as_deref());
                    push_member(&mut out, "tool", e.tool.as_deref());
                    out.push('}');
                }
                Step::End { stream } => {
                    out.push_str("{\"step\":\"end\"");
                    if let Some(v) = stream {
                        out.push_str(",\"stream\":");
                        out.push_str(&v.to_string());
                    }
                    out.push('}');
                }
            }
        }
        out.push_str("],\"pending\":");
        out.push_str(&self.pending.to_string());
        out.push_str(",\"deadline\":");
        match &self.deadline {
            Some(v) => out.push_str(&v.to_string()),
            None => out.push_str("null"),
        }
        out.push('}');
        out
    }
}

/// Appends `s` as a JSON string.
pub(super) fn push_str(out: &mut String, s: &str) {
    // serde_json's string escaping (a string of valid UTF-8 cannot fail to serialize).
    out.push_str(&serde_json::to_string(s).unwrap_or_default());
}

/// `,"name":"value"` when there is a value.
fn push_member(out: &mut String, name: &str, value: Option<&str>) {
    if let Some(v) = value {
        out.push_str(",\"");
        out.push_str(name);
        out.push_str("\":");
        push_str(out, v);
    }
}
