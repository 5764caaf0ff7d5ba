// Generated from wit/world.wit (interface `types`: `validate-options`) by `cargo xtask gen`; do not edit.

use super::exports::jsonrpc_errors::core::types as wit;
use crate::validate_args::ValidateArgs;

impl<'a> ValidateArgs<'a> {
    /// The component's WIT record, `dialect` being its dialect's name.
    pub(crate) fn from_wit(options: &'a wit::ValidateOptions, dialect: &'a str) -> Self {
        ValidateArgs {
            max_bytes: options.max_bytes,
            batch: match options.batch {
                wit::BatchPolicy::Reject => "reject",
                wit::BatchPolicy::Allow => "allow",
            },
            content_type: options.content_type.as_deref(),
            content_length: options.content_length,
            dialect,
        }
    }
}
