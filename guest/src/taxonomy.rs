//! The taxonomy table (`taxonomy/taxonomy.toml`), loaded once and queried everywhere else.
//!
//! Nothing in this crate states a code, a message or a category of its own: it reads them from here.

use std::sync::OnceLock;

// `Dialect`, `DIALECTS` and `DIALECT_LIST`, generated from `[meta.dialects]` by build.rs.
include!(concat!(env!("OUT_DIR"), "/dialect.rs"));

#[derive(Debug)]
pub struct Taxonomy {
    pub meta: Meta,
    pub kinds: Vec<Kind>,
}

#[derive(Debug)]
pub struct Meta {
    pub version: String,
    pub truncate_bytes: usize,
    /// The longest text of a failed tool result a guard passes on (the default of its option).
    pub failed_result_text_bytes: u64,
    pub truncation_marker: String,
    pub default_max_bytes: u64,
    /// The largest input any function takes (every runtime refuses longer ones unread).
    pub max_input_bytes: u64,
    pub gate_order: Vec<String>,
    pub invalid_request_reasons: Vec<String>,
    pub categories: Named<String>,
    pub dialects: Named<String>,
    /// Each dialect's generic fields: accepted on every kind when mapping to that dialect.
    pub dialect_fields: Vec<(String, Vec<Field>)>,
    /// What the guard must know of the protocols it carries (`[meta.protocol]`).
    pub protocol: Protocol,
}

/// Codes and revisions of JSON-RPC and MCP (`[meta.protocol]` in the taxonomy). Static slices, as build.rs
/// wrote them: nothing is copied (the npm module is downloaded, and pays for every copy loop).
#[derive(Debug)]
pub struct Protocol {
    /// JSON-RPC 2.0's own codes.
    #[cfg(test)]
    pub standard_codes: &'static [i32],
    /// MCP's implementation-defined range, lowest and highest.
    #[cfg(test)]
    pub implementation_codes: (i32, i32),
    /// The range MCP reserves for the codes its spec defines, lowest and highest.
    #[cfg(test)]
    pub spec_reserved_codes: (i32, i32),
    /// Codes earlier MCP revisions defined, retired and never reused.
    #[cfg(test)]
    pub spec_retired_codes: &'static [i32],
    /// MCP revisions reached through the `initialize` handshake.
    #[cfg(feature = "mcp-revisions")]
    pub mcp_handshake_revisions: &'static [&'static str],
}

impl Protocol {
    /// A code whose meaning a protocol defines (JSON-RPC's own, or one MCP's spec owns): a guard keeps it,
    /// with the structure of its data, instead of re-labelling it as an upstream's own error.
    pub fn owns(&self, code: i64) -> bool {
        owned_by_protocol(code)
    }

    /// Whether results under MCP revision `revision` must carry `resultType`: every revision but the ones
    /// reached through the `initialize` handshake (a revision the taxonomy does not know yet is a newer one).
    #[cfg(feature = "mcp-revisions")]
    pub fn requires_result_type(&self, revision: &str) -> bool {
        !self.mcp_handshake_revisions.contains(&revision)
    }
}

impl Meta {
    /// `dialect`'s generic fields (none for most dialects).
    pub fn generic_fields(&self, dialect: &str) -> &[Field] {
        self.dialect_fields
            .iter()
            .find(|(d, _)| d == dialect)
            .map_or(&[], |(_, f)| f.as_slice())
    }
}

#[derive(Debug)]
pub struct Kind {
    pub name: String,
    pub summary: String,
    pub category: String,
    pub gate: Option<String>,
    pub retryable: bool,
    pub retry_hint: String,
    pub http_status: u16,
    pub log_level: String,
    /// "mcp" for the MCP specification's own errors (`defined_by`): the kinds whose code MCP owns.
    #[cfg(test)]
    pub defined_by: Option<&'static str>,
    pub fields: Vec<Field>,
    pub message: String,
    pub details: Option<String>,
    pub public: Vec<String>,
    pub dialects: Named<DialectEntry>,
}

/// A few named entries in the table's own order (a kind's dialects, the categories), searched linearly: with
/// at most eight short names, comparing beats hashing, and the npm wasm is spared a hash map instantiation
/// per value type.
#[derive(Debug)]
pub struct Named<V>(Vec<(String, V)>);

impl<V> Named<V> {
    pub fn get(&self, name: &str) -> Option<&V> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(n, _)| n)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        self.0.iter().map(|(n, v)| (n, v))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<V> FromIterator<(String, V)> for Named<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(items: I) -> Self {
        Named(items.into_iter().collect())
    }
}

impl<'a, V> IntoIterator for &'a Named<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, V)>,
        fn(&'a (String, V)) -> (&'a String, &'a V),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(n, v)| (n, v))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    String,
    U64,
    S32,
    Bool,
    StringList,
    /// Any JSON object (a dialect's generic fields only, e.g. the Error Model's `context`).
    Object,
}

impl FieldType {
    pub fn name(self) -> &'static str {
        match self {
            FieldType::String => "string",
            FieldType::U64 => "u64",
            FieldType::S32 => "s32",
            FieldType::Bool => "bool",
            FieldType::StringList => "list<string>",
            FieldType::Object => "object",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub ty: FieldType,
    pub required: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// A JSON-RPC error object.
    #[default]
    Error,
    /// Error Model domain error: a successful response whose `result.error` carries the error.
    Domain,
    /// MCP tool execution error: a successful `tools/call` result with `isError: true`.
    ToolResult,
}

#[derive(Debug)]
pub struct DialectEntry {
    pub code: Option<i32>,
    pub message: Option<String>,
    pub details: Option<String>,
    pub style: Style,
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

/// The table as build.rs writes it from taxonomy.toml: borrowed static data, which costs the binary far less
/// than the JSON text and the deserializer it replaced. [`taxonomy`] turns it into the owned types once.
struct TaxonomyRows {
    meta: MetaRow,
    kinds: &'static [KindRow],
}

/// `(name, type, required)`, parsed from a `"name: type?"` spec by build.rs.
type FieldRow = (&'static str, FieldType, bool);

struct MetaRow {
    version: &'static str,
    truncate_bytes: usize,
    failed_result_text_bytes: u64,
    truncation_marker: &'static str,
    default_max_bytes: u64,
    max_input_bytes: u64,
    gate_order: &'static [&'static str],
    invalid_request_reasons: &'static [&'static str],
    categories: &'static [(&'static str, &'static str)],
    dialects: &'static [(&'static str, &'static str)],
    dialect_fields: &'static [(&'static str, &'static [FieldRow])],
    #[cfg(test)]
    standard_codes: &'static [i32],
    #[cfg(test)]
    implementation_codes: (i32, i32),
    #[cfg(test)]
    spec_reserved_codes: (i32, i32),
    #[cfg(test)]
    spec_retired_codes: &'static [i32],
    #[cfg(feature = "mcp-revisions")]
    mcp_handshake_revisions: &'static [&'static str],
}

struct KindRow {
    name: &'static str,
    summary: &'static str,
    category: &'static str,
    gate: Option<&'static str>,
    retryable: bool,
    retry_hint: &'static str,
    http_status: u16,
    log_level: &'static str,
    #[cfg(test)]
    defined_by: Option<&'static str>,
    /// `(name, type, required)`, parsed from the `"name: type?"` specs by build.rs.
    fields: &'static [FieldRow],
    message: &'static str,
    details: Option<&'static str>,
    public: &'static [&'static str],
    dialects: &'static [(&'static str, DialectRow)],
}

struct DialectRow {
    code: Option<i32>,
    message: Option<&'static str>,
    details: Option<&'static str>,
    style: Style,
}

static ROWS: TaxonomyRows = include!(concat!(env!("OUT_DIR"), "/taxonomy_rows.rs"));

include!(concat!(env!("OUT_DIR"), "/owned_codes.rs"));

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn field_list(rows: &[(&str, FieldType, bool)]) -> Vec<Field> {
    rows.iter()
        .map(|&(name, ty, required)| Field {
            name: name.to_string(),
            ty,
            required,
        })
        .collect()
}

fn owned(rows: &TaxonomyRows) -> Taxonomy {
    let m = &rows.meta;
    let pairs = |items: &[(&str, &str)]| {
        items
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let meta = Meta {
        version: m.version.to_string(),
        truncate_bytes: m.truncate_bytes,
        failed_result_text_bytes: m.failed_result_text_bytes,
        truncation_marker: m.truncation_marker.to_string(),
        default_max_bytes: m.default_max_bytes,
        max_input_bytes: m.max_input_bytes,
        gate_order: strings(m.gate_order),
        invalid_request_reasons: strings(m.invalid_request_reasons),
        categories: pairs(m.categories),
        dialects: pairs(m.dialects),
        dialect_fields: m
            .dialect_fields
            .iter()
            .map(|(d, fields)| (d.to_string(), field_list(fields)))
            .collect(),
        protocol: Protocol {
            #[cfg(test)]
            standard_codes: m.standard_codes,
            #[cfg(test)]
            implementation_codes: m.implementation_codes,
            #[cfg(test)]
            spec_reserved_codes: m.spec_reserved_codes,
            #[cfg(test)]
            spec_retired_codes: m.spec_retired_codes,
            #[cfg(feature = "mcp-revisions")]
            mcp_handshake_revisions: m.mcp_handshake_revisions,
        },
    };
    let kinds = rows
        .kinds
        .iter()
        .map(|k| Kind {
            name: k.name.to_string(),
            summary: k.summary.to_string(),
            category: k.category.to_string(),
            gate: k.gate.map(str::to_string),
            retryable: k.retryable,
            retry_hint: k.retry_hint.to_string(),
            http_status: k.http_status,
            log_level: k.log_level.to_string(),
            #[cfg(test)]
            defined_by: k.defined_by,
            fields: field_list(k.fields),
            message: k.message.to_string(),
            details: k.details.map(str::to_string),
            public: strings(k.public),
            dialects: k
                .dialects
                .iter()
                .map(|(d, e)| {
                    let entry = DialectEntry {
                        code: e.code,
                        message: e.message.map(str::to_string),
                        details: e.details.map(str::to_string),
                        style: e.style,
                    };
                    (d.to_string(), entry)
                })
                .collect(),
        })
        .collect();
    Taxonomy { meta, kinds }
}

/// The process-wide table, built on first use.
pub fn taxonomy() -> &'static Taxonomy {
    static TABLE: OnceLock<Taxonomy> = OnceLock::new();
    TABLE.get_or_init(|| owned(&ROWS))
}

pub fn is_dialect(name: &str) -> bool {
    Dialect::from_name(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a guard answers by default (and in the MCP dialect) must not reuse a code MCP gives another
    /// meaning: its own codes are standard ones, or in MCP's implementation-defined range and not one MCP
    /// retired (-32002 was ThoughtGate's upstream-error and MCP's resource-not-found).
    #[test]
    fn guard_dialects_reuse_no_code_mcp_owns() {
        let t = taxonomy();
        let p = &t.meta.protocol;
        let (low, high) = p.implementation_codes;
        for dialect in ["canonical", "mcp"] {
            for kind in &t.kinds {
                let Some(code) = kind.dialect(dialect).and_then(|e| e.code) else {
                    continue;
                };
                let standard = p.standard_codes.contains(&code);
                let ours = (low..=high).contains(&code) && !p.owns(i64::from(code));
                let mcps_own = kind.defined_by == Some("mcp") && p.owns(i64::from(code));
                assert!(
                    standard || ours || mcps_own,
                    "{dialect}: `{}` answers {code}, a code MCP owns",
                    kind.name
                );
            }
        }
        assert!(
            p.owns(-32042)
                && p.owns(-32022)
                && p.owns(-32020)
                && p.owns(-32099)
                && p.owns(-32002)
                && p.owns(-32602)
        );
        assert!(!p.owns(-32019) && !p.owns(-32000) && !p.owns(-32100) && !p.owns(-31999));
        #[cfg(feature = "mcp-revisions")]
        assert!(!p.requires_result_type("2025-11-25") && p.requires_result_type("2026-07-28"));
    }

    #[test]
    fn taxonomy_loads_and_is_consistent() {
        let t = taxonomy();
        assert!(t.kinds.len() >= 43, "{} kinds", t.kinds.len());
        let mut names: Vec<_> = t.kinds.iter().map(|k| k.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), t.kinds.len(), "kind names are unique");
        for k in &t.kinds {
            assert!(
                t.meta.categories.contains_key(&k.category),
                "{}: unknown category",
                k.name
            );
            if let Some(g) = &k.gate {
                assert!(t.meta.gate_order.contains(g), "{}: unknown gate", k.name);
            }
            assert!(["error", "warn", "info", "debug"].contains(&k.log_level.as_str()));
            assert!(
                k.dialect("canonical").is_some(),
                "{} has no canonical code",
                k.name
            );
            for (d, entry) in &k.dialects {
                assert!(is_dialect(d), "{}: unknown dialect {d}", k.name);
                match entry.style {
                    Style::ToolResult => assert!(entry.code.is_none() && d == "mcp", "{}", k.name),
                    Style::Domain => assert!(d == "error-model", "{}", k.name),
                    Style::Error => assert!(entry.code.is_some(), "{} in {d} has no code", k.name),
                }
            }
            if let Some(by) = k.defined_by {
                // A spec's own error keeps the spec's code in every dialect, and it is a code the spec owns.
                assert_eq!(by, "mcp", "{}: defined_by names MCP only", k.name);
                let code = k.dialect("canonical").and_then(|e| e.code);
                assert!(
                    code.is_some_and(|c| t.meta.protocol.owns(i64::from(c))),
                    "{}: not a code MCP owns",
                    k.name
                );
                for (d, entry) in &k.dialects {
                    assert_eq!(entry.code, code, "{} in {d}: MCP's own code", k.name);
                }
            }
            for p in &k.public {
                assert!(
                    k.field(p).is_some(),
                    "{}: public field {p} is not a field",
                    k.name
                );
            }
        }
    }

    #[test]
    fn canonical_custom_codes_stay_inside_the_mcp_implementation_range() {
        for k in &taxonomy().kinds {
            let code = k.dialect("canonical").unwrap().code.unwrap();
            let standard = (-32700..=-32600).contains(&code);
            let mcps_own = k.defined_by == Some("mcp");
            assert!(
                standard || mcps_own || (-32019..=-32000).contains(&code),
                "{} canonical code {code}",
                k.name
            );
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
            assert_eq!(
                kind.dialect("thoughtgate").unwrap().code,
                Some(code),
                "{name}"
            );
            // Canonical follows ThoughtGate except where MCP owns the code (ThoughtGate's -32002 is MCP's
            // resource-not-found): see `guard_dialects_reuse_no_code_mcp_owns`.
            let canonical = if t.meta.protocol.owns(i64::from(code)) {
                -32019
            } else {
                code
            };
            assert_eq!(
                kind.dialect("canonical").unwrap().code,
                Some(canonical),
                "{name} canonical"
            );
        }
    }
}
