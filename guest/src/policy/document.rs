//! The policy document as an operator writes it (TOML), read and checked: every key known, every value of
//! its type, every rule name the catalogue's. What it means for a session is `compiled.rs`'s.
//!
//! ```toml
//! [defaults]
//! dialect = "mcp"
//! timeout = 50              # seconds a request may wait (progress restarts the wait); 0: no limit
//! max_wait = 600            # seconds it may wait at most, progress or not
//! failed_result_bytes = 8192
//!
//! [redaction]
//! method = "replace"        # replace | mask | hash | remove
//! disable = ["email"]       # rule ids or categories
//! allow = ["postgres"]      # values never redacted
//! allow_patterns = ['^acme-test-']
//! scopes = ["errors", "results"]
//!
//! [actions]
//! github-token = "block"    # redact (default) | block | audit
//!
//! [[tool]]
//! match = "read_*"
//! timeout = 300
//! scopes = ["errors", "results"]
//! ```

use serde::Deserialize;
use std::collections::BTreeMap;

/// What a policy redacts (`[redaction] scopes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Error responses and failed tool results (`isError`): the default.
    Errors,
    /// Successful tool results.
    Results,
    /// Resource contents (`resources/read`).
    Resources,
    /// Prompt messages (`prompts/get`).
    Prompts,
    /// What the client sends the server: a tool call's arguments.
    Requests,
    /// The upstream's stderr, in the operator's log (always redacted; listed, the policy's rules, allow-list
    /// and actions apply to it too).
    Stderr,
}

/// What becomes of a message in which a rule finds something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// The finding is redacted (the default).
    #[default]
    Redact,
    /// The message is not passed on: its request is answered with the policy's refusal instead.
    Block,
    /// Logged only: the message passes untouched.
    Audit,
}

/// `redact | mask | hash | remove` as the redaction options spell them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    Replace,
    Mask,
    Hash,
    Remove,
}

/// An extra rule, as `redact-with` takes them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraRule {
    pub id: String,
    pub category: String,
    pub pattern: String,
    #[serde(default)]
    pub keywords: Vec<String>,
    #[serde(default)]
    pub secret_groups: Vec<usize>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    pub dialect: Option<String>,
    /// Seconds; 0: no limit.
    pub timeout: Option<f64>,
    pub max_wait: Option<f64>,
    pub max_bytes: Option<u64>,
    pub max_upstream_bytes: Option<u64>,
    pub batch: Option<String>,
    pub failed_result_bytes: Option<u64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Redaction {
    pub method: Option<Method>,
    /// The environment variable holding the key of `method = "hash"` (at least 16 bytes).
    pub hash_key_env: Option<String>,
    #[serde(default)]
    pub disable: Vec<String>,
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub allow_patterns: Vec<String>,
    #[serde(default)]
    pub extra_rules: Vec<ExtraRule>,
    pub scopes: Option<Vec<Scope>>,
    /// Scan binary content (base64 blobs that decode to text); images and audio never.
    pub binary: Option<bool>,
}

/// What a `[[tool]]` or `[[method]]` table changes for the requests it matches.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Override {
    /// A name, or a glob (`*`, `?`): `read_*`, `resources/*`.
    #[serde(rename = "match")]
    pub pattern: String,
    pub timeout: Option<f64>,
    pub max_wait: Option<f64>,
    pub failed_result_bytes: Option<u64>,
    /// More rules or categories off, for these requests only.
    #[serde(default)]
    pub disable: Vec<String>,
    #[serde(default)]
    pub allow: Vec<String>,
    pub scopes: Option<Vec<Scope>>,
    #[serde(default)]
    pub actions: BTreeMap<String, Action>,
}

/// The whole document.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Document {
    #[serde(default)]
    pub defaults: Defaults,
    #[serde(default)]
    pub redaction: Redaction,
    /// Rule id or category → what a finding of it does.
    #[serde(default)]
    pub actions: BTreeMap<String, Action>,
    #[serde(default, rename = "tool")]
    pub tools: Vec<Override>,
    #[serde(default, rename = "method")]
    pub methods: Vec<Override>,
}

/// Why a document is refused: where (1-based line and column, when the TOML reader knows) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", at.map(|(l, c)| format!("line {l}, column {c}: ")).unwrap_or_default())]
pub struct DocumentError {
    pub at: Option<(usize, usize)>,
    pub message: String,
}

/// 1-based line and column of byte `offset` in `text`.
pub fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rfind('\n').map_or(before.len(), |i| before.len() - i - 1) + 1;
    (line, column)
}

/// Where in `text` the value of `key` (a dotted path's last key, e.g. `disable`) is written first, for a
/// refusal the TOML reader cannot place (an unknown rule name, a pattern that does not compile).
pub fn find_key(text: &str, key: &str, value: &str) -> Option<(usize, usize)> {
    let quoted = [format!("\"{value}\""), format!("'{value}'")];
    let at = text
        .match_indices(key)
        .find_map(|(i, _)| quoted.iter().filter_map(|q| text[i..].find(q.as_str()).map(|j| i + j)).min())
        .or_else(|| quoted.iter().filter_map(|q| text.find(q.as_str())).min())?;
    Some(position(text, at))
}

/// Reads a document (syntax, keys, types; rule names are checked when it is compiled).
pub fn parse(text: &str) -> Result<Document, DocumentError> {
    toml::from_str(text).map_err(|e| DocumentError {
        at: e.span().map(|s| position(text, s.start)),
        message: e.message().trim().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_where() {
        let e = parse("[defaults]\ntimeout = \"soon\"\n").unwrap_err();
        assert_eq!(e.at.map(|(l, _)| l), Some(2), "{e}");
        let e = parse("[redaction]\nscopes = [\"errors\", \"everything\"]\n").unwrap_err();
        assert_eq!(e.at.map(|(l, _)| l), Some(2), "{e}");
        assert!(e.message.contains("everything"), "{e}");
        let e = parse("[defaults]\ntimeout = 5\n[[tool]]\nmatch = \"x\"\ntimeuot = 9\n").unwrap_err();
        assert_eq!(e.at.map(|(l, _)| l), Some(5), "{e}");
        assert!(e.message.contains("timeuot"), "{e}");
        let e = parse("[defaults\n").unwrap_err();
        assert!(e.at.is_some(), "{e}");
    }

    #[test]
    fn positions_are_one_based() {
        assert_eq!(position("ab\ncd", 0), (1, 1));
        assert_eq!(position("ab\ncd", 4), (2, 2));
        assert_eq!(find_key("[redaction]\ndisable = [\"nope\"]\n", "disable", "nope"), Some((2, 12)));
    }
}
