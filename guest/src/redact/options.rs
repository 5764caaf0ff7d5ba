// Generated from wit/world.wit (interface `types`: `redaction-options`) by `cargo xtask gen`; do not edit.

use super::rules::Rule;
use serde::Deserialize;

/// How a found secret is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RedactionMethod {
    /// `[REDACTED:rule]` (default).
    #[default]
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
    /// Every case, by the name the JSON (and a policy file) spells it.
    pub const CASES: [(&'static str, RedactionMethod); 4] = [
        ("replace", RedactionMethod::Replace),
        ("mask", RedactionMethod::Mask),
        ("hash", RedactionMethod::Hash),
        ("remove", RedactionMethod::Remove),
    ];
}

/// Adding a redaction option: a field of `redaction-options` (an `option` or a `list`: "not given" is every
/// shell's default), read where the guest uses it (`guest/src/redact/redactor.rs`), then `cargo xtask gen`
/// writes the guest's reader and every shell's type and builder (docs/where-to-change.md).
/// What a caller may change about redaction (`redact-with`, `redact-json-value`, a guard's error handler),
/// as JSON text with these fields in snake_case; every field may be left out. Bad options fail with -32602
/// naming what is wrong.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedactionOptions {
    /// How a found secret is replaced. Default: `replace`.
    #[serde(default)]
    pub method: RedactionMethod,
    /// The HMAC key `method` `hash` needs: at least 16 bytes.
    #[serde(default)]
    pub hash_key: Option<String>,
    /// Rule ids or categories to switch off.
    #[serde(default)]
    pub disable: Vec<String>,
    /// The caller's own rules, run beside the catalogue's (at most 64).
    #[serde(default)]
    pub extra_rules: Vec<Rule>,
    /// Exact values never redacted.
    #[serde(default)]
    pub allowlist: Vec<String>,
    /// Patterns (regex-lite) of values never redacted, each matched against a whole value (at most 64, each
    /// at most 2048 characters).
    #[serde(default)]
    pub allow_patterns: Vec<String>,
    /// `redact-json-value` only: more JSON keys whose values are secrets whole.
    #[serde(default)]
    pub sensitive_keys: Vec<String>,
}

/// The fields of `extra-rule`, as the JSON spells them: those `Rule` reads a caller's rule from (a test holds
/// the two equal).
#[cfg(test)]
pub const EXTRA_RULE_FIELDS: &[&str] = &[
    "id",
    "category",
    "description",
    "keywords",
    "pattern",
    "secret_groups",
    "validator",
    "span",
    "assignment_after_keyword",
    "trigger",
    "window",
    "words_after",
    "requires",
    "delimits",
    "separator",
    "object_holds",
];
