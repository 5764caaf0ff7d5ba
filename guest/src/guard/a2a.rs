//! What the session reads of an A2A agent's results (the `a2a` dialect): whether a result reports a task
//! that failed. Such a result is an error told as a result, as MCP's `isError` tool result is: everything in
//! it (the status message, the artifacts) is redacted as a failed tool result is, under the `errors` scope
//! (always on). A2A 1.0 (`TASK_STATE_FAILED`, `TASK_STATE_REJECTED`) and 0.3 (`failed`, `rejected`) alike.
//!
//! And which requests stream: A2A's streaming methods are answered with an event stream whose every event is
//! a response under the request's id (the task, a message, status and artifact updates). Such a request
//! stays pending while its events are passed on, each as a result of its own, and is settled by the event
//! that ends it ([`final_event`]: a message, a terminal or interrupted status; what the SDKs' own agents end
//! their streams on), by an error, or by the end of the agent's stream.

use serde::Deserialize;
use serde_json::value::RawValue;

/// The methods of A2A 1.0 whose results carry tasks: their successful results are in the `results` scope.
pub const TASK_METHODS: [&str; 6] = [
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "CancelTask",
    "SubscribeToTask",
    "ListTasks",
];

/// The methods of A2A 1.0 answered with an event stream (many responses under the request's id).
pub const STREAMING_METHODS: [&str; 2] = ["SendStreamingMessage", "SubscribeToTask"];

/// Whether a request of `method`, in a session of `dialect`, is answered with many responses.
pub fn streams(dialect: &str, method: &str) -> bool {
    dialect == "a2a" && STREAMING_METHODS.contains(&method)
}

/// The states after which a task changes no more (A2A 1.0: streams are relayed in 1.0 only).
const TERMINAL: [&str; 4] = [
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
];

/// The states in which a task waits for its client (the stream ends; the client sends another message).
const INTERRUPTED: [&str; 2] = ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"];

const FAILED: [&str; 4] = [
    "TASK_STATE_FAILED",
    "TASK_STATE_REJECTED",
    "failed",
    "rejected",
];

#[derive(Deserialize, Default)]
struct Status<'a> {
    #[serde(borrow, default)]
    state: Option<&'a str>,
}

#[derive(Deserialize, Default)]
struct WithStatus<'a> {
    #[serde(borrow, default)]
    status: Option<Status<'a>>,
}

/// A result as A2A shapes it: a task itself (`GetTask`, `CancelTask`; 0.3's `message/send`), or one under
/// `task` (1.0's `SendMessage`) or `statusUpdate` (a streamed event); or a `message` (an agent's reply, or a
/// streamed one).
#[derive(Deserialize, Default)]
struct Shapes<'a> {
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<Status<'a>>,
    #[serde(borrow, default)]
    task: Option<WithStatus<'a>>,
    #[serde(borrow, default, rename = "statusUpdate")]
    status_update: Option<WithStatus<'a>>,
}

fn state<'a>(w: Option<WithStatus<'a>>) -> Option<&'a str> {
    w.and_then(|w| w.status).and_then(|s| s.state)
}

/// The shapes of `result`, if it is an object (serde reads a struct from an array too: `[1]` would be a
/// message) that reads as one.
fn shapes(result: &RawValue) -> Option<Shapes<'_>> {
    if crate::message::json_type(result) != crate::message::JsonType::Object {
        return None;
    }
    serde_json::from_str(result.get()).ok()
}

/// Whether a streamed event ends its stream: a message (an agent that answers with a message sends nothing
/// more), a status update to a terminal or interrupted state, or a task in a terminal state (a
/// subscription's first event is the task as it stands, which may be waiting for input and go on). An
/// event the guard cannot read ends nothing: the agent's stream ends it.
pub fn final_event(result: &RawValue) -> bool {
    let Some(event) = shapes(result) else {
        return false;
    };
    event.message.is_some()
        || state(event.status_update)
            .is_some_and(|s| TERMINAL.contains(&s) || INTERRUPTED.contains(&s))
        || state(event.task).is_some_and(|s| TERMINAL.contains(&s))
}

/// Whether `result` reports a task that failed (or was rejected). A result that is no object, or whose
/// state is not a plain string, is none.
pub fn failed_task(result: &RawValue) -> bool {
    let Some(result) = shapes(result) else {
        return false;
    };
    [
        result.status,
        result.task.and_then(|t| t.status),
        result.status_update.and_then(|t| t.status),
    ]
    .into_iter()
    .flatten()
    .any(|s| s.state.is_some_and(|state| FAILED.contains(&state)))
}

#[cfg(test)]
mod tests {
    use super::{failed_task, final_event};

    #[test]
    fn a_stream_ends_at_a_message_or_a_final_status_and_nowhere_else() {
        for text in [
            r#"{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[]}}"#,
            r#"{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_COMPLETED"}}}"#,
            r#"{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_FAILED"}}}"#,
            r#"{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}"#,
            r#"{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_AUTH_REQUIRED"}}}"#,
            r#"{"task":{"id":"t","status":{"state":"TASK_STATE_CANCELED"}}}"#,
        ] {
            assert!(final_event(&raw(text)), "{text}");
        }
        for text in [
            r#"{"task":{"id":"t","status":{"state":"TASK_STATE_SUBMITTED"}}}"#,
            r#"{"task":{"id":"t","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}"#,
            r#"{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_WORKING"}}}"#,
            r#"{"artifactUpdate":{"taskId":"t","artifact":{"parts":[{"text":"TASK_STATE_COMPLETED"}]}}}"#,
            r#"{"statusUpdate":{"status":{"state":7}}}"#,
            r#"[1]"#,
        ] {
            assert!(!final_event(&raw(text)), "{text}");
        }
    }

    fn raw(text: &str) -> Box<serde_json::value::RawValue> {
        serde_json::value::RawValue::from_string(text.into()).unwrap()
    }

    #[test]
    fn a_failed_task_is_found_in_every_shape_a2a_gives_it() {
        for text in [
            r#"{"task":{"id":"t","status":{"state":"TASK_STATE_FAILED"}}}"#,
            r#"{"id":"t","status":{"state":"TASK_STATE_REJECTED","message":{}}}"#,
            r#"{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_FAILED"}}}"#,
            r#"{"kind":"task","id":"t","status":{"state":"failed"}}"#,
            r#"{"kind":"status-update","status":{"state":"rejected"},"final":true}"#,
        ] {
            assert!(failed_task(&raw(text)), "{text}");
        }
        for text in [
            r#"{"task":{"id":"t","status":{"state":"TASK_STATE_COMPLETED"}}}"#,
            r#"{"message":{"parts":[{"text":"TASK_STATE_FAILED"}]}}"#,
            r#"{"content":[],"isError":false}"#,
            r#"[1,2]"#,
            r#""TASK_STATE_FAILED""#,
            r#"{"status":{"state":7}}"#,
        ] {
            assert!(!failed_task(&raw(text)), "{text}");
        }
    }
}
