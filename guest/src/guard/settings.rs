// Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.

//! What a guard session resolved when it opened (`session-settings`) and the JSON text its `settings`
//! returns: `api::guard_session` fills it (the caller's options, else the policy file's `[defaults]`, else
//! the built-in defaults) and the session decides by it.

use super::outcome::push_str;
use crate::validation::BatchPolicy;

/// A session's settings as it resolved them when it opened: each the caller's option, else the policy
/// file's `[defaults]`, else the built-in default. A shell takes what its own readers need (its line
/// limits) from here, so no shell keeps a default or a merge rule of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSettings {
    pub dialect: String,
    /// Largest client message, in bytes.
    pub max_bytes: u64,
    pub batch: BatchPolicy,
    /// How long a request may wait for the upstream, in milliseconds; none: no limit.
    pub timeout_ms: Option<u64>,
    /// The longest text of a failed tool result passed on.
    pub failed_result_bytes: u64,
    /// Longest upstream line, in bytes.
    pub max_upstream_bytes: u64,
}

impl SessionSettings {
    /// The settings as JSON text: snake_case keys in the WIT's order, an absent option null. Written member by
    /// member: a derived serializer (or `json!`) adds to the npm modules.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(160);
        out.push_str("{\"dialect\":");
        push_str(&mut out, &self.dialect);
        out.push_str(",\"max_bytes\":");
        out.push_str(&self.max_bytes.to_string());
        out.push_str(",\"batch\":\"");
        out.push_str(self.batch.name());
        out.push_str("\",\"timeout_ms\":");
        match self.timeout_ms {
            Some(v) => out.push_str(&v.to_string()),
            None => out.push_str("null"),
        }
        out.push_str(",\"failed_result_bytes\":");
        out.push_str(&self.failed_result_bytes.to_string());
        out.push_str(",\"max_upstream_bytes\":");
        out.push_str(&self.max_upstream_bytes.to_string());
        out.push('}');
        out
    }
}
