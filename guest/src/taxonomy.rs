//! The taxonomy table (`taxonomy/taxonomy.toml`), loaded once and queried everywhere else.
//!
//! Nothing in this crate states a code, a message or a category of its own: it reads them from here.

use serde::Deserialize;
// IndexMap, not BTreeMap: keeps the table's own order, and the wasm carries one map implementation (serde_json's).
use indexmap::IndexMap;
use std::sync::OnceLock;

const TAXONOMY_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/taxonomy.json"));

/// Every dialect, in the order the docs list them.
pub const DIALECTS: [&str; 8] = [
    "canonical",
    "duet",
    "vapora",
    "thoughtgate",
    "error-model",
    "watchgate",
    "mcp",
    "a2a",
];

#[derive(Debug, Deserialize)]
pub struct Taxonomy {
    pub meta: Meta,
    #[serde(rename = "kind")]
    pub kinds: Vec<Kind>,
}

#[derive(Debug, Deserialize)]
pub struct Meta {
    pub version: String,
    pub truncate_bytes: usize,
    pub truncation_marker: String,
    pub default_max_bytes: u64,
    pub gate_order: Vec<String>,
    pub invalid_request_reasons: Vec<String>,
    pub categories: IndexMap<String, String>,
    pub dialects: IndexMap<String, String>,
}

#[derive(Debug, Deserialize)]
pub struct Kind {
    pub name: String,
    pub summary: String,
    pub category: String,
    #[serde(default)]
    pub gate: Option<String>,
    pub retryable: bool,
    pub retry_hint: String,
    pub http_status: u16,
    pub log_level: String,
    #[serde(deserialize_with = "fields::deserialize")]
    pub fields: Vec<Field>,
    pub message: String,
    #[serde(default)]
    pub details: Option<String>,
    #[serde(default)]
    pub public: Vec<String>,
    pub dialects: IndexMap<String, DialectEntry>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    String,
    U64,
    S32,
    Bool,
    StringList,
}

impl FieldType {
    pub fn name(self) -> &'static str {
        match self {
            FieldType::String => "string",
            FieldType::U64 => "u64",
            FieldType::S32 => "s32",
            FieldType::Bool => "bool",
            FieldType::StringList => "list<string>",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub ty: FieldType,
    pub required: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Style {
    /// A JSON-RPC error object.
    #[default]
    Error,
    /// Error Model domain error: a successful response whose `result.error` carries the error.
    Domain,
    /// MCP tool execution error: a successful `tools/call` result with `isError: true`.
    ToolResult,
}

#[derive(Debug, Deserialize)]
pub struct DialectEntry {
    #[serde(default)]
    pub code: Option<i32>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub details: Option<String>,
    #[serde(default)]
    pub style: Style,
}

mod fields {
    use super::{Field, FieldType};
    use serde::{Deserialize, Deserializer};

    /// Fields are written `"name: type"` with an optional trailing `?`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Field>, D::Error> {
        let specs = Vec::<String>::deserialize(d)?;
        specs
            .iter()
            .map(|spec| parse(spec).map_err(serde::de::Error::custom))
            .collect()
    }

    fn parse(spec: &str) -> Result<Field, String> {
        let (name, ty) = spec
            .split_once(':')
            .ok_or_else(|| format!("field spec `{spec}` is not `name: type`"))?;
        let ty = ty.trim();
        let (ty, required) = match ty.strip_suffix('?') {
            Some(t) => (t, false),
            None => (ty, true),
        };
        let ty = match ty {
            "string" => FieldType::String,
            "u64" => FieldType::U64,
            "s32" => FieldType::S32,
            "bool" => FieldType::Bool,
            "list<string>" => FieldType::StringList,
            other => return Err(format!("unknown field type `{other}` in `{spec}`")),
        };
        Ok(Field { name: name.trim().to_string(), ty, required })
    }
}

impl Kind {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    pub fn dialect(&self, dialect: &str) -> Option<&DialectEntry> {
        self.dialects.get(dialect)
    }

    /// The message template this dialect uses for the kind.
    pub fn message_in(&self, dialect: &str) -> &str {
        self.dialect(dialect)
            .and_then(|d| d.message.as_deref())
            .unwrap_or(&self.message)
    }

    /// The details template this dialect uses for the kind, if any.
    pub fn details_in(&self, dialect: &str) -> Option<&str> {
        self.dialect(dialect)
            .and_then(|d| d.details.as_deref())
            .or(self.details.as_deref())
    }
}

impl Taxonomy {
    pub fn kind(&self, name: &str) -> Option<&Kind> {
        self.kinds.iter().find(|k| k.name == name)
    }

    /// Kinds a dialect renders with this JSON-RPC error code (or domain code), in table order.
    pub fn kinds_with_code(&self, dialect: &str, code: i64) -> Vec<&Kind> {
        self.kinds
            .iter()
            .filter(|k| {
                k.dialect(dialect)
                    .and_then(|d| d.code)
                    .is_some_and(|c| i64::from(c) == code)
            })
            .collect()
    }

    pub fn gate_rank(&self, gate: &str) -> usize {
        self.meta
            .gate_order
            .iter()
            .position(|g| g == gate)
            .unwrap_or(usize::MAX)
    }
}

/// The process-wide table, parsed on first use.
pub fn taxonomy() -> &'static Taxonomy {
    static TABLE: OnceLock<Taxonomy> = OnceLock::new();
    TABLE.get_or_init(|| {
        // The JSON is produced by build.rs from a TOML file that the test suite checks; a failure here is a
        // build defect, caught by `taxonomy_loads` before anything ships.
        serde_json::from_str(TAXONOMY_JSON).expect("taxonomy.toml matches the Taxonomy schema")
    })
}

pub fn is_dialect(name: &str) -> bool {
    DIALECTS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taxonomy_loads_and_is_consistent() {
        let t = taxonomy();
        assert!(t.kinds.len() >= 43, "{} kinds", t.kinds.len());
        let mut names: Vec<_> = t.kinds.iter().map(|k| k.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), t.kinds.len(), "kind names are unique");
        for k in &t.kinds {
            assert!(t.meta.categories.contains_key(&k.category), "{}: unknown category", k.name);
            if let Some(g) = &k.gate {
                assert!(t.meta.gate_order.contains(g), "{}: unknown gate", k.name);
            }
            assert!(["error", "warn", "info", "debug"].contains(&k.log_level.as_str()));
            assert!(k.dialect("canonical").is_some(), "{} has no canonical code", k.name);
            for (d, entry) in &k.dialects {
                assert!(is_dialect(d), "{}: unknown dialect {d}", k.name);
                match entry.style {
                    Style::ToolResult => assert!(entry.code.is_none() && d == "mcp", "{}", k.name),
                    Style::Domain => assert!(d == "error-model", "{}", k.name),
                    Style::Error => assert!(entry.code.is_some(), "{} in {d} has no code", k.name),
                }
            }
            for p in &k.public {
                assert!(k.field(p).is_some(), "{}: public field {p} is not a field", k.name);
            }
        }
    }

    #[test]
    fn canonical_custom_codes_stay_inside_the_mcp_implementation_range() {
        for k in &taxonomy().kinds {
            let code = k.dialect("canonical").unwrap().code.unwrap();
            let standard = (-32700..=-32600).contains(&code);
            assert!(standard || (-32019..=-32000).contains(&code), "{} canonical code {code}", k.name);
        }
    }

    #[test]
    fn thoughtgate_codes_follow_req_core_004() {
        let t = taxonomy();
        let expected = [
            ("upstream-connection-failed", -32000),
            ("upstream-timeout", -32001),
            ("upstream-error", -32002),
            ("policy-denied", -32003),
            ("task-not-found", -32004),
            ("task-expired", -32005),
            ("task-cancelled", -32006),
            ("approval-rejected", -32007),
            ("approval-timeout", -32008),
            ("rate-limited", -32009),
            ("inspection-failed", -32010),
            ("policy-drift", -32011),
            ("transform-drift", -32012),
            ("service-unavailable", -32013),
            ("governance-rule-denied", -32014),
            ("tool-not-exposed", -32015),
            ("configuration-error", -32016),
            ("workflow-not-found", -32017),
        ];
        for (name, code) in expected {
            let kind = t.kind(name).unwrap();
            assert_eq!(kind.dialect("thoughtgate").unwrap().code, Some(code), "{name}");
            assert_eq!(kind.dialect("canonical").unwrap().code, Some(code), "{name} canonical");
        }
    }
}
