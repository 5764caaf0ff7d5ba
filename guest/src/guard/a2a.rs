//! What the session reads of an A2A agent's results (the `a2a` dialect): whether a result reports a task
//! that failed. Such a result is an error told as a result, as MCP's `isError` tool result is: everything in
//! it (the status message, the artifacts) is redacted as a failed tool result is, under the `errors` scope
//! (always on). A2A 1.0 (`TASK_STATE_FAILED`, `TASK_STATE_REJECTED`) and 0.3 (`failed`, `rejected`) alike.

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
/// `task` (1.0's `SendMessage`) or `statusUpdate` (a streamed event).
#[derive(Deserialize, Default)]
struct Shapes<'a> {
    #[serde(borrow, default)]
    status: Option<Status<'a>>,
    #[serde(borrow, default)]
    task: Option<WithStatus<'a>>,
    #[serde(borrow, default, rename = "statusUpdate")]
    status_update: Option<WithStatus<'a>>,
}

/// Whether `result` reports a task that failed (or was rejected). A result that is no object, or whose
/// state is not a plain string, is none.
pub fn failed_task(result: &RawValue) -> bool {
    let Ok(shapes) = serde_json::from_str::<Shapes<'_>>(result.get()) else {
        return false;
    };
    [
        shapes.status,
        shapes.task.and_then(|t| t.status),
        shapes.status_update.and_then(|t| t.status),
    ]
    .into_iter()
    .flatten()
    .any(|s| s.state.is_some_and(|state| FAILED.contains(&state)))
}

#[cfg(test)]
mod tests {
    use super::failed_task;

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
