//! Redaction options, generated from the one schema, `redaction-options` (with `extra-rule` and
//! `redaction-method`) in `interface types` of `wit/world.wit` (part of `cargo xtask gen`). The options cross
//! the boundary as JSON text (`redact-with`, `redact-json-value`); every side of it gets its mirror:
//!
//! - the guest (`guest/src/redact/options.rs`): `RedactionOptions`, the serde reader of that JSON (unknown
//!   fields refused), `RedactionMethod`, and `EXTRA_RULE_FIELDS`, which a guest test holds equal to the
//!   fields the catalogue's `Rule` reads a caller's rule from;
//! - the host (`host/src/redaction_options.rs`): `RedactionOptions` (no `Default`: a shell that builds one
//!   names every field, so a new field does not compile until the CLI passes it) and its `to_json`;
//! - Python (`_redaction_schema.py`): the `RedactionOptions` and `ExtraRule` TypedDicts (the keyword options
//!   of `redact_with` and `redact_json_value`) and `_redaction_options_json`, which builds the JSON;
//! - TypeScript (`redaction-schema.ts`): the `RedactOptions` and `ExtraRule` interfaces and the camelCase →
//!   snake_case key maps `redactWith` renames them with.
//!
//! Rules the schema follows (the generator refuses what it cannot carry): every option is an `option<T>` or a
//! `list<T>` (not given: left out of the JSON); an `option` of an enum states its default case in a doc line
//! `Default: `case`.` (the guest's reader falls back to it); `list<extra-rule>` is the catalogue's `Rule` in
//! the guest and a JSON object in the host (the guest checks it).

use crate::guardgen::{py_comment, py_literal, rust_doc, ts_doc, upper_camel, EnumDef, Field, Ty};
use anyhow::{bail, Result};
use std::fmt::Write;

pub const GUEST: &str = "guest/src/redact/options.rs";
pub const HOST: &str = "host/src/redaction_options.rs";
pub const PYTHON: &str = "bindings/python/src/jsonrpc_errors/_redaction_schema.py";
pub const TYPESCRIPT: &str = "bindings/js/src/redaction-schema.ts";

const HEADER: &str =
    "Generated from wit/world.wit (interface `types`: `redaction-options`) by `cargo xtask gen`; do not edit.";

const OPTIONS: &str = "redaction-options";
const RULE: &str = "extra-rule";

struct Schema {
    options: Vec<Field>,
    options_docs: Vec<String>,
    rule: Vec<Field>,
    rule_docs: Vec<String>,
    enums: Vec<EnumDef>,
}

fn schema() -> Result<Schema> {
    let (options, options_docs, rule, rule_docs, enums) = crate::recordgen::read_types(|reader| {
        let (options, options_docs) = reader.record(OPTIONS)?;
        let (rule, rule_docs) = reader.record(RULE)?;
        Ok((
            options,
            options_docs,
            rule,
            rule_docs,
            std::mem::take(&mut reader.enums),
        ))
    })?;
    for f in &options {
        if !matches!(f.ty, Ty::Option(_) | Ty::List(_)) {
            bail!(
                "{OPTIONS}.{} must be an option or a list (not given: left out)",
                f.name
            );
        }
    }
    Ok(Schema {
        options,
        options_docs,
        rule,
        rule_docs,
        enums,
    })
}

/// (path relative to the repository root, content) of every generated mirror.
pub fn generated_files() -> Result<Vec<(&'static str, String)>> {
    let s = schema()?;
    Ok(vec![
        (GUEST, guest(&s)?),
        (HOST, host(&s)?),
        (PYTHON, python(&s)?),
        (TYPESCRIPT, typescript(&s)?),
    ])
}

/// The default case an `option<enum>` states (`Default: `case`.`), checked against the enum's cases.
fn enum_default(f: &Field) -> Result<Option<String>> {
    if !matches!(f.ty, Ty::Option(_)) {
        return Ok(None);
    }
    crate::recordgen::enum_default(OPTIONS, f)
}

// ----------------------------------------------------------------------------------------------- guest

fn guest_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::String => "String".into(),
        Ty::Bool => "bool".into(),
        Ty::U32 | Ty::U64 => "usize".into(),
        Ty::Enum(name, _) => upper_camel(name),
        Ty::Option(t) => format!("Option<{}>", guest_type(t)?),
        Ty::List(t) => format!("Vec<{}>", guest_type(t)?),
        Ty::Named(n) if n == RULE => "Rule".into(),
        other => bail!("the guest's redaction options cannot carry {other:?}"),
    })
}

fn guest(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "use super::rules::Rule;\nuse serde::Deserialize;\n");
    // Enums, each with the default case an option of it states.
    for (name, cases, docs) in &s.enums {
        let default = s
            .options
            .iter()
            .filter(|f| matches!(&f.ty, Ty::Option(t) if matches!(t.as_ref(), Ty::Enum(n, _) if n == name)))
            .map(enum_default)
            .next()
            .transpose()?
            .flatten();
        rust_doc(&mut o, "", docs);
        let derive_default = if default.is_some() { ", Default" } else { "" };
        let _ = writeln!(
            o,
            "#[derive(Debug, Clone, Copy, PartialEq, Eq{derive_default}, Deserialize)]\n#[serde(rename_all = \"kebab-case\")]\npub enum {} {{",
            upper_camel(name)
        );
        for (case, case_docs) in cases {
            rust_doc(&mut o, "    ", case_docs);
            if default.as_deref() == Some(case.as_str()) {
                let _ = writeln!(o, "    #[default]");
            }
            let _ = writeln!(o, "    {},", upper_camel(case));
        }
        let _ = writeln!(o, "}}\n");
        let rust = upper_camel(name);
        let pairs: Vec<String> = cases
            .iter()
            .map(|(c, _)| format!("({c:?}, {rust}::{})", upper_camel(c)))
            .collect();
        let _ = writeln!(
            o,
            "impl {rust} {{\n    /// Every case, by the name the JSON (and a policy file) spells it.\n    pub const CASES: [(&'static str, {rust}); {}] = [\n        {},\n    ];\n}}\n",
            cases.len(),
            pairs.join(",\n        ")
        );
    }
    rust_doc(&mut o, "", &s.options_docs);
    let _ = writeln!(
        o,
        "#[derive(Debug, Clone, Default, Deserialize)]\n#[serde(deny_unknown_fields)]\npub struct RedactionOptions {{"
    );
    for f in &s.options {
        rust_doc(&mut o, "    ", &f.docs);
        // An option of an enum with a default reads as the enum (absent: its default case).
        let ty = match (&f.ty, enum_default(f)?) {
            (Ty::Option(t), Some(_)) => guest_type(t)?,
            (ty, _) => guest_type(ty)?,
        };
        let _ = writeln!(o, "    #[serde(default)]\n    pub {}: {ty},", f.snake());
    }
    let _ = writeln!(o, "}}\n");
    let _ = writeln!(
        o,
        "/// The fields of `{RULE}`, as the JSON spells them: those `Rule` reads a caller's rule from (a test holds\n/// the two equal)."
    );
    let names: Vec<String> = s.rule.iter().map(|f| format!("{:?}", f.snake())).collect();
    let _ = writeln!(
        o,
        "#[cfg(test)]\npub const EXTRA_RULE_FIELDS: &[&str] = &[\n    {},\n];",
        names.join(",\n    ")
    );
    Ok(o)
}

// ------------------------------------------------------------------------------------------------ host

fn host_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::String => "String".into(),
        Ty::Bool => "bool".into(),
        Ty::U32 => "u32".into(),
        Ty::U64 => "u64".into(),
        Ty::Enum(name, _) => upper_camel(name),
        Ty::Option(t) => format!("Option<{}>", host_type(t)?),
        Ty::List(t) => format!("Vec<{}>", host_type(t)?),
        // The guest checks a rule; the host passes what it was given.
        Ty::Named(n) if n == RULE => "serde_json::Value".into(),
        other => bail!("the host's redaction options cannot carry {other:?}"),
    })
}

fn host(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "use serde::Serialize;\n");
    for (name, cases, docs) in &s.enums {
        let rust = upper_camel(name);
        rust_doc(&mut o, "", docs);
        let _ = writeln!(
            o,
            "#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]\n#[serde(rename_all = \"kebab-case\")]\npub enum {rust} {{"
        );
        for (case, case_docs) in cases {
            rust_doc(&mut o, "    ", case_docs);
            let _ = writeln!(o, "    {},", upper_camel(case));
        }
        let _ = writeln!(o, "}}\n\nimpl {rust} {{");
        let _ = writeln!(o, "    /// Every case's name, as the JSON spells it.");
        let names: Vec<String> = cases.iter().map(|(c, _)| format!("{c:?}")).collect();
        let _ = writeln!(
            o,
            "    pub const NAMES: &'static [&'static str] = &[{}];\n",
            names.join(", ")
        );
        let _ = writeln!(
            o,
            "    /// The case named `name`.\n    pub fn from_name(name: &str) -> Option<{rust}> {{\n        match name {{"
        );
        for (case, _) in cases {
            let _ = writeln!(
                o,
                "            {case:?} => Some({rust}::{}),",
                upper_camel(case)
            );
        }
        let _ = writeln!(o, "            _ => None,\n        }}\n    }}\n}}\n");
    }
    rust_doc(&mut o, "", &s.options_docs);
    let _ = writeln!(
        o,
        "///\n/// No `Default`: a shell that builds one names every field, so a field added to the WIT does not compile\n/// until the shell passes it (or says it has none to give)."
    );
    let _ = writeln!(
        o,
        "#[derive(Debug, Clone, PartialEq, Serialize)]\npub struct RedactionOptions {{"
    );
    for f in &s.options {
        rust_doc(&mut o, "    ", &f.docs);
        let skip = match f.ty {
            Ty::Option(_) => "Option::is_none",
            _ => "Vec::is_empty",
        };
        let _ = writeln!(
            o,
            "    #[serde(skip_serializing_if = \"{skip}\")]\n    pub {}: {},",
            f.snake(),
            host_type(&f.ty)?
        );
    }
    let _ = writeln!(o, "}}\n");
    let _ = writeln!(
        o,
        "impl RedactionOptions {{\n    /// The JSON text `redact-with` and `redact-json-value` take (what was not given left out).\n    pub fn to_json(&self) -> String {{\n        serde_json::to_string(self).expect(\"strings, numbers and JSON values serialize\")\n    }}\n}}"
    );
    Ok(o)
}

// ---------------------------------------------------------------------------------------------- Python

fn py_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::String => "str".into(),
        Ty::Bool => "bool".into(),
        Ty::U32 | Ty::U64 => "int".into(),
        Ty::Enum(name, _) => upper_camel(name),
        Ty::Option(t) => py_type(t)?,
        Ty::List(t) => format!("Sequence[{}]", py_type(t)?),
        Ty::Named(n) if n == RULE => "ExtraRule".into(),
        other => bail!("Python's redaction options cannot carry {other:?}"),
    })
}

fn py_typed_dict(o: &mut String, name: &str, docs: &[String], fields: &[Field]) -> Result<()> {
    let _ = writeln!(o, "\nclass {name}(TypedDict, total=False):");
    let _ = writeln!(o, "    \"\"\"{}\"\"\"\n", docs.join("\n    "));
    for f in fields {
        py_comment(o, &f.docs);
        let _ = writeln!(o, "    {}: {}", f.snake(), py_type(&f.ty)?);
    }
    let _ = writeln!(o);
    Ok(())
}

fn python(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "# {HEADER}");
    let _ = writeln!(
        o,
        "\"\"\"Redaction options, as ``redaction-options`` in wit/world.wit states them.\"\"\"\n"
    );
    let _ = writeln!(o, "from __future__ import annotations\n");
    let _ = writeln!(o, "import json");
    let _ = writeln!(o, "from collections.abc import Mapping, Sequence");
    let _ = writeln!(o, "from typing import Any, Literal, TypedDict\n");
    let _ = writeln!(o, "from ._errors import ArgumentTypeError\n");
    for (name, cases, docs) in &s.enums {
        for line in docs {
            let _ = writeln!(o, "#: {line}");
        }
        let names: Vec<String> = cases.iter().map(|(c, _)| py_literal(c)).collect();
        let _ = writeln!(o, "{} = Literal[{}]\n", upper_camel(name), names.join(", "));
    }
    py_typed_dict(&mut o, "ExtraRule", &s.rule_docs, &s.rule)?;
    py_typed_dict(&mut o, "RedactionOptions", &s.options_docs, &s.options)?;
    let names: Vec<String> = s.options.iter().map(|f| py_literal(&f.snake())).collect();
    let _ = writeln!(
        o,
        "\n#: The options' names.\nREDACTION_OPTIONS = frozenset(({},))\n",
        names.join(", ")
    );
    let _ = writeln!(o, "{PY_HELPERS}");
    let _ = writeln!(
        o,
        "def _redaction_options_json(options: Mapping[str, Any], what: str) -> str:"
    );
    let _ = writeln!(o, "    \"\"\"``redaction-options`` as the JSON text the component reads: what the caller gave (None: not given), lists\n    as lists; the component checks the values.\"\"\"");
    let _ = writeln!(o, "    unknown = sorted(set(options) - REDACTION_OPTIONS)");
    let _ = writeln!(o, "    if unknown:");
    let _ = writeln!(o, "        raise ArgumentTypeError(f\"{{what}} got an unexpected option {{unknown[0]!r}} (known: {{', '.join(sorted(REDACTION_OPTIONS))}})\")");
    let _ = writeln!(o, "    out: dict[str, Any] = {{}}");
    for f in &s.options {
        let py = f.snake();
        let value = match &f.ty {
            Ty::List(t) if matches!(t.as_ref(), Ty::Named(n) if n == RULE) => {
                format!("[_rule(r, f\"{py}[{{i}}]\") for i, r in enumerate(_items(value, {py:?}))]")
            }
            Ty::List(_) => format!("_items(value, {py:?})"),
            Ty::Option(_) => "value".into(),
            other => bail!("{OPTIONS}.{}: cannot marshal {other:?}", f.name),
        };
        let _ = writeln!(o, "    value = options.get({py:?})");
        let _ = writeln!(o, "    if value is not None:");
        let _ = writeln!(o, "        out[{py:?}] = {value}");
    }
    let _ = writeln!(o, "    try:");
    let _ = writeln!(
        o,
        "        return json.dumps(out, ensure_ascii=False, allow_nan=False, separators=(\",\", \":\"))"
    );
    let _ = writeln!(o, "    except (TypeError, ValueError) as e:");
    let _ = writeln!(
        o,
        "        raise ArgumentTypeError(f\"{{what}}: the options are not JSON-serializable: {{e}}\") from None"
    );
    Ok(o)
}

const PY_HELPERS: &str = r#"
def _items(value: Any, name: str) -> list[Any]:
    """A list option: any iterable but a single string."""
    if isinstance(value, (str, bytes)):
        raise ArgumentTypeError(f"{name} must be a list of strings, not a single string")
    try:
        return list(value)
    except TypeError:
        raise ArgumentTypeError(f"{name} must be a list, not {type(value).__name__}") from None


def _rule(rule: Any, what: str) -> dict[str, Any]:
    """An extra rule: a mapping of its keys (the component checks them)."""
    if not isinstance(rule, Mapping):
        raise ArgumentTypeError(f"{what} must be a mapping, not {type(rule).__name__}")
    return dict(rule)

"#;

// ------------------------------------------------------------------------------------------ TypeScript

fn ts_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::String => "string".into(),
        Ty::Bool => "boolean".into(),
        Ty::U32 | Ty::U64 => "number".into(),
        Ty::Enum(name, _) => upper_camel(name),
        Ty::Option(t) => ts_type(t)?,
        Ty::List(t) => format!("{}[]", ts_type(t)?),
        Ty::Named(n) if n == RULE => "ExtraRule".into(),
        other => bail!("TypeScript's redaction options cannot carry {other:?}"),
    })
}

fn ts_interface(o: &mut String, name: &str, docs: &[String], fields: &[Field]) -> Result<()> {
    ts_doc(o, "", docs);
    let _ = writeln!(o, "export interface {name} {{");
    for f in fields {
        ts_doc(o, "  ", &f.docs);
        let optional = if matches!(f.ty, Ty::Option(_) | Ty::List(_)) {
            "?"
        } else {
            ""
        };
        let _ = writeln!(o, "  {}{optional}: {};", f.camel(), ts_type(&f.ty)?);
    }
    let _ = writeln!(o, "}}\n");
    Ok(())
}

fn ts_keys(o: &mut String, constant: &str, name: &str, fields: &[Field]) {
    let _ = writeln!(
        o,
        "/** {name}'s keys, each as the JSON the guest reads spells it. */\nexport const {constant}: Readonly<Record<keyof {name}, string>> = {{"
    );
    for f in fields {
        let _ = writeln!(o, "  {}: {},", f.camel(), py_literal(&f.snake()));
    }
    let _ = writeln!(o, "}};");
}

fn typescript(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    for (name, cases, docs) in &s.enums {
        ts_doc(&mut o, "", docs);
        let names: Vec<String> = cases.iter().map(|(c, _)| py_literal(c)).collect();
        let _ = writeln!(
            o,
            "export type {} = {};\n",
            upper_camel(name),
            names.join(" | ")
        );
    }
    ts_interface(&mut o, "ExtraRule", &s.rule_docs, &s.rule)?;
    ts_interface(&mut o, "RedactOptions", &s.options_docs, &s.options)?;
    ts_keys(&mut o, "REDACT_OPTION_KEYS", "RedactOptions", &s.options);
    let _ = writeln!(o);
    ts_keys(&mut o, "EXTRA_RULE_KEYS", "ExtraRule", &s.rule);
    Ok(o)
}
