//! Redaction options (the JSON `api::redact_with` and `api::redact_json_value` take) built by `arbitrary`:
//! method, hash key, disabled rules and categories, allowlist, sensitive keys, and extra rules whose
//! patterns are fuzzed text or assembled from regex pieces (most of which compile), so both the policy's
//! refusals and the rules it accepts get exercised.

use arbitrary::Arbitrary;
use jsonrpc_errors_guest::redact::catalogue_rules;
use serde_json::{json, Value};

use crate::json::Text;

#[derive(Arbitrary, Debug)]
pub struct Options {
    method: Option<Choice>,
    hash_key: Option<Text>,
    disable: Vec<Name>,
    allowlist: Vec<Text>,
    extra_rules: Vec<ExtraRule>,
    sensitive_keys: Vec<Text>,
    /// A member the options do not have (must be refused).
    unknown_member: bool,
}

/// One of a fixed list of names (by index), or fuzzed text.
#[derive(Arbitrary, Debug)]
enum Choice {
    Listed(u8),
    Fuzzed(Text),
}

/// A rule id or category of the catalogue, or fuzzed text.
#[derive(Arbitrary, Debug)]
enum Name {
    Rule(u8),
    Category(u8),
    Fuzzed(Text),
}

#[derive(Arbitrary, Debug)]
struct ExtraRule {
    id: Choice,
    category: Choice,
    keywords: Vec<Text>,
    pattern: Pattern,
    secret_groups: Vec<u8>,
    validator: Option<Choice>,
    trigger: Option<Choice>,
    window: Option<Choice>,
    words_after: Option<u8>,
    span: Option<u16>,
    assignment_after_keyword: bool,
    requires: Vec<Text>,
    delimits: bool,
}

/// A regex as fuzzed text, or assembled from pieces (most of which compile).
#[derive(Arbitrary, Debug)]
enum Pattern {
    Fuzzed(String),
    Assembled(Vec<Piece>),
}

#[derive(Arbitrary, Debug)]
enum Piece {
    Literal(Text),
    Syntax(u8),
}

const METHODS: &[&str] = &["replace", "mask", "hash", "remove"];
const IDS: &[&str] = &[
    "acme-key",
    "x",
    "github-token",
    "env-value",
    "a-very-long-rule-id-of-exactly-sixty-four-characters-0123456789a",
];
const CATEGORIES: &[&str] = &[
    "token",
    "credential",
    "pii",
    "path",
    "stacktrace",
    "environment",
];
const VALIDATORS: &[&str] = &[
    "assignment",
    "basic-auth",
    "luhn",
    "iban",
    "private-ipv4",
    "entropy",
];
const TRIGGERS: &[&str] = &["keywords", "digit-run", "iban-shape"];
const WINDOWS: &[&str] = &["line", "word", "assignment"];
const SYNTAX: &[&str] = &[
    "[a-z0-9]",
    "[A-Za-z0-9_-]",
    "\\d",
    "\\w",
    "\\s",
    "\\S",
    ".",
    "+",
    "*",
    "?",
    "{16,}",
    "{2,5}",
    "(",
    ")",
    "(?:",
    "(?i)",
    "|",
    "^",
    "$",
    "\\b",
    "[^\\s\"']",
    "acme_",
    "=",
    ":",
    "\"",
    "\n",
    "(?s).",
    "(?m)^",
];

fn choice(c: &Choice, list: &[&str]) -> String {
    match c {
        Choice::Listed(i) => list[*i as usize % list.len()].to_string(),
        Choice::Fuzzed(t) => t.as_str().to_string(),
    }
}

/// Regex metacharacters escaped, so a literal piece matches itself.
fn escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if "\\.+*?()|[]{}^$#&-~".contains(c) {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect()
}

impl Options {
    pub fn to_json(&self) -> String {
        let mut o = serde_json::Map::new();
        if let Some(m) = &self.method {
            o.insert("method".into(), json!(choice(m, METHODS)));
        }
        if let Some(k) = &self.hash_key {
            o.insert("hash_key".into(), json!(k.as_str()));
        }
        let rules = catalogue_rules();
        let names: Vec<String> = self
            .disable
            .iter()
            .map(|n| match n {
                Name::Rule(i) => rules[*i as usize % rules.len()].id.clone(),
                Name::Category(i) => CATEGORIES[*i as usize % CATEGORIES.len()].to_string(),
                Name::Fuzzed(t) => t.as_str().to_string(),
            })
            .collect();
        o.insert("disable".into(), json!(names));
        o.insert(
            "allowlist".into(),
            json!(self.allowlist.iter().map(Text::as_str).collect::<Vec<_>>()),
        );
        o.insert(
            "sensitive_keys".into(),
            json!(self
                .sensitive_keys
                .iter()
                .map(Text::as_str)
                .collect::<Vec<_>>()),
        );
        let extra: Vec<Value> = self.extra_rules.iter().map(ExtraRule::to_json).collect();
        o.insert("extra_rules".into(), Value::Array(extra));
        if self.unknown_member {
            o.insert("methd".into(), json!("mask"));
        }
        Value::Object(o).to_string()
    }
}

impl ExtraRule {
    fn to_json(&self) -> Value {
        let pattern = match &self.pattern {
            Pattern::Fuzzed(p) => p.clone(),
            Pattern::Assembled(pieces) => pieces
                .iter()
                .map(|p| match p {
                    Piece::Literal(t) => escape(t.as_str()),
                    Piece::Syntax(i) => SYNTAX[*i as usize % SYNTAX.len()].to_string(),
                })
                .collect(),
        };
        let mut r = serde_json::Map::new();
        r.insert("id".into(), json!(choice(&self.id, IDS)));
        r.insert("category".into(), json!(choice(&self.category, CATEGORIES)));
        r.insert(
            "keywords".into(),
            json!(self.keywords.iter().map(Text::as_str).collect::<Vec<_>>()),
        );
        r.insert("pattern".into(), json!(pattern));
        r.insert("secret_groups".into(), json!(self.secret_groups));
        if let Some(v) = &self.validator {
            r.insert("validator".into(), json!(choice(v, VALIDATORS)));
        }
        if let Some(t) = &self.trigger {
            r.insert("trigger".into(), json!(choice(t, TRIGGERS)));
        }
        if let Some(w) = &self.window {
            r.insert("window".into(), json!(choice(w, WINDOWS)));
        }
        if let Some(n) = self.words_after {
            r.insert("words_after".into(), json!(n));
        }
        if let Some(n) = self.span {
            r.insert("span".into(), json!(n));
        }
        r.insert(
            "assignment_after_keyword".into(),
            json!(self.assignment_after_keyword),
        );
        r.insert(
            "requires".into(),
            json!(self.requires.iter().map(Text::as_str).collect::<Vec<_>>()),
        );
        r.insert("delimits".into(), json!(self.delimits));
        Value::Object(r)
    }
}
