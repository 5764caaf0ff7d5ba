//! What a guard session tells its shell to do: the steps of one call, in order, as JSON text.

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    Client,
    Upstream,
}

/// One thing for the shell to do. The steps of a call are carried out in order; steps for the same peer
/// must be written in that order (that is what keeps responses in order per id).
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Write the line the shell just passed in, byte for byte, to `to`: toward the client, on client stream
    /// `stream` when the session serves several (`Session::client_line_on`), else on its one client.
    Forward { to: Peer, stream: Option<u64> },
    /// Write `line` (one JSON-RPC message or batch, no newline in it) to `to` (on `stream`, as for `Forward`).
    Send {
        to: Peer,
        stream: Option<u64>,
        line: String,
    },
    /// Log this (and count it): never a message body.
    Event(Box<Event>),
    /// The request that client stream `stream` was owed answers for is settled, having been answered with
    /// many (A2A's streaming methods): nothing more is written to that stream, and a shell that frames each
    /// request's answers as one response (an HTTP front's event stream) ends it.
    End { stream: Option<u64> },
}

/// A log record for the operator: what happened, at the taxonomy's level for the kind, with the internal
/// detail the client did not get (redacted for the operator: no secrets, but paths and stack traces kept).
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
    /// The rule (or category) a policy decision was about: never the value it found.
    pub rule: Option<String>,
    /// The tool (or method) a policy decision was taken for: a label of a bounded set (`labels.rs`).
    pub tool: Option<String>,
}

/// The events a session reports.
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
    /// The upstream ended (exited, was killed, closed its output, could not start): it can no longer answer.
    UpstreamEnded,
    /// A policy's `block` action: the message was not passed on; its request got the policy's refusal.
    Blocked,
    /// A policy's `audit` action: a rule found something, logged here; the message passed untouched.
    Audited,
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
            rule: None,
            tool: None,
        }
    }

    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// The request's id; a string one as the operator's log may show it (see [`quoted`]).
    pub fn id(mut self, id: &Value) -> Self {
        self.id = Some(match id {
            Value::String(s) => Value::String(quoted(s)),
            other => other.clone(),
        });
        self
    }

    /// The request's method, as the operator's log may show it (see [`quoted`]).
    pub fn method(mut self, method: &str) -> Self {
        self.method = Some(quoted(method));
        self
    }
}

/// Text a peer wrote (an id, a method name), redacted and cut for the operator's log like any detail: either
/// peer can put anything there, and an upstream answering an id of its own choosing would otherwise write
/// it to the log as it is.
pub fn quoted(text: &str) -> String {
    super::oplog::for_operator(text, &crate::environment())
}

/// The result of one session call.
#[derive(Debug)]
pub struct Outcome {
    pub steps: Vec<Step>,
    /// Client requests still waiting for a response.
    pub pending: usize,
    /// When the earliest of them times out (unix milliseconds): the shell calls `expire` then.
    pub deadline: Option<u64>,
}

/// Appends `s` as a JSON string.
fn push_str(out: &mut String, s: &str) {
    // serde_json's string escaping (a string of valid UTF-8 cannot fail to serialize).
    out.push_str(&serde_json::to_string(s).unwrap_or_default());
}

/// `,"stream":N` for a step toward one of several client streams.
fn push_stream(out: &mut String, stream: Option<u64>) {
    if let Some(n) = stream {
        out.push_str(",\"stream\":");
        out.push_str(&n.to_string());
    }
}

fn push_member(out: &mut String, name: &str, value: Option<&str>) {
    if let Some(v) = value {
        out.push_str(",\"");
        out.push_str(name);
        out.push_str("\":");
        push_str(out, v);
    }
}

impl Peer {
    fn name(self) -> &'static str {
        match self {
            Peer::Client => "client",
            Peer::Upstream => "upstream",
        }
    }
}

impl EventName {
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

impl Outcome {
    /// The outcome as JSON text, written by hand rather than by derived serializers: this runs once per
    /// relayed message, and the npm module is downloaded (each derived serializer adds to it).
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
                    push_stream(&mut out, *stream);
                    out.push('}');
                }
                Step::Send { to, stream, line } => {
                    out.push_str("{\"step\":\"send\",\"to\":\"");
                    out.push_str(to.name());
                    out.push('"');
                    push_stream(&mut out, *stream);
                    out.push_str(",\"line\":");
                    push_str(&mut out, line);
                    out.push('}');
                }
                Step::End { stream } => {
                    out.push_str("{\"step\":\"end\"");
                    push_stream(&mut out, *stream);
                    out.push('}');
                }
                Step::Event(e) => {
                    out.push_str("{\"step\":\"event\",\"event\":\"");
                    out.push_str(e.event.name());
                    out.push('"');
                    push_member(&mut out, "level", Some(&e.level));
                    push_member(&mut out, "kind", e.kind.as_deref());
                    if let Some(code) = e.code {
                        out.push_str(",\"code\":");
                        out.push_str(&code.to_string());
                    }
                    push_member(&mut out, "category", e.category.as_deref());
                    push_member(&mut out, "gate", e.gate.as_deref());
                    push_member(&mut out, "correlation_id", e.correlation_id.as_deref());
                    if let Some(id) = &e.id {
                        out.push_str(",\"id\":");
                        out.push_str(&id.to_string());
                    }
                    push_member(&mut out, "method", e.method.as_deref());
                    push_member(&mut out, "detail", e.detail.as_deref());
                    push_member(&mut out, "rule", e.rule.as_deref());
                    push_member(&mut out, "tool", e.tool.as_deref());
                    out.push('}');
                }
            }
        }
        out.push_str("],\"pending\":");
        out.push_str(&self.pending.to_string());
        out.push_str(",\"deadline\":");
        match self.deadline {
            Some(d) => out.push_str(&d.to_string()),
            None => out.push_str("null"),
        }
        out.push('}');
        out
    }
}
