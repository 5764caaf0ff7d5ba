// Generated from wit/world.wit (interface `guard`: `guard-options`) by `cargo xtask gen`; do not edit.

use super::exports::jsonrpc_errors::core::guard as wit;
use crate::api::SessionArgs;

impl SessionArgs {
    /// The component's WIT record, `dialect_name` naming a dialect.
    pub(crate) fn from_wit(
        options: wit::GuardOptions,
        dialect_name: fn(wit::Dialect) -> &'static str,
    ) -> Self {
        SessionArgs {
            dialect: options.dialect.map(|d| dialect_name(d).to_string()),
            max_bytes: options.max_bytes,
            batch: options.batch.map(|v| {
                match v {
                    wit::BatchPolicy::Reject => "reject",
                    wit::BatchPolicy::Allow => "allow",
                }
                .to_string()
            }),
            timeout_ms: options.timeout_ms,
            upstream: options.upstream,
            failed_result_bytes: options.failed_result_bytes,
            policy: options.policy,
            policy_env: options.policy_env,
            environment: options.environment,
            upstream_credentials: options.upstream_credentials,
            many_clients: options.many_clients,
            max_upstream_bytes: options.max_upstream_bytes,
        }
    }
}
