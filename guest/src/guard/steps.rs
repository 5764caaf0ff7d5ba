//! What a guard session tells its shell to do: the steps of one call, as `outcome.rs` (generated from the
//! WIT's `session-outcome`) states them, and the builders the session writes its events with.

use super::outcome::Event;
use serde_json::Value;

impl Event {
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
