// Generated from wit/world.wit (interface `guard`: `policy-defaults`) by `cargo xtask gen`; do not edit.

use serde::{Deserialize, Serialize};

/// A policy file's `[defaults]` as `check-policy` reports them: each none when the file says nothing. A
/// session under the file fills what its options leave unset from them itself (`settings`); a shell reads
/// them only for what no session decides.
///
/// An enum by its case's name. `Default`: a file that says nothing (or no file).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyDefaults {
    /// The dialect the file names.
    pub dialect: Option<String>,
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
    pub batch: Option<String>,
    /// `failed_result_bytes`: the longest text of a failed tool result passed on, in bytes.
    pub failed_result_bytes: Option<u64>,
}

impl PolicyDefaults {
    /// `check-policy`'s answer read; a member this record does not know is refused.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}
