// Generated from taxonomy/taxonomy.toml by `cargo xtask gen`; do not edit.

use crate::bindings::exports::jsonrpc_errors::core::kinds::Dialect;

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

/// Every dialect's name and what it follows (the taxonomy's `[meta.dialects]`), in the WIT enum's order.
pub const DIALECTS: &[(&str, &str)] = &[
    ("canonical", "jsonrpc-errors' own dialect: standard codes, ThoughtGate's codes for the kinds it names (but MCP's), documented -32018/-32019 families for the rest (all inside MCP's implementation range -32000..-32019), and data.type = the kind name."),
    ("duet", "duet-rpc ADR-012: the five standard codes only; data {param, expected, received, accepted} for -32602 and {reason} for -32600."),
    ("vapora", "VAPORA ADR 0003 (A2A server, Rust): domain errors at -32000 told apart by their message, internal faults at -32603, no data."),
    ("thoughtgate", "ThoughtGate REQ-CORE-004: custom codes -32000..-32017 and ErrorData {correlation_id, gate, tool, details} populated per its table."),
    ("error-model", "MCP server Error Model 1.0.0: domain errors as a successful response whose result.error is {code, message, retryable, details}; protocol errors as JSON-RPC errors."),
    ("watchgate", "Watchgate ADR-004: custom codes -32000..-32004 and data {details, request_id, timestamp}."),
    ("mcp", "The MCP specification: protocol errors as JSON-RPC errors (an unknown tool is -32602), tool execution failures as results with isError: true."),
    ("a2a", "The A2A specification v1.0 section 5.4: TaskNotFound -32001 ... VersionNotSupported -32009 beside the standard codes."),
];
