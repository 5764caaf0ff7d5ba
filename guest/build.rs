//! Turns the human-edited TOML data (taxonomy, redaction rules) into Rust static tables included by
//! `src/taxonomy.rs` and `src/redact/rules.rs`, so the wasm guest carries neither a TOML parser nor the
//! JSON text and deserialization code a runtime-parsed table would need, and every runtime reads the very
//! same table. The schema checks a deserializer would make (required keys, types, no unknown keys) are
//! made here instead: a bad TOML file fails the build.
use std::fmt::Write;
use std::{env, fs, path::PathBuf};
use toml::{map::Map, Value};

#[path = "build/programs.rs"]
mod programs;

fn read_toml(source: &str) -> Value {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let path = manifest.join("..").join(source);
    println!("cargo:rerun-if-changed={}", path.display());
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{} is not valid TOML: {e}", path.display()))
}

fn write_out(out_name: &str, text: &str) {
    fs::write(
        PathBuf::from(env::var("OUT_DIR").unwrap()).join(out_name),
        text,
    )
    .unwrap();
}

/// A TOML table read key by key: whatever is left over at the end is a key the schema does not know.
struct Table {
    what: String,
    map: Map<String, Value>,
}

impl Table {
    fn new(what: impl Into<String>, value: Value) -> Table {
        let what = what.into();
        match value {
            Value::Table(map) => Table { what, map },
            other => panic!("{what} must be a table, found {other:?}"),
        }
    }

    fn opt(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key)
    }

    fn req(&mut self, key: &str) -> Value {
        self.opt(key)
            .unwrap_or_else(|| panic!("{} has no `{key}`", self.what))
    }

    /// The value under `key`, converted by `take` (which returns None for the wrong type).
    fn opt_as<T>(
        &mut self,
        key: &str,
        expected: &str,
        take: impl Fn(Value) -> Result<T, Value>,
    ) -> Option<T> {
        let what = &self.what;
        self.map.remove(key).map(|v| {
            take(v)
                .unwrap_or_else(|other| panic!("{what}.{key} must be {expected}, found {other:?}"))
        })
    }

    fn opt_str(&mut self, key: &str) -> Option<String> {
        self.opt_as(key, "a string", |v| match v {
            Value::String(s) => Ok(s),
            other => Err(other),
        })
    }

    fn str(&mut self, key: &str) -> String {
        self.opt_str(key)
            .unwrap_or_else(|| panic!("{} has no `{key}`", self.what))
    }

    fn opt_int(&mut self, key: &str) -> Option<i64> {
        self.opt_as(key, "an integer", |v| match v {
            Value::Integer(n) => Ok(n),
            other => Err(other),
        })
    }

    fn int(&mut self, key: &str) -> i64 {
        self.opt_int(key)
            .unwrap_or_else(|| panic!("{} has no `{key}`", self.what))
    }

    fn opt_bool(&mut self, key: &str) -> Option<bool> {
        self.opt_as(key, "a boolean", |v| match v {
            Value::Boolean(b) => Ok(b),
            other => Err(other),
        })
    }

    fn opt_list<T>(&mut self, key: &str, item: impl Fn(Value) -> Option<T>) -> Option<Vec<T>> {
        let what = format!("{}.{key}", self.what);
        self.opt(key).map(|v| match v {
            Value::Array(items) => items
                .into_iter()
                .map(|i| {
                    item(i).unwrap_or_else(|| panic!("{what} holds an item of the wrong type"))
                })
                .collect(),
            other => panic!("{what} must be an array, found {other:?}"),
        })
    }

    fn strings(&mut self, key: &str) -> Vec<String> {
        self.opt_strings(key)
            .unwrap_or_else(|| panic!("{} has no `{key}`", self.what))
    }

    fn opt_strings(&mut self, key: &str) -> Option<Vec<String>> {
        self.opt_list(key, |v| v.as_str().map(str::to_string))
    }

    fn finish(self) {
        let unknown: Vec<&String> = self.map.keys().collect();
        assert!(
            unknown.is_empty(),
            "{} has unknown keys {unknown:?}",
            self.what
        );
    }
}

/// A Rust string literal (`str`'s Debug form is valid Rust source).
fn lit(s: &str) -> String {
    format!("{s:?}")
}

fn opt_lit(s: Option<&str>) -> String {
    s.map_or("None".to_string(), |s| format!("Some({})", lit(s)))
}

fn str_slice(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| lit(s)).collect();
    format!("&[{}]", inner.join(", "))
}

/// `basic-auth` → `BasicAuth`: the Rust variant of a kebab-case name (serde's `rename_all = "kebab-case"`).
/// A name with no such variant fails to compile.
fn variant(enum_name: &str, kebab: &str) -> String {
    let camel: String = kebab
        .split('-')
        .map(|part| {
            let mut c = part.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    format!("{enum_name}::{camel}")
}

/// `taxonomy.rs`'s `TaxonomyRows`. Table keys keep the order the JSON table had (sorted: toml's maps are
/// BTreeMaps), which `meta.categories`, `meta.dialects` and each kind's `dialects` are iterated in.
fn taxonomy_rows(toml: Value) -> String {
    let mut root = Table::new("taxonomy.toml", toml);
    let mut meta = Table::new("[meta]", root.req("meta"));
    let mut out = String::from("TaxonomyRows {\n    meta: MetaRow {\n");
    let _ = writeln!(out, "        version: {},", lit(&meta.str("version")));
    let _ = writeln!(
        out,
        "        truncate_bytes: {},",
        meta.int("truncate_bytes")
    );
    let _ = writeln!(
        out,
        "        failed_result_text_bytes: {},",
        meta.int("failed_result_text_bytes")
    );
    let _ = writeln!(
        out,
        "        truncation_marker: {},",
        lit(&meta.str("truncation_marker"))
    );
    let _ = writeln!(
        out,
        "        default_max_bytes: {},",
        meta.int("default_max_bytes")
    );
    let _ = writeln!(
        out,
        "        max_input_bytes: {},",
        meta.int("max_input_bytes")
    );
    let _ = writeln!(
        out,
        "        gate_order: {},",
        str_slice(&meta.strings("gate_order"))
    );
    let _ = writeln!(
        out,
        "        invalid_request_reasons: {},",
        str_slice(&meta.strings("invalid_request_reasons"))
    );
    for key in ["categories", "dialects"] {
        let mut pairs = Table::new(format!("[meta.{key}]"), meta.req(key));
        let entries: Vec<String> = std::mem::take(&mut pairs.map)
            .into_iter()
            .map(|(k, v)| {
                let v = v
                    .as_str()
                    .unwrap_or_else(|| panic!("meta.{key}.{k} must be a string"))
                    .to_string();
                format!("({}, {})", lit(&k), lit(&v))
            })
            .collect();
        let _ = writeln!(out, "        {key}: &[{}],", entries.join(", "));
    }
    let mut protocol = Table::new("[meta.protocol]", meta.req("protocol"));
    let mut ints = |key: &str| -> Vec<i32> {
        let what = format!("meta.protocol.{key}");
        protocol
            .opt_list(key, |v| v.as_integer().and_then(|n| i32::try_from(n).ok()))
            .unwrap_or_else(|| panic!("{what} is missing"))
    };
    let range = |key: &str, r: Vec<i32>| -> (i32, i32) {
        assert!(
            r.len() == 2 && r[0] <= r[1],
            "meta.protocol.{key} must be [lowest, highest]"
        );
        (r[0], r[1])
    };
    let list = |codes: &[i32]| {
        format!(
            "&[{}]",
            codes
                .iter()
                .map(i32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let standard = ints("standard_codes");
    let implementation = range("implementation_codes", ints("implementation_codes"));
    let reserved = range("spec_reserved_codes", ints("spec_reserved_codes"));
    let retired = ints("spec_retired_codes");
    // The allocation itself only for the taxonomy's own tests; at run time `owned_codes` says it all.
    let _ = writeln!(
        out,
        "        #[cfg(test)]\n        standard_codes: {},",
        list(&standard)
    );
    let _ = writeln!(
        out,
        "        #[cfg(test)]\n        implementation_codes: {implementation:?},"
    );
    let _ = writeln!(
        out,
        "        #[cfg(test)]\n        spec_reserved_codes: {reserved:?},"
    );
    let _ = writeln!(
        out,
        "        #[cfg(test)]\n        spec_retired_codes: {},",
        list(&retired)
    );
    let _ = writeln!(
        out,
        "        #[cfg(feature = \"mcp-revisions\")]\n        mcp_handshake_revisions: {},",
        str_slice(&protocol.strings("mcp_handshake_revisions"))
    );
    // Every code a protocol owns, as one `matches!` (a few comparisons in the downloaded module, no table).
    let patterns: Vec<String> = standard
        .iter()
        .chain(&retired)
        .map(i32::to_string)
        .chain([format!("{}..={}", reserved.0, reserved.1)])
        .collect();
    write_out(
        "owned_codes.rs",
        &format!("/// Whether a protocol owns `code` (`[meta.protocol]`). Generated by build.rs.\npub fn owned_by_protocol(code: i64) -> bool {{\n    matches!(code, {})\n}}\n", patterns.join(" | ")),
    );
    protocol.finish();
    let mut generic = Table::new("[meta.dialect_fields]", meta.req("dialect_fields"));
    let entries: Vec<String> = std::mem::take(&mut generic.map)
        .into_iter()
        .map(|(dialect, specs)| {
            let specs = match specs {
                Value::Array(items) => items,
                other => panic!("meta.dialect_fields.{dialect} must be an array of field specs, found {other:?}"),
            };
            let rows: Vec<String> = specs
                .iter()
                .map(|spec| field_row(&format!("dialect {dialect}"), spec.as_str().expect("field specs are strings"), true))
                .collect();
            format!("({}, &[{}])", lit(&dialect), rows.join(", "))
        })
        .collect();
    let _ = writeln!(out, "        dialect_fields: &[{}],", entries.join(", "));
    meta.finish();
    out.push_str("    },\n    kinds: &[\n");

    let kinds = match root.req("kind") {
        Value::Array(kinds) => kinds,
        other => panic!("[[kind]] must be an array of tables, found {other:?}"),
    };
    for kind in kinds {
        let name = kind
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string();
        let mut k = Table::new(format!("kind `{name}`"), kind);
        out.push_str("        KindRow {\n");
        let _ = writeln!(out, "            name: {},", lit(&k.str("name")));
        let _ = writeln!(out, "            summary: {},", lit(&k.str("summary")));
        let _ = writeln!(out, "            category: {},", lit(&k.str("category")));
        let _ = writeln!(
            out,
            "            gate: {},",
            opt_lit(k.opt_str("gate").as_deref())
        );
        let retryable = k
            .opt_bool("retryable")
            .unwrap_or_else(|| panic!("kind `{name}` has no `retryable`"));
        let _ = writeln!(out, "            retryable: {retryable},");
        let _ = writeln!(
            out,
            "            retry_hint: {},",
            lit(&k.str("retry_hint"))
        );
        let http_status = u16::try_from(k.int("http_status")).expect("http_status is a u16");
        let _ = writeln!(out, "            http_status: {http_status},");
        let _ = writeln!(out, "            log_level: {},", lit(&k.str("log_level")));
        // Only the taxonomy's own tests ask who defined a kind (a code from MCP's reserved range is MCP's).
        let _ = writeln!(
            out,
            "            #[cfg(test)]\n            defined_by: {},",
            opt_lit(k.opt_str("defined_by").as_deref())
        );
        let fields: Vec<String> = k
            .strings("fields")
            .iter()
            .map(|spec| field_row(&format!("kind `{name}`"), spec, false))
            .collect();
        let _ = writeln!(out, "            fields: &[{}],", fields.join(", "));
        let _ = writeln!(out, "            message: {},", lit(&k.str("message")));
        let _ = writeln!(
            out,
            "            details: {},",
            opt_lit(k.opt_str("details").as_deref())
        );
        let _ = writeln!(
            out,
            "            public: {},",
            str_slice(&k.opt_strings("public").unwrap_or_default())
        );
        let mut dialects = Table::new(format!("kind `{name}` dialects"), k.req("dialects"));
        let entries: Vec<String> = std::mem::take(&mut dialects.map)
            .into_iter()
            .map(|(d, entry)| {
                let mut e = Table::new(format!("kind `{name}` dialect `{d}`"), entry);
                let code = e
                    .opt_int("code")
                    .map(|c| i32::try_from(c).expect("codes are i32"));
                let row = format!(
                    "({}, DialectRow {{ code: {}, message: {}, details: {}, style: {} }})",
                    lit(&d),
                    code.map_or("None".to_string(), |c| format!("Some({c})")),
                    opt_lit(e.opt_str("message").as_deref()),
                    opt_lit(e.opt_str("details").as_deref()),
                    variant("Style", e.opt_str("style").as_deref().unwrap_or("error")),
                );
                e.finish();
                row
            })
            .collect();
        let _ = writeln!(
            out,
            "            dialects: &[\n                {},\n            ],",
            entries.join(",\n                ")
        );
        k.finish();
        out.push_str("        },\n");
    }
    root.finish();
    out.push_str("    ],\n}\n");
    out
}

/// Fields are written `"name: type"` with an optional trailing `?`; the row is `(name, FieldType, required)`.
/// `object` (any JSON object) is for a dialect's generic fields only: a kind's fields become typed WIT records.
fn field_row(owner: &str, spec: &str, object_allowed: bool) -> String {
    let (name, ty) = spec
        .split_once(':')
        .unwrap_or_else(|| panic!("{owner}: field spec `{spec}` is not `name: type`"));
    let ty = ty.trim();
    let (ty, required) = match ty.strip_suffix('?') {
        Some(t) => (t, false),
        None => (ty, true),
    };
    let ty = match ty {
        "string" => "String",
        "u64" => "U64",
        "s32" => "S32",
        "bool" => "Bool",
        "list<string>" => "StringList",
        "object" if object_allowed => "Object",
        other => panic!("{owner}: unknown field type `{other}` in `{spec}`"),
    };
    let name = name.trim();
    // Field names become WIT, Python and TypeScript identifiers and camelCase keys (ASCII case mapping).
    assert!(
        name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
        "{owner}: field name `{name}` is not snake_case ASCII"
    );
    format!("({}, FieldType::{ty}, {required})", lit(name))
}

/// `rules.rs`'s `CatalogueRows`, and the rules' examples (test data) as JSON of their own, which only tests
/// and the vector generator read, so they never weigh on the shipped wasm. Descriptions are documentation
/// that only native code (tests, docs) reads: the wasm builds leave them empty, which saves the npm module
/// 6 KB.
fn catalogue_rows(toml: Value) -> (String, String, String) {
    let keep_descriptions = env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("wasm32");
    let mut root = Table::new("rules.toml", toml);
    let mut out = String::from("CatalogueRows {\n");
    let mut allow = Table::new("[allowlist]", root.req("allowlist"));
    let _ = writeln!(
        out,
        "    allowlist_values: {},",
        str_slice(&allow.strings("values"))
    );
    let _ = writeln!(
        out,
        "    allowlist_markers: {},",
        str_slice(&allow.strings("markers"))
    );
    allow.finish();
    let mut environment = Table::new("[environment]", root.req("environment"));
    let _ = writeln!(
        out,
        "    environment_name_pattern: {},",
        lit(&environment.str("name_pattern"))
    );
    let _ = writeln!(
        out,
        "    environment_min_value_len: {},",
        environment.int("min_value_len")
    );
    environment.finish();
    let mut json = Table::new("[json]", root.req("json"));
    let _ = writeln!(
        out,
        "    json_sensitive_keys: {},",
        str_slice(&json.strings("sensitive_keys"))
    );
    let _ = writeln!(
        out,
        "    json_sensitive_suffixes: {},",
        str_slice(&json.strings("sensitive_suffixes"))
    );
    let _ = writeln!(
        out,
        "    json_opaque_keys: {},",
        str_slice(&json.strings("opaque_keys"))
    );
    let _ = writeln!(
        out,
        "    json_trace_keys: {},",
        str_slice(&json.strings("trace_keys"))
    );
    let _ = writeln!(
        out,
        "    json_not_sensitive: {},",
        str_slice(&json.strings("not_sensitive"))
    );
    let _ = writeln!(
        out,
        "    json_diagnostic_keys: {},",
        str_slice(&json.strings("diagnostic_keys"))
    );
    json.finish();

    out.push_str("    rules: &[\n");
    let rules = match root.req("rule") {
        Value::Array(rules) => rules,
        other => panic!("[[rule]] must be an array of tables, found {other:?}"),
    };
    let mut examples = Map::new();
    let mut patterns = Vec::new();
    for rule in rules {
        let id = rule
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string();
        let mut r = Table::new(format!("rule `{id}`"), rule);
        let mut ex = Map::new();
        for key in ["examples", "negative_examples"] {
            ex.insert(key.to_string(), r.opt(key).unwrap_or(Value::Array(vec![])));
        }
        examples.insert(id.clone(), Value::Table(ex));

        out.push_str("        RuleRow {\n");
        let _ = writeln!(out, "            id: {},", lit(&r.str("id")));
        let _ = writeln!(out, "            category: {},", lit(&r.str("category")));
        let description = r.opt_str("description").unwrap_or_default();
        let description = if keep_descriptions {
            description
        } else {
            String::new()
        };
        let _ = writeln!(out, "            description: {},", lit(&description));
        let _ = writeln!(
            out,
            "            keywords: {},",
            str_slice(&r.opt_strings("keywords").unwrap_or_default())
        );
        let pattern = r.str("pattern");
        let _ = writeln!(out, "            pattern: {},", lit(&pattern));
        patterns.push((id.clone(), pattern));
        let groups = r
            .opt_list("secret_groups", |v| {
                v.as_integer().and_then(|n| usize::try_from(n).ok())
            })
            .unwrap_or_default();
        let _ = writeln!(out, "            secret_groups: &{groups:?},");
        let validator = r
            .opt_str("validator")
            .map(|v| format!("Some({})", variant("Validator", &v)));
        let _ = writeln!(
            out,
            "            validator: {},",
            validator.as_deref().unwrap_or("None")
        );
        let span = usize::try_from(r.opt_int("span").unwrap_or(0)).expect("span is not negative");
        let _ = writeln!(out, "            span: {span},");
        let _ = writeln!(
            out,
            "            assignment_after_keyword: {},",
            r.opt_bool("assignment_after_keyword").unwrap_or(false)
        );
        let _ = writeln!(
            out,
            "            trigger: {},",
            variant(
                "Trigger",
                r.opt_str("trigger").as_deref().unwrap_or("keywords")
            )
        );
        let _ = writeln!(
            out,
            "            window: {},",
            variant(
                "WindowKind",
                r.opt_str("window").as_deref().unwrap_or("line")
            )
        );
        let words_after = usize::try_from(r.opt_int("words_after").unwrap_or(0))
            .expect("words_after is not negative");
        let _ = writeln!(out, "            words_after: {words_after},");
        let requires = r.opt_strings("requires").unwrap_or_default();
        assert!(
            requires.iter().all(|s| !s.is_empty()),
            "rule {}: a `requires` literal is empty",
            r.str("id")
        );
        let _ = writeln!(out, "            requires: {},", str_slice(&requires));
        let _ = writeln!(
            out,
            "            delimits: {},",
            r.opt_bool("delimits").unwrap_or(false)
        );
        let separator = r.opt_str("separator").unwrap_or_default();
        assert!(separator.len() <= 1, "rule {id}: a `separator` is one byte");
        let _ = writeln!(out, "            separator: {},", lit(&separator));
        let _ = writeln!(
            out,
            "            object_holds: {},",
            lit(&r.opt_str("object_holds").unwrap_or_default())
        );
        r.finish();
        out.push_str("        },\n");
    }
    root.finish();
    out.push_str("    ],\n}\n");
    let examples =
        serde_json::to_string(&Value::Table(examples)).expect("TOML values are JSON-representable");
    (out, examples, programs::programs(&patterns))
}

/// `taxonomy.rs`'s `Dialect` enum: one variant per `[meta.dialects]` entry, in the file's order (the order
/// every list of dialects follows). Every `match` on it is exhaustive, so a dialect added to the table is a
/// compile error wherever it needs handling; its name, the list of names and parsing derive from here.
fn dialect_enum(toml: &Value) -> String {
    let names: Vec<&str> = toml
        .get("meta")
        .and_then(|m| m.get("dialects"))
        .and_then(Value::as_table)
        .expect("[meta.dialects] is a table")
        .keys()
        .map(String::as_str)
        .collect();
    for name in &names {
        assert!(
            name.starts_with(|c: char| c.is_ascii_lowercase())
                && name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "dialect name `{name}` is not kebab-case ASCII"
        );
    }
    let variants: Vec<String> = names.iter().map(|n| variant("Dialect", n)).collect();
    let mut out = String::new();
    let _ = writeln!(out, "/// Every dialect of the taxonomy (`[meta.dialects]`), in its order. Generated by build.rs.");
    let _ = writeln!(
        out,
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum Dialect {{"
    );
    for v in &variants {
        let _ = writeln!(out, "    {},", v.trim_start_matches("Dialect::"));
    }
    let _ = writeln!(out, "}}\n\nimpl Dialect {{");
    let _ = writeln!(
        out,
        "    pub const ALL: [Dialect; {}] = [{}];",
        names.len(),
        variants.join(", ")
    );
    let _ = writeln!(out, "\n    /// The dialect's name, as every runtime spells it.\n    pub const fn name(self) -> &'static str {{\n        match self {{");
    for (n, v) in names.iter().zip(&variants) {
        let _ = writeln!(out, "            {v} => {},", lit(n));
    }
    let _ = writeln!(out, "        }}\n    }}\n\n    /// The dialect named `name`, if there is one.\n    pub fn from_name(name: &str) -> Option<Dialect> {{\n        match name {{");
    for (n, v) in names.iter().zip(&variants) {
        let _ = writeln!(out, "            {} => Some({v}),", lit(n));
    }
    let _ = writeln!(out, "            _ => None,\n        }}\n    }}\n}}\n");
    let _ = writeln!(
        out,
        "/// Every dialect's name, in order.\npub const DIALECTS: [&str; {}] = [{}];\n",
        names.len(),
        names.iter().map(|n| lit(n)).collect::<Vec<_>>().join(", ")
    );
    let _ = writeln!(out, "/// The names as the unknown-dialect error lists them.\npub const DIALECT_LIST: &str = {};", lit(&names.join(", ")));
    out
}

fn main() {
    let taxonomy = read_toml("taxonomy/taxonomy.toml");
    write_out("dialect.rs", &dialect_enum(&taxonomy));
    write_out("taxonomy_rows.rs", &taxonomy_rows(taxonomy));
    let (rules, examples, programs) = catalogue_rows(read_toml("redaction/rules.toml"));
    write_out("catalogue_rows.rs", &rules);
    write_out("redaction_examples.json", &examples);
    write_out("redaction_programs.rs", &programs);
}
