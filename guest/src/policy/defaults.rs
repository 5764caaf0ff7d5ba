// Generated from wit/world.wit (interface `guard`: `policy-defaults`) by `cargo xtask gen`; do not edit.

use serde_json::{Map, Value};

/// A policy file's `[defaults]` as `check-policy` reports them: each none when the file says nothing. A
/// session under the file fills what its options leave unset from them itself (`settings`); a shell reads
/// them only for what no session decides.
///
/// An enum by its case's name (the document's reader checked it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicyDefaults<'a> {
    /// The dialect the file names.
    pub dialect: Option<&'a str>,
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
    pub batch: Option<&'a str>,
    /// `failed_result_bytes`: the longest text of a failed tool result passed on, in bytes.
    pub failed_result_bytes: Option<u64>,
}

impl PolicyDefaults<'_> {
    /// `check-policy`'s answer: snake_case keys in the WIT's order, every key present, null where the file
    /// says nothing.
    pub fn to_json(&self) -> String {
        let mut members = Map::new();
        members.insert("dialect".into(), self.dialect.into());
        members.insert("timeout_ms".into(), self.timeout_ms.into());
        members.insert("max_wait_ms".into(), self.max_wait_ms.into());
        members.insert("max_bytes".into(), self.max_bytes.into());
        members.insert("max_upstream_bytes".into(), self.max_upstream_bytes.into());
        members.insert("batch".into(), self.batch.into());
        members.insert(
            "failed_result_bytes".into(),
            self.failed_result_bytes.into(),
        );
        Value::Object(members).to_string()
    }
}
