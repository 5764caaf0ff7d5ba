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

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// What a policy redacts (`[redaction] scopes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// The server's progress notifications: their `message`.
    Progress,
    /// The server's log notifications (`notifications/message`): their `data` and `logger`.
    Logging,
    /// The server's elicitation requests (`elicitation/create`): their `message`, and the `title`,
    /// `description` and `default` of each field of their `requestedSchema`.
    Elicitation,
    /// The server's sampling requests (`sampling/createMessage`): their `messages` and `systemPrompt`.
    Sampling,
    /// The upstream's stderr, in the operator's log (always redacted; listed, the policy's rules, allow-list
    /// and actions apply to it too).
    Stderr,
}

pub(crate) const SCOPES: [(&str, Scope); 10] = [
    ("errors", Scope::Errors),
    ("results", Scope::Results),
    ("resources", Scope::Resources),
    ("prompts", Scope::Prompts),
    ("requests", Scope::Requests),
    ("progress", Scope::Progress),
    ("logging", Scope::Logging),
    ("elicitation", Scope::Elicitation),
    ("sampling", Scope::Sampling),
    ("stderr", Scope::Stderr),
];

/// What becomes of a message in which a rule finds something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Action {
    /// The finding is redacted (the default).
    #[default]
    Redact,
    /// The message is not passed on: its request is answered with the policy's refusal instead.
    Block,
    /// Logged only: the message passes untouched.
    Audit,
}

pub(crate) const ACTIONS: [(&str, Action); 3] = [
    ("redact", Action::Redact),
    ("block", Action::Block),
    ("audit", Action::Audit),
];

/// How a finding is replaced: the redaction options' own method (`redaction-method` in the WIT).
pub use crate::redact::Method;

pub(crate) const METHODS: [(&str, Method); 4] = Method::CASES;

// The keys each table takes (the reader refuses any other; `schema.rs` describes the same ones).
pub(crate) const ROOT_KEYS: [&str; 5] = ["defaults", "redaction", "actions", "tool", "method"];
pub(crate) const DEFAULTS_KEYS: [&str; 7] = [
    "dialect",
    "timeout",
    "max_wait",
    "max_bytes",
    "max_upstream_bytes",
    "batch",
    "failed_result_bytes",
];
pub(crate) const REDACTION_KEYS: [&str; 8] = [
    "method",
    "hash_key_env",
    "disable",
    "allow",
    "allow_patterns",
    "extra_rules",
    "scopes",
    "binary",
];
pub(crate) const EXTRA_RULE_KEYS: [&str; 5] =
    ["id", "category", "pattern", "keywords", "secret_groups"];
pub(crate) const OVERRIDE_KEYS: [&str; 8] = [
    "match",
    "timeout",
    "max_wait",
    "failed_result_bytes",
    "disable",
    "allow",
    "scopes",
    "actions",
];

/// An extra rule, as `redact-with` takes them.
#[derive(Debug, Clone)]
pub struct ExtraRule {
    pub id: String,
    pub category: String,
    pub pattern: String,
    pub keywords: Vec<String>,
    pub secret_groups: Vec<usize>,
}

#[derive(Debug, Clone, Default)]
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

#[derive(Debug, Clone, Default)]
pub struct Redaction {
    pub method: Option<Method>,
    /// The environment variable holding the key of `method = "hash"` (at least 16 bytes).
    pub hash_key_env: Option<String>,
    pub disable: Vec<String>,
    pub allow: Vec<String>,
    pub allow_patterns: Vec<String>,
    pub extra_rules: Vec<ExtraRule>,
    pub scopes: Option<Vec<Scope>>,
    /// Scan binary content too (base64 blobs, image and audio data): what decodes to UTF-8 text is scanned as
    /// that text (and encoded again if redacted); other bytes pass untouched. Off by default.
    pub binary: Option<bool>,
}

/// What a `[[tool]]` or `[[method]]` table changes for the requests it matches.
#[derive(Debug, Clone)]
pub struct Override {
    /// A name, or a glob (`*`, `?`): `read_*`, `resources/*`.
    pub pattern: String,
    pub timeout: Option<f64>,
    pub max_wait: Option<f64>,
    pub failed_result_bytes: Option<u64>,
    /// More rules or categories off, for these requests only.
    pub disable: Vec<String>,
    pub allow: Vec<String>,
    pub scopes: Option<Vec<Scope>>,
    pub actions: BTreeMap<String, Action>,
}

/// The whole document.
#[derive(Debug, Clone, Default)]
pub struct Document {
    pub defaults: Defaults,
    pub redaction: Redaction,
    /// Rule id or category → what a finding of it does.
    pub actions: BTreeMap<String, Action>,
    pub tools: Vec<Override>,
    pub methods: Vec<Override>,
}

/// A table read key by key (a hand-written reader over the TOML's JSON form, not derived deserializers: the
/// npm guard module is downloaded, and one instantiation per table measured tens of KB): every key known,
/// every value of its type, what is left over refused by name.
struct Table<'a> {
    what: String,
    map: Map<String, Value>,
    text: &'a str,
}

impl<'a> Table<'a> {
    fn new(
        what: impl Into<String>,
        value: Value,
        text: &'a str,
    ) -> Result<Table<'a>, DocumentError> {
        let what = what.into();
        match value {
            Value::Object(map) => Ok(Table { what, map, text }),
            _ => Err(DocumentError {
                at: None,
                message: format!("{what} must be a table"),
            }),
        }
    }

    fn wrong(&self, key: &str, expected: &str) -> DocumentError {
        DocumentError {
            at: locate_key(self.text, key),
            message: format!("{}.{key} must be {expected}", self.what),
        }
    }

    fn take(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key)
    }

    fn string(&mut self, key: &str) -> Result<Option<String>, DocumentError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.wrong(key, "a string")),
        }
    }

    fn seconds(&mut self, key: &str) -> Result<Option<f64>, DocumentError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => match v.as_f64().filter(|s| s.is_finite() && *s >= 0.0) {
                Some(s) => Ok(Some(s)),
                None => Err(self.wrong(key, "a number of seconds (0 or more)")),
            },
        }
    }

    fn bytes(&mut self, key: &str) -> Result<Option<u64>, DocumentError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.wrong(key, "a number of bytes")),
        }
    }

    fn boolean(&mut self, key: &str) -> Result<Option<bool>, DocumentError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(_) => Err(self.wrong(key, "true or false")),
        }
    }

    fn strings(&mut self, key: &str) -> Result<Vec<String>, DocumentError> {
        match self.take(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => Ok(items
                .into_iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()),
            Some(_) => Err(self.wrong(key, "a list of strings")),
        }
    }

    /// A string naming one of `names`' cases.
    fn choice<T: Copy>(
        &self,
        key: &str,
        value: &str,
        names: &[(&str, T)],
    ) -> Result<T, DocumentError> {
        names
            .iter()
            .find(|(n, _)| *n == value)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                let expected: Vec<String> = names.iter().map(|(n, _)| format!("\"{n}\"")).collect();
                DocumentError {
                    at: find_key(self.text, key, value),
                    message: format!(
                        "{}.{key}: unknown `{value}` (expected one of {})",
                        self.what,
                        expected.join(", ")
                    ),
                }
            })
    }

    fn scopes(&mut self, key: &str) -> Result<Option<Vec<Scope>>, DocumentError> {
        if !self.map.contains_key(key) {
            return Ok(None);
        }
        let names = self.strings(key)?;
        names
            .iter()
            .map(|n| self.choice(key, n, &SCOPES))
            .collect::<Result<_, _>>()
            .map(Some)
    }

    fn actions(&mut self, key: &str) -> Result<BTreeMap<String, Action>, DocumentError> {
        let Some(value) = self.take(key) else {
            return Ok(BTreeMap::new());
        };
        // `[actions]` at the top, `[[tool]] actions` in an override.
        let what = if self.what == ROOT {
            format!("[{key}]")
        } else {
            format!("{} {key}", self.what)
        };
        let table = Table::new(what, value, self.text)?;
        let mut out = BTreeMap::new();
        for (name, v) in &table.map {
            let action = v
                .as_str()
                .ok_or_else(|| table.wrong(name, "\"redact\", \"block\" or \"audit\""))?;
            out.insert(name.clone(), table.choice(name, action, &ACTIONS)?);
        }
        Ok(out)
    }

    /// The keys left: refused by name.
    fn finish(self, known: &[&str]) -> Result<(), DocumentError> {
        match self.map.keys().next() {
            None => Ok(()),
            Some(key) => Err(DocumentError {
                at: locate_key(self.text, key).or_else(|| locate_header(self.text, key)),
                message: format!(
                    "unknown key `{key}` in {} (expected one of: {})",
                    self.what,
                    known.join(", ")
                ),
            }),
        }
    }
}

/// How errors name the document's top level.
const ROOT: &str = "the policy";

/// Where a table named `key` is opened (`[key]`, `[[key]]`, `[key.sub]`).
fn locate_header(text: &str, key: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let name = trimmed.trim_start_matches('[').trim_start();
        if trimmed.starts_with('[')
            && name.starts_with(key)
            && name[key.len()..].trim_start().starts_with([']', '.'])
        {
            return Some(position(text, offset + line.len() - trimmed.len()));
        }
        offset += line.len();
    }
    None
}

fn read_override(what: &str, value: Value, text: &str) -> Result<Override, DocumentError> {
    let mut t = Table::new(what, value, text)?;
    let o = Override {
        pattern: t.string("match")?.ok_or_else(|| DocumentError {
            at: None,
            message: format!("{what} needs `match`: a name or a glob"),
        })?,
        timeout: t.seconds("timeout")?,
        max_wait: t.seconds("max_wait")?,
        failed_result_bytes: t.bytes("failed_result_bytes")?,
        disable: t.strings("disable")?,
        allow: t.strings("allow")?,
        scopes: t.scopes("scopes")?,
        actions: t.actions("actions")?,
    };
    t.finish(&OVERRIDE_KEYS)?;
    Ok(o)
}

fn read_overrides(root: &mut Table<'_>, key: &str) -> Result<Vec<Override>, DocumentError> {
    match root.take(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|v| read_override(&format!("[[{key}]]"), v, root.text))
            .collect(),
        Some(_) => Err(root.wrong(key, &format!("an array of tables ([[{key}]])"))),
    }
}

fn read(value: Value, text: &str) -> Result<Document, DocumentError> {
    let mut root = Table::new(ROOT, value, text)?;
    let mut d = Table::new(
        "[defaults]",
        root.take("defaults")
            .unwrap_or_else(|| Value::Object(Map::new())),
        text,
    )?;
    let defaults = Defaults {
        dialect: d.string("dialect")?,
        timeout: d.seconds("timeout")?,
        max_wait: d.seconds("max_wait")?,
        max_bytes: d.bytes("max_bytes")?,
        max_upstream_bytes: d.bytes("max_upstream_bytes")?,
        batch: d.string("batch")?,
        failed_result_bytes: d.bytes("failed_result_bytes")?,
    };
    d.finish(&DEFAULTS_KEYS)?;
    let mut r = Table::new(
        "[redaction]",
        root.take("redaction")
            .unwrap_or_else(|| Value::Object(Map::new())),
        text,
    )?;
    let method = match r.string("method")? {
        Some(m) => Some(r.choice("method", &m, &METHODS)?),
        None => None,
    };
    let extra_rules = match r.take("extra_rules") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|v| {
                let mut e = Table::new("[[redaction.extra_rules]]", v, text)?;
                let need = |e: &mut Table<'_>, key: &str| {
                    e.string(key)?.ok_or_else(|| DocumentError {
                        at: None,
                        message: format!("an extra rule needs `{key}`"),
                    })
                };
                let rule = ExtraRule {
                    id: need(&mut e, "id")?,
                    category: need(&mut e, "category")?,
                    pattern: need(&mut e, "pattern")?,
                    keywords: e.strings("keywords")?,
                    secret_groups: match e.take("secret_groups") {
                        None => Vec::new(),
                        Some(Value::Array(g)) if g.iter().all(|n| n.as_u64().is_some()) => g
                            .iter()
                            .filter_map(|n| n.as_u64().map(|n| n as usize))
                            .collect(),
                        Some(_) => return Err(e.wrong("secret_groups", "a list of group numbers")),
                    },
                };
                e.finish(&EXTRA_RULE_KEYS)?;
                Ok(rule)
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(r.wrong(
                "extra_rules",
                "an array of tables ([[redaction.extra_rules]])",
            ))
        }
    };
    let redaction = Redaction {
        method,
        hash_key_env: r.string("hash_key_env")?,
        disable: r.strings("disable")?,
        allow: r.strings("allow")?,
        allow_patterns: r.strings("allow_patterns")?,
        extra_rules,
        scopes: r.scopes("scopes")?,
        binary: r.boolean("binary")?,
    };
    r.finish(&REDACTION_KEYS)?;
    let actions = root.actions("actions")?;
    let tools = read_overrides(&mut root, "tool")?;
    let methods = read_overrides(&mut root, "method")?;
    root.finish(&ROOT_KEYS)?;
    Ok(Document {
        defaults,
        redaction,
        actions,
        tools,
        methods,
    })
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
    let column = before
        .rfind('\n')
        .map_or(before.len(), |i| before.len() - i - 1)
        + 1;
    (line, column)
}

/// Where in `text` the value of `key` (a dotted path's last key, e.g. `disable`) is written first, for a
/// refusal the TOML reader cannot place (an unknown rule name, a pattern that does not compile).
pub fn find_key(text: &str, key: &str, value: &str) -> Option<(usize, usize)> {
    let quoted = [format!("\"{value}\""), format!("'{value}'")];
    let at = text
        .match_indices(key)
        .find_map(|(i, _)| {
            quoted
                .iter()
                .filter_map(|q| text[i..].find(q.as_str()).map(|j| i + j))
                .min()
        })
        .or_else(|| quoted.iter().filter_map(|q| text.find(q.as_str())).min());
    match at {
        Some(at) => Some(position(text, at)),
        // A bare key (an `[actions]` entry names its rule as the key).
        None => locate_key(text, value),
    }
}

/// Reads a document (syntax, keys, types; rule names are checked when it is compiled).
pub fn parse(text: &str) -> Result<Document, DocumentError> {
    let value: Value = basic_toml::from_str(text).map_err(|e| {
        // The reader's message ends with where it stopped, which `at` says: said once.
        let message = e.to_string();
        let message = message
            .split(" at line ")
            .next()
            .unwrap_or(&message)
            .trim()
            .to_string();
        // A value of the wrong type or an unknown key is reported at the document's start, naming the key:
        // placed where that key (or the unknown field) is written.
        // An unknown field is reported where its table begins: placed on the field itself.
        let at = match e.line_col() {
            Some((0, 0)) | None => locate(text, &message, 0),
            Some((l, c)) if message.starts_with("unknown field") => {
                let from = text
                    .split_inclusive('\n')
                    .take(l)
                    .map(str::len)
                    .sum::<usize>()
                    + c;
                locate(text, &message, from).or(Some((l + 1, c + 1)))
            }
            Some((l, c)) => Some((l + 1, c + 1)),
        };
        DocumentError { at, message }
    })?;
    read(value, text)
}

/// Where a key is first written as the first word of a line (`key =`).
fn locate_key(text: &str, key: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with(key) && trimmed[key.len()..].trim_start().starts_with('=') {
            return Some(position(text, offset + line.len() - trimmed.len()));
        }
        offset += line.len();
    }
    None
}

/// The text between the first pair of backticks after `marker` in `message`.
fn quoted_after<'a>(message: &'a str, marker: &str) -> Option<&'a str> {
    let rest = &message[message.find(marker)? + marker.len()..];
    let start = rest.find('`')? + 1;
    let end = start + rest[start..].find('`')?;
    Some(&rest[start..end])
}

/// Where the key a refusal names is written: an unknown field's name, else the last segment of the key
/// path (`for key `redaction.scopes``), as the first word of a line at or after its table's header.
fn locate(text: &str, message: &str, start: usize) -> Option<(usize, usize)> {
    let path = quoted_after(message, "for key ");
    let (table, key) = match (quoted_after(message, "unknown field "), path) {
        (Some(field), table) => (table.map(|t| t.split('.').next().unwrap_or(t)), field),
        (None, Some(path)) => match path.rsplit_once('.') {
            Some((table, key)) => (Some(table.split('.').next().unwrap_or(table)), key),
            None => (None, path),
        },
        (None, None) => return None,
    };
    let from = match start {
        0 => table
            .and_then(|t| {
                text.find(&format!("[{t}]"))
                    .or_else(|| text.find(&format!("[[{t}]]")))
            })
            .unwrap_or(0),
        at => at.min(text.len()),
    };
    let mut offset = from;
    for line in text[from..].split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with(key) && trimmed[key.len()..].trim_start().starts_with('=') {
            return Some(position(text, offset + line.len() - trimmed.len()));
        }
        offset += line.len();
    }
    None
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
        let e =
            parse("[defaults]\ntimeout = 5\n[[tool]]\nmatch = \"x\"\ntimeuot = 9\n").unwrap_err();
        assert_eq!(e.at.map(|(l, _)| l), Some(5), "{e}");
        assert!(e.message.contains("timeuot"), "{e}");
        let e = parse("[defaults\n").unwrap_err();
        assert!(e.at.is_some(), "{e}");
    }

    #[test]
    fn positions_are_one_based() {
        assert_eq!(position("ab\ncd", 0), (1, 1));
        assert_eq!(position("ab\ncd", 4), (2, 2));
        assert_eq!(
            find_key("[redaction]\ndisable = [\"nope\"]\n", "disable", "nope"),
            Some((2, 12))
        );
    }
}
