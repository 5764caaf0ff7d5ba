//! Files generated from the taxonomy (`cargo xtask gen` writes them; `cargo xtask gen --check`, part of the
//! test run, fails when one is stale): the WIT kinds interface, docs/codes.md, the Python and TypeScript
//! constants and the host's. Build-time code only: the shipped guest crate carries none of it.

use crate::recordgen::rustfmt;
use jsonrpc_errors_guest::taxonomy::{taxonomy, Dialect, FieldType, Kind, DIALECTS};
use std::fmt::Write;

/// (path relative to the repository root, generator)
pub fn generated_files() -> Vec<(&'static str, String)> {
    vec![
        ("wit/kinds.wit", wit_kinds()),
        (
            "docs/codes.md",
            jsonrpc_errors_guest::lookup::codes_markdown(None).expect("all dialects are known"),
        ),
        (
            "bindings/python/src/jsonrpc_errors/_taxonomy.py",
            python_constants(),
        ),
        ("bindings/js/src/taxonomy.ts", typescript_types()),
        ("host/src/taxonomy.rs", host_rust()),
        ("guest/src/component/kind_input.rs", guest_kind_input()),
        ("native/src/kinds.rs", native_kinds()),
        (
            jsonrpc_errors_guest::policy::schema::PATH,
            jsonrpc_errors_guest::policy::schema::json_schema_text(),
        ),
    ]
}

const HEADER: &str = "Generated from taxonomy/taxonomy.toml by `cargo xtask gen`; do not edit.";

fn wit_ident(name: &str) -> String {
    const KEYWORDS: [&str; 8] = [
        "type", "result", "option", "list", "record", "enum", "string", "stream",
    ];
    let kebab = name.replace('_', "-");
    if KEYWORDS.contains(&kebab.as_str()) {
        format!("%{kebab}")
    } else {
        kebab
    }
}

/// The WIT's `log-level` cases, loudest first.
const LOG_LEVELS: [&str; 4] = ["error", "warn", "info", "debug"];

fn wit_type(ty: FieldType) -> &'static str {
    ty.name()
}

fn wit_doc(out: &mut String, indent: &str, text: &str) {
    let _ = writeln!(out, "{indent}/// {}", text.replace('\n', " "));
}

fn categories() -> Vec<&'static str> {
    taxonomy()
        .meta
        .categories
        .keys()
        .map(String::as_str)
        .collect()
}

pub fn wit_kinds() -> String {
    let t = taxonomy();
    let mut w = String::new();
    let _ = writeln!(
        w,
        "// {HEADER}\npackage jsonrpc-errors:core@{};\n",
        t.meta.version
    );
    let _ = writeln!(
        w,
        "/// The taxonomy as types: every error kind with its fields.\ninterface kinds {{"
    );
    let _ = writeln!(w, "    /// The dialects a kind can be rendered in.");
    let _ = writeln!(w, "    enum dialect {{ {} }}\n", DIALECTS.join(", "));
    let _ = writeln!(
        w,
        "    /// Who is at fault, broadly (metric label `category`)."
    );
    let _ = writeln!(w, "    enum category {{ {} }}\n", categories().join(", "));
    let _ = writeln!(w, "    /// ThoughtGate's four gates, in decision order.");
    let _ = writeln!(w, "    enum gate {{ {} }}\n", t.meta.gate_order.join(", "));
    let _ = writeln!(w, "    /// The level a kind is logged at.");
    let _ = writeln!(w, "    enum log-level {{ {} }}\n", LOG_LEVELS.join(", "));
    for k in t.kinds.iter().filter(|k| !k.fields.is_empty()) {
        wit_doc(&mut w, "    ", &format!("Fields of `{}`.", k.name));
        let _ = writeln!(w, "    record {}-fields {{", k.name);
        for f in &k.fields {
            let ty = if f.required {
                wit_type(f.ty).to_string()
            } else {
                format!("option<{}>", wit_type(f.ty))
            };
            let _ = writeln!(w, "        {}: {},", wit_ident(&f.name), ty);
        }
        let _ = writeln!(w, "    }}\n");
    }
    let _ = writeln!(w, "    /// Every error kind. The case name is the kind's name in every dialect's `data.type`.");
    let _ = writeln!(w, "    variant error-kind {{");
    for k in &t.kinds {
        wit_doc(&mut w, "        ", &k.summary);
        if k.fields.is_empty() {
            let _ = writeln!(w, "        {},", k.name);
        } else {
            let _ = writeln!(w, "        {}({}-fields),", k.name, k.name);
        }
    }
    let _ = writeln!(w, "    }}\n}}");
    w
}

fn py_literal(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

pub fn python_constants() -> String {
    let t = taxonomy();
    let mut p = String::new();
    let _ = writeln!(p, "# {HEADER}\n\"\"\"Taxonomy constants for type checkers and logging/metrics integrations.\n\nMapping itself always happens inside the component; these are names and facts, not logic.\n\"\"\"\n");
    let _ = writeln!(p, "from __future__ import annotations\n\nimport enum\nfrom typing import Final, Mapping, NamedTuple, Optional\n");
    let _ = writeln!(
        p,
        "TAXONOMY_VERSION: Final = {}\n",
        py_literal(&t.meta.version)
    );
    let _ = writeln!(
        p,
        "#: `validate`'s default size limit, in bytes.\nDEFAULT_MAX_BYTES: Final = {}\n",
        t.meta.default_max_bytes
    );
    let _ = writeln!(p, "\nclass ErrorKind(str, enum.Enum):\n    \"\"\"Every error kind (the value is the kind's name).\"\"\"\n");
    for k in &t.kinds {
        let _ = writeln!(
            p,
            "    {} = {}",
            k.name.replace('-', "_").to_uppercase(),
            py_literal(&k.name)
        );
    }
    let _ = writeln!(p, "\n\nclass Dialect(str, enum.Enum):\n    \"\"\"Every dialect a kind can be rendered in.\"\"\"\n");
    for d in DIALECTS {
        let _ = writeln!(
            p,
            "    {} = {}",
            d.replace('-', "_").to_uppercase(),
            py_literal(d)
        );
    }
    let _ = writeln!(p, "\n\nclass KindInfo(NamedTuple):\n    category: str\n    gate: Optional[str]\n    retryable: bool\n    http_status: int\n    log_level: str\n    fields: tuple[str, ...]\n    required: tuple[str, ...]\n");
    let _ = writeln!(p, "\nKINDS: Final[Mapping[str, KindInfo]] = {{");
    for k in &t.kinds {
        let _ = writeln!(
            p,
            "    {}: KindInfo({}, {}, {}, {}, {}, ({}), ({})),",
            py_literal(&k.name),
            py_literal(&k.category),
            k.gate
                .as_deref()
                .map(py_literal)
                .unwrap_or_else(|| "None".into()),
            if k.retryable { "True" } else { "False" },
            k.http_status,
            py_literal(&k.log_level),
            tuple(k.fields.iter().map(|f| f.name.as_str())),
            tuple(
                k.fields
                    .iter()
                    .filter(|f| f.required)
                    .map(|f| f.name.as_str())
            ),
        );
    }
    let _ = writeln!(p, "}}");
    p
}

fn tuple<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let items: Vec<String> = items.map(py_literal).collect();
    match items.len() {
        0 => String::new(),
        1 => format!("{},", items[0]),
        _ => items.join(", "),
    }
}

fn ts_type(ty: FieldType) -> &'static str {
    match ty {
        FieldType::String => "string",
        FieldType::U64 | FieldType::S32 => "number",
        FieldType::Bool => "boolean",
        FieldType::StringList => "string[]",
        FieldType::Object => "Record<string, unknown>",
    }
}

fn ts_fields(k: &Kind) -> String {
    ts_field_list(&k.fields)
}

fn ts_field_list(fields: &[jsonrpc_errors_guest::taxonomy::Field]) -> String {
    if fields.is_empty() {
        return "Record<never, never>".into();
    }
    let parts: Vec<String> = fields
        .iter()
        .map(|f| {
            format!(
                "{}{}: {}",
                f.name,
                if f.required { "" } else { "?" },
                ts_type(f.ty)
            )
        })
        .collect();
    format!("{{ {} }}", parts.join("; "))
}

pub fn typescript_types() -> String {
    let t = taxonomy();
    let mut s = String::new();
    let _ = writeln!(s, "// {HEADER}\n");
    let _ = writeln!(
        s,
        "export const TAXONOMY_VERSION = {} as const;\n",
        py_literal(&t.meta.version)
    );
    let _ = writeln!(s, "/** `validate`'s default size limit, in bytes. */\nexport const DEFAULT_MAX_BYTES = {} as const;\n", t.meta.default_max_bytes);
    let _ = writeln!(s, "export const ERROR_KINDS = [");
    for k in &t.kinds {
        let _ = writeln!(s, "  {},", py_literal(&k.name));
    }
    let _ = writeln!(s, "] as const;\n\n/** Every error kind. */\nexport type ErrorKind = (typeof ERROR_KINDS)[number];\n");
    let _ = writeln!(
        s,
        "export const DIALECTS = [{}] as const;\n",
        DIALECTS.map(py_literal).join(", ")
    );
    let _ = writeln!(s, "/** Every dialect a kind can be rendered in. */\nexport type Dialect = (typeof DIALECTS)[number];\n");
    let _ = writeln!(
        s,
        "export type Category = {};\n",
        categories()
            .iter()
            .map(|c| py_literal(c))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(
        s,
        "export type Gate = {};\n",
        t.meta
            .gate_order
            .iter()
            .map(|g| py_literal(g))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(
        s,
        "/** The input fields of each kind. */\nexport interface KindFields {{"
    );
    for k in &t.kinds {
        let _ = writeln!(s, "  {}: {};", py_literal(&k.name), ts_fields(k));
    }
    let _ = writeln!(s, "}}\n");
    let _ = writeln!(s, "/** Each dialect's generic data fields: `mapError` to that dialect accepts them on every kind. */\nexport interface DialectFields {{");
    for d in DIALECTS {
        let _ = writeln!(
            s,
            "  {}: {};",
            py_literal(d),
            ts_field_list(t.meta.generic_fields(d))
        );
    }
    let _ = writeln!(s, "}}\n");
    let _ = writeln!(s, "export interface KindInfo {{\n  category: Category;\n  gate: Gate | null;\n  retryable: boolean;\n  httpStatus: number;\n  logLevel: 'error' | 'warn' | 'info' | 'debug';\n}}\n");
    let _ = writeln!(
        s,
        "export const KINDS: {{ readonly [K in ErrorKind]: KindInfo }} = {{"
    );
    for k in &t.kinds {
        let _ = writeln!(
            s,
            "  {}: {{ category: {}, gate: {}, retryable: {}, httpStatus: {}, logLevel: {} }},",
            py_literal(&k.name),
            py_literal(&k.category),
            k.gate
                .as_deref()
                .map(py_literal)
                .unwrap_or_else(|| "null".into()),
            k.retryable,
            k.http_status,
            py_literal(&k.log_level)
        );
    }
    let _ = writeln!(s, "}};");
    s
}

/// The host's copy of what it needs from the taxonomy before calling the component: the default size limit
/// (to withhold, uncopied, a body the guest would refuse), the dialect enum's names, and the HTTP statuses a
/// front sends (each kind's, and the kind an MCP error code stands for).
pub fn host_rust() -> String {
    let t = taxonomy();
    let mut s = String::new();
    let _ = writeln!(s, "// {HEADER}\n");
    let _ = writeln!(
        s,
        "use crate::bindings::exports::jsonrpc_errors::core::kinds::{{Dialect, ErrorKind}};\n"
    );
    let _ = writeln!(
        s,
        "/// `validate`'s default size limit, in bytes (the taxonomy's `default_max_bytes`)."
    );
    let _ = writeln!(
        s,
        "pub(crate) const DEFAULT_MAX_BYTES: u64 = {};\n",
        t.meta.default_max_bytes
    );
    let _ = writeln!(s, "/// The WIT dialect named `name`.\npub(crate) fn known_dialect(name: &str) -> Option<Dialect> {{\n    Some(match name {{");
    for d in Dialect::ALL {
        let _ = writeln!(s, "        {:?} => Dialect::{d:?},", d.name());
    }
    let _ = writeln!(s, "        _ => return None,\n    }})\n}}");
    let _ = writeln!(s, "\n/// Every dialect's name and what it follows (the taxonomy's `[meta.dialects]`), in the WIT enum's order.");
    let _ = writeln!(s, "pub const DIALECTS: &[(&str, &str)] = &[");
    for d in Dialect::ALL {
        let about = t
            .meta
            .dialects
            .get(d.name())
            .expect("every dialect is described");
        let _ = writeln!(s, "    ({:?}, {:?}),", d.name(), about);
    }
    let _ = writeln!(s, "];");
    kind_match(
        &mut s,
        "`kind`'s HTTP status (the taxonomy's `http_status`): what a front sends an error of its own with.",
        "http_status(kind: &ErrorKind) -> u16",
        |k| k.http_status.to_string(),
    );
    kind_match(
        &mut s,
        "`kind`'s name (its `data.type` in the canonical dialect), for the operator's log.",
        "kind_name(kind: &ErrorKind) -> &'static str",
        |k| format!("{:?}", k.name),
    );
    // Each code's first kind in the `mcp` dialect: the one reverse lookup returns without more to go on.
    let mut seen: Vec<i32> = Vec::new();
    let mut arms = String::new();
    for k in &t.kinds {
        let Some(code) = k.dialect("mcp").and_then(|e| e.code) else {
            continue;
        };
        if !seen.contains(&code) {
            seen.push(code);
            let _ = writeln!(arms, "        {code} => ({:?}, {}),", k.name, k.http_status);
        }
    }
    let _ = writeln!(
        s,
        "\n/// The kind an error answer with `code` stands for in MCP (the code's first kind in the `mcp` dialect, as\n/// reverse lookup returns it from the code alone), and that kind's HTTP status."
    );
    let _ = writeln!(
        s,
        "pub fn mcp_kind(code: i64) -> Option<(&'static str, u16)> {{\n    Some(match code {{\n{arms}        _ => return None,\n    }})\n}}"
    );
    s
}

/// The component's reading of the WIT's kinds (`interface kinds`), written case by case rather than through
/// serde derives on wit-bindgen's types: the derived `Serialize` of `error-kind` alone was 36 KB of the
/// component's code. `kind_input`: an `error-kind` as the map input `api::map_error_value` reads (`kind` named,
/// then every field, an absent option null, as serde wrote them); and the enums a `kind-info` carries from
/// their names.
pub fn guest_kind_input() -> String {
    let t = taxonomy();
    let mut s = String::new();
    let _ = writeln!(s, "// {HEADER}\n");
    let _ = writeln!(
        s,
        "//! The WIT's kinds as the component reads them: an `error-kind` as `map_error`'s input, the enums a\n//! `kind-info` carries by name. Written by `xtask/src/codegen.rs` (`guest_kind_input`), not serde derives.\n"
    );
    let _ = writeln!(
        s,
        "use super::exports::jsonrpc_errors::core::kinds::{{Category, ErrorKind, Gate, LogLevel}};\nuse serde_json::{{Map, Value}};\n"
    );
    // Each arm converts its fields and hands them to one `input`: the map's insertions inlined in every arm
    // were 26 KB of the component, one copy is a few hundred bytes.
    let _ = writeln!(
        s,
        "impl ErrorKind {{\n    /// `ErrorKind::ToolNotExposed(f)` → `{{\"kind\": \"tool-not-exposed\", \"tool\": …, \"source\": … or null}}`.\n    pub(crate) fn into_input(self) -> Map<String, Value> {{\n        match self {{"
    );
    for k in &t.kinds {
        let rust = upper_camel(&k.name);
        if k.fields.is_empty() {
            let _ = writeln!(
                s,
                "        ErrorKind::{rust} => input({:?}, Vec::new()),",
                k.name
            );
            continue;
        }
        let mut fields = Vec::new();
        for f in &k.fields {
            // serde_json's `From`s: an option's `None` is null, a list an array.
            if f.ty == FieldType::Object {
                panic!("kind {}: an object field has no WIT type", k.name);
            }
            fields.push(format!(
                "({:?}, f.{}.into())",
                f.name,
                f.name.replace('-', "_")
            ));
        }
        let _ = writeln!(
            s,
            "        ErrorKind::{rust}(f) => input({:?}, vec![{}]),",
            k.name,
            fields.join(", ")
        );
    }
    let _ = writeln!(s, "    }}\n}}\n}}");
    let _ = writeln!(
        s,
        "\n/// `{{\"kind\": kind, ...fields}}`, in that order.\n#[inline(never)]\nfn input(kind: &str, fields: Vec<(&str, Value)>) -> Map<String, Value> {{\n    let mut m = Map::new();\n    m.insert(\"kind\".into(), kind.into());\n    for (name, value) in fields {{\n        m.insert(name.into(), value);\n    }}\n    m\n}}"
    );
    let enums: [(&str, Vec<&str>); 3] = [
        ("Category", categories()),
        (
            "Gate",
            t.meta.gate_order.iter().map(String::as_str).collect(),
        ),
        ("LogLevel", LOG_LEVELS.to_vec()),
    ];
    for (rust, cases) in enums {
        let _ = writeln!(s, "\nimpl {rust} {{\n/// The case named `name`.\npub(crate) fn from_name(name: &str) -> Option<Self> {{\n    Some(match name {{");
        for case in cases {
            let _ = writeln!(s, "        {case:?} => {rust}::{},", upper_camel(case));
        }
        let _ = writeln!(s, "        _ => return None,\n    }})\n}}\n}}");
    }
    rustfmt(&s).expect("rustfmt formats the kinds' reader")
}

/// A public function of the host's `ErrorKind` (`signature`, after `pub fn `): a `match` with one arm per kind,
/// each `value` of it.
fn kind_match(s: &mut String, doc: &str, signature: &str, value: impl Fn(&Kind) -> String) {
    let _ = writeln!(s, "\n/// {doc}\npub fn {signature} {{\n    match kind {{");
    for k in &taxonomy().kinds {
        let fields = if k.fields.is_empty() { "" } else { "(_)" };
        let _ = writeln!(
            s,
            "        ErrorKind::{}{fields} => {},",
            upper_camel(&k.name),
            value(k)
        );
    }
    let _ = writeln!(s, "    }}\n}}");
}

/// `tool-not-exposed` → `ToolNotExposed`: a kind's Rust variant name.
fn upper_camel(kebab: &str) -> String {
    kebab
        .split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn rust_type(ty: FieldType) -> &'static str {
    match ty {
        FieldType::String => "String",
        FieldType::U64 => "u64",
        FieldType::S32 => "i32",
        FieldType::Bool => "bool",
        FieldType::StringList => "Vec<String>",
        FieldType::Object => "serde_json::Map<String, serde_json::Value>",
    }
}

/// The native crate's kinds (`jsonrpc_errors::ErrorKind` with its fields, `jsonrpc_errors::Kind` without):
/// names and field types only. Every other fact of a kind is read from the guest's table at run time
/// (native/src/facts.rs), so this file holds nothing that could disagree with it.
pub fn native_kinds() -> String {
    let t = taxonomy();
    let mut s = String::new();
    let _ = writeln!(s, "// {HEADER}\n");
    let _ = writeln!(s, "use crate::map_input::FieldReader;");
    let _ = writeln!(s, "use serde::{{Deserialize, Deserializer, Serialize}};\n");
    let _ = writeln!(s, "/// Every error kind with its fields: what a server answers with. It serializes as the guest's map input");
    let _ = writeln!(s, "/// (`{{\"kind\": \"tool-not-exposed\", \"tool\": …}}`, absent options left out) and deserializes from it,");
    let _ = writeln!(s, "/// refusing a field the kind does not have.");
    let _ = writeln!(s, "#[derive(Debug, Clone, PartialEq, Serialize)]\n#[serde(tag = \"kind\")]\npub enum ErrorKind {{");
    for k in &t.kinds {
        let _ = writeln!(s, "    /// {}", k.summary.replace('\n', " "));
        let _ = writeln!(s, "    #[serde(rename = {})]", py_literal(&k.name));
        if k.fields.is_empty() {
            let _ = writeln!(s, "    {},", upper_camel(&k.name));
            continue;
        }
        let _ = writeln!(s, "    {} {{", upper_camel(&k.name));
        for f in &k.fields {
            if f.required {
                let _ = writeln!(s, "        {}: {},", f.name, rust_type(f.ty));
            } else {
                let _ = writeln!(
                    s,
                    "        #[serde(skip_serializing_if = \"Option::is_none\")]"
                );
                let _ = writeln!(s, "        {}: Option<{}>,", f.name, rust_type(f.ty));
            }
        }
        let _ = writeln!(s, "    }},");
    }
    let _ = writeln!(s, "}}\n");
    let _ = writeln!(s, "/// A kind without its fields: what a client learns from an error code (see [`crate::RemoteError`]).");
    let _ = writeln!(
        s,
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum Kind {{"
    );
    for k in &t.kinds {
        let _ = writeln!(s, "    /// {}", k.summary.replace('\n', " "));
        let _ = writeln!(s, "    {},", upper_camel(&k.name));
    }
    let _ = writeln!(s, "}}\n");
    let _ = writeln!(
        s,
        "impl Kind {{\n    /// Every kind, in the taxonomy's order."
    );
    let _ = writeln!(s, "    pub const ALL: [Kind; {}] = [", t.kinds.len());
    for k in &t.kinds {
        let _ = writeln!(s, "        Kind::{},", upper_camel(&k.name));
    }
    let _ = writeln!(s, "    ];\n");
    let _ = writeln!(s, "    /// The kind's name, as every runtime spells it (`data.type` in the canonical dialect).");
    let _ = writeln!(
        s,
        "    pub const fn name(self) -> &'static str {{\n        match self {{"
    );
    for k in &t.kinds {
        let _ = writeln!(
            s,
            "            Kind::{} => {},",
            upper_camel(&k.name),
            py_literal(&k.name)
        );
    }
    let _ = writeln!(s, "        }}\n    }}\n");
    let _ = writeln!(s, "    /// The kind named `name`, if there is one.");
    let _ = writeln!(
        s,
        "    pub fn from_name(name: &str) -> Option<Kind> {{\n        Some(match name {{"
    );
    for k in &t.kinds {
        let _ = writeln!(
            s,
            "            {} => Kind::{},",
            py_literal(&k.name),
            upper_camel(&k.name)
        );
    }
    let _ = writeln!(
        s,
        "            _ => return None,\n        }})\n    }}\n}}\n"
    );
    let _ = writeln!(s, "impl ErrorKind {{\n    /// Which kind this is.");
    let _ = writeln!(
        s,
        "    pub const fn kind(&self) -> Kind {{\n        match self {{"
    );
    for k in &t.kinds {
        let pattern = if k.fields.is_empty() {
            String::new()
        } else {
            " { .. }".to_string()
        };
        let _ = writeln!(
            s,
            "            ErrorKind::{}{pattern} => Kind::{},",
            upper_camel(&k.name),
            upper_camel(&k.name)
        );
    }
    let _ = writeln!(s, "        }}\n    }}\n}}\n");
    let _ = writeln!(s, "// By hand rather than derived: serde's internally tagged enums buffer their input, and with serde_json's");
    let _ = writeln!(s, "// `arbitrary_precision` (on in this workspace) a buffered number no longer reads as a `u64`.");
    let _ = writeln!(s, "impl<'de> Deserialize<'de> for ErrorKind {{");
    let _ = writeln!(
        s,
        "    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {{"
    );
    let _ = writeln!(
        s,
        "        let mut input = FieldReader::new(deserializer)?;"
    );
    let _ = writeln!(s, "        let kind = input.kind(Kind::from_name)?;");
    let _ = writeln!(s, "        let value = match kind {{");
    for k in &t.kinds {
        if k.fields.is_empty() {
            let _ = writeln!(
                s,
                "            Kind::{0} => ErrorKind::{0},",
                upper_camel(&k.name)
            );
            continue;
        }
        let _ = writeln!(
            s,
            "            Kind::{} => ErrorKind::{} {{",
            upper_camel(&k.name),
            upper_camel(&k.name)
        );
        for f in &k.fields {
            let read = if f.required { "required" } else { "optional" };
            let _ = writeln!(
                s,
                "                {}: input.{read}({})?,",
                f.name,
                py_literal(&f.name)
            );
        }
        let _ = writeln!(s, "            }},");
    }
    let _ = writeln!(
        s,
        "        }};\n        input.finish(value, kind.name())\n    }}\n}}"
    );
    s
}
