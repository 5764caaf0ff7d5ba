//! Rule types and the built-in catalogue (`redaction/rules.toml`).

use serde::Deserialize;
use std::collections::BTreeMap;

const RULES_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/redaction_rules.json"));

#[derive(Debug, Deserialize)]
pub struct Catalogue {
    pub allowlist: Allowlist,
    pub environment: EnvironmentPolicy,
    pub json: JsonPolicy,
    #[serde(rename = "rule")]
    pub rules: Vec<Rule>,
}

#[derive(Debug, Deserialize)]
pub struct Allowlist {
    pub values: Vec<String>,
    pub markers: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct EnvironmentPolicy {
    pub name_pattern: String,
    pub min_value_len: usize,
}

/// Which JSON object keys hold secrets whole (compared lower-cased with `-` and `_` removed).
#[derive(Debug, Deserialize)]
pub struct JsonPolicy {
    pub sensitive_keys: Vec<String>,
    pub sensitive_suffixes: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: String,
    pub category: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub keywords: Vec<String>,
    pub pattern: String,
    #[serde(default)]
    pub secret_groups: Vec<usize>,
    #[serde(default)]
    pub validator: Option<Validator>,
    /// Bytes after the keyword's line that a match may reach (multi-line secrets); 0 = the line only.
    #[serde(default)]
    pub span: usize,
    /// A keyword hit counts only when an assignment operator follows it (after an optional quote and
    /// spaces): `password=`, `"api_key": `. Keeps `max_tokens` and "the api_key field" from waking the regex.
    #[serde(default)]
    pub assignment_after_keyword: bool,
    /// What opens the rule's windows: its keywords (default), or a structural scan for secrets that have
    /// no literal to key on.
    #[serde(default)]
    pub trigger: Trigger,
    /// How much text around a hit the regex sees: the whole line (default), just the whitespace-delimited
    /// word holding the hit (tokens, URLs, e-mail addresses) plus `words_after` following words, or an
    /// assignment (the key holding the hit to the end of the line).
    #[serde(default)]
    pub window: WindowKind,
    #[serde(default)]
    pub words_after: usize,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WindowKind {
    #[default]
    Line,
    Word,
    /// From the start of the identifier holding the hit (`db_password`, `x-api-key`) to the end of the line:
    /// an assignment's key and value, and nothing before them.
    Assignment,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    #[default]
    Keywords,
    /// Lines holding a run of at least 13 digits (single spaces or dashes allowed between digits):
    /// card numbers.
    DigitRun,
    /// Lines holding two capital letters, two digits and at least 11 more capitals, digits or spaces: IBANs.
    IbanShape,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Validator {
    /// The value of a `name = value` assignment: not a placeholder, template or variable reference; for
    /// non-password names also long and varied enough to be a credential rather than a word.
    Assignment,
    /// A Basic credential: base64 that decodes to `user:password`.
    BasicAuth,
    /// A payment card number: 13–19 digits passing the Luhn check.
    Luhn,
    /// An IBAN: a known length and a valid ISO 7064 mod-97 check.
    Iban,
    /// An IPv4 address in a private, link-local or shared (CGNAT) range; loopback and public addresses stay.
    PrivateIpv4,
    /// High-entropy text (≥ 3.5 bits per character over ≥ 20 characters): a random secret, not a word.
    Entropy,
}

/// A rule's documented examples: texts it must redact, and texts the whole engine must leave unchanged.
#[derive(Debug, Deserialize)]
pub struct Examples {
    pub examples: Vec<String>,
    pub negative_examples: Vec<String>,
}

pub fn load() -> Catalogue {
    serde_json::from_str(RULES_JSON).expect("redaction/rules.toml matches the Catalogue schema (catalogue test)")
}

/// Every rule's examples, by rule id (test data, kept out of the runtime tables).
pub fn examples() -> BTreeMap<String, Examples> {
    serde_json::from_str(include_str!(concat!(env!("OUT_DIR"), "/redaction_examples.json")))
        .expect("examples are lists of strings")
}
