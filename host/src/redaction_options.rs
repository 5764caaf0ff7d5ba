// Generated from wit/world.wit (interface `types`: `redaction-options`) by `cargo xtask gen`; do not edit.

use serde::Serialize;

/// How a found secret is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RedactionMethod {
    /// `[REDACTED:rule]` (default).
    Replace,
    /// Every character becomes `*`: the length survives, the content does not.
    Mask,
    /// `[REDACTED:rule:<12 hex>]`, an HMAC-SHA256 of the secret under the caller's key: equal secrets
    /// correlate across messages without being revealed.
    Hash,
    /// Nothing is left.
    Remove,
}

impl RedactionMethod {
    /// Every case's name, as the JSON spells it.
    pub const NAMES: &'static [&'static str] = &["replace", "mask", "hash", "remove"];

    /// The case named `name`.
    pub fn from_name(name: &str) -> Option<RedactionMethod> {
        match name {
            "replace" => Some(RedactionMethod::Replace),
            "mask" => Some(RedactionMethod::Mask),
            "hash" => Some(RedactionMethod::Hash),
            "remove" => Some(RedactionMethod::Remove),
            _ => None,
        }
    }
}

/// Adding a redaction option: a field of `redaction-options` (an `option` or a `list`: "not given" is every
/// shell's default), read where the guest uses it (`guest/src/redact/redactor.rs`), then `cargo xtask gen`
/// writes the guest's reader and every shell's type and builder (docs/where-to-change.md).
/// What a caller may change about redaction (`redact-with`, `redact-json-value`, a guard's error handler),
/// as JSON text with these fields in snake_case; every field may be left out. Bad options fail with -32602
/// naming what is wrong.
///
/// No `Default`: a shell that builds one names every field, so a field added to the WIT does not compile
/// until the shell passes it (or says it has none to give).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RedactionOptions {
    /// How a found secret is replaced. Default: `replace`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<RedactionMethod>,
    /// The HMAC key `method` `hash` needs: at least 16 bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash_key: Option<String>,
    /// Rule ids or categories to switch off.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disable: Vec<String>,
    /// The caller's own rules, run beside the catalogue's (at most 64).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra_rules: Vec<serde_json::Value>,
    /// Exact values never redacted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowlist: Vec<String>,
    /// Patterns (regex-lite) of values never redacted, each matched against a whole value (at most 64, each
    /// at most 2048 characters).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allow_patterns: Vec<String>,
    /// `redact-json-value` only: more JSON keys whose values are secrets whole.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sensitive_keys: Vec<String>,
}

impl RedactionOptions {
    /// The JSON text `redact-with` and `redact-json-value` take (what was not given left out).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("strings, numbers and JSON values serialize")
    }
}
