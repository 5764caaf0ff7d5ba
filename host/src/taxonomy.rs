// Generated from taxonomy/taxonomy.toml by `cargo xtask gen`; do not edit.

use crate::exports::jsonrpc_errors::core::kinds::Dialect;

/// `validate`'s default size limit, in bytes (the taxonomy's `default_max_bytes`).
pub(crate) const DEFAULT_MAX_BYTES: u64 = 10485760;

/// The WIT dialect named `name`.
pub(crate) fn known_dialect(name: &str) -> Option<Dialect> {
    Some(match name {
        "canonical" => Dialect::Canonical,
        "duet" => Dialect::Duet,
        "vapora" => Dialect::Vapora,
        "thoughtgate" => Dialect::Thoughtgate,
        "error-model" => Dialect::ErrorModel,
        "watchgate" => Dialect::Watchgate,
        "mcp" => Dialect::Mcp,
        "a2a" => Dialect::A2a,
        _ => return None,
    })
}
