// Generated from wit/world.wit (interface `guard`: `policy-defaults`) by `cargo xtask gen`; do not edit.

use serde_json::{Map, Value};

/// A policy file's `[defaults]` as `check-policy` reports them: each none when the file says nothing. A
/// session under the file fills what its options leave unset from them itself (`settings`); a shell reads
/// them only for what no session decides.
///
/// An enum by its case's name, borrowed from the document (whose reader checked it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicyDefaults<'a> {
    /// The dialect the file names.
    pub dialect: &'a Option<String>,
    /// `timeout` (how long a request may wait for the upstream), in milliseconds rounded up; 0: no limit.
    pub timeout_ms: Option<u64>,
    /// `max_wait` (how long a request may wait whatever its progress), in milliseconds rounded up; none
    /// also when it is 0.
    pub max_wait_ms: Option<u64>,
    /// `max_bytes`: the largest client message, in bytes.
    pub max_bytes: Option<u64>,
    /// `max_upstream_bytes`: the longest upstream line, in bytes.
    pub max_upstream_bytes: Option<u64>,
    /// `batch`: whether a client's batch is refused or relayed.
    pub batch: &'a Option<String>,
    /// `failed_result_bytes`: the longest text of a failed tool result passed on, in bytes.
    pub failed_result_bytes: Option<u64>,
}

impl PolicyDefaults<'_> {
    /// `check-policy`'s answer: snake_case keys in the WIT's order, every key present, null where the file
    /// says nothing. Built with `Value::from`, not `json!`, whose `to_value(..).unwrap()` would add a panic
    /// location to the npm modules; inlined into its one caller for their size budgets.
    #[inline]
    pub fn to_json(&self) -> String {
        let mut members = Map::new();
        members.insert("dialect".into(), Value::from(self.dialect.as_deref()));
        members.insert("timeout_ms".into(), Value::from(self.timeout_ms));
        members.insert("max_wait_ms".into(), Value::from(self.max_wait_ms));
        members.insert("max_bytes".into(), Value::from(self.max_bytes));
        members.insert(
            "max_upstream_bytes".into(),
            Value::from(self.max_upstream_bytes),
        );
        members.insert("batch".into(), Value::from(self.batch.as_deref()));
        members.insert(
            "failed_result_bytes".into(),
            Value::from(self.failed_result_bytes),
        );
        Value::Object(members).to_string()
    }
}
