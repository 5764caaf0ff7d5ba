//! A policy file's defaults, generated from the one schema, `policy-defaults` in `interface guard` of
//! `wit/world.wit` (part of `cargo xtask gen`): what `check-policy` answers, as JSON text (snake_case keys in
//! the WIT's order, every key present, null where the file says nothing). One writer, three readers:
//!
//! - the guest (`guest/src/policy/defaults.rs`): `PolicyDefaults` and its `to_json`, the writer (filled from the
//!   document by `policy::compiled::defaults_json`, which names every field);
//! - the host (`host/src/guard/policy_defaults.rs`): `PolicyDefaults` (serde, unknown members refused) and its
//!   `from_json`, which the CLI's `--config` reads;
//! - Python (`_policy_defaults_schema.py`): the `PolicyDefaults` TypedDict `check_policy` returns;
//! - TypeScript (`policy-defaults.ts`): the `PolicyDefaults` interface `checkPolicy` returns (a type only:
//!   nothing at run time).
//!
//! Rules the schema follows (the generator refuses what it cannot carry): every field is an `option` of a
//! `u64` or of an enum (`dialect` among them: its name in the shells).

use crate::guardgen::{py_comment, py_literal, rust_doc, ts_doc, Field, Ty};
use anyhow::{bail, Result};
use std::fmt::Write;

pub const GUEST: &str = "guest/src/policy/defaults.rs";
pub const HOST: &str = "host/src/guard/policy_defaults.rs";
pub const PYTHON: &str = "bindings/python/src/jsonrpc_errors/_policy_defaults_schema.py";
pub const TYPESCRIPT: &str = "bindings/js/src/policy-defaults.ts";

const HEADER: &str =
    "Generated from wit/world.wit (interface `guard`: `policy-defaults`) by `cargo xtask gen`; do not edit.";

const RECORD: &str = "policy-defaults";

struct Schema {
    fields: Vec<Field>,
    docs: Vec<String>,
}

/// What a field holds when the file gives it.
enum Value<'a> {
    U64,
    /// An enum: its WIT name and cases.
    Enum(&'a str, &'a [String]),
}

fn value(f: &Field) -> Result<Value<'_>> {
    match &f.ty {
        Ty::Option(t) => match t.as_ref() {
            Ty::U64 => Ok(Value::U64),
            Ty::Enum(name, cases) => Ok(Value::Enum(name, cases)),
            other => bail!("{RECORD}.{}: cannot carry option<{other:?}>", f.name),
        },
        other => bail!(
            "{RECORD}.{}: a default the file may leave unsaid is an option, not {other:?}",
            f.name
        ),
    }
}

fn schema() -> Result<Schema> {
    let (fields, docs) = crate::guardgen::read_interface("guard", |r| r.record(RECORD))?;
    for f in &fields {
        value(f)?;
        if f.docs.is_empty() {
            bail!(
                "{RECORD}.{}: no doc comment (it is every mirror's documentation)",
                f.name
            );
        }
    }
    Ok(Schema { fields, docs })
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

// ----------------------------------------------------------------------------------------------- guest

fn guest(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "use serde_json::{{Map, Value}};\n");
    rust_doc(&mut o, "", &s.docs);
    let _ = writeln!(
        o,
        "///\n/// An enum by its case's name, borrowed from the document (whose reader checked it).\n#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub struct PolicyDefaults<'a> {{"
    );
    for f in &s.fields {
        rust_doc(&mut o, "    ", &f.docs);
        let ty = match value(f)? {
            Value::U64 => "Option<u64>",
            Value::Enum(..) => "&'a Option<String>",
        };
        let _ = writeln!(o, "    pub {}: {ty},", f.snake());
    }
    let _ = writeln!(o, "}}\n");
    let _ = writeln!(
        o,
        "impl PolicyDefaults<'_> {{\n    /// `check-policy`'s answer: snake_case keys in the WIT's order, every key present, null where the file\n    /// says nothing. Built with `Value::from`, not `json!`, whose `to_value(..).unwrap()` would add a panic\n    /// location to the npm modules; inlined into its one caller for their size budgets.\n    #[inline]\n    pub fn to_json(&self) -> String {{\n        let mut members = Map::new();"
    );
    for f in &s.fields {
        let value = match value(f)? {
            Value::U64 => format!("self.{}", f.snake()),
            Value::Enum(..) => format!("self.{}.as_deref()", f.snake()),
        };
        let _ = writeln!(
            o,
            "        members.insert({:?}.into(), Value::from({value}));",
            f.snake()
        );
    }
    let _ = writeln!(o, "        Value::Object(members).to_string()\n    }}\n}}");
    crate::recordgen::rustfmt(&o)
}

// ------------------------------------------------------------------------------------------------ host

fn host(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "use serde::{{Deserialize, Serialize}};\n");
    rust_doc(&mut o, "", &s.docs);
    let _ = writeln!(
        o,
        "///\n/// An enum by its case's name. `Default`: a file that says nothing (or no file).\n#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]\n#[serde(deny_unknown_fields)]\npub struct PolicyDefaults {{"
    );
    for f in &s.fields {
        rust_doc(&mut o, "    ", &f.docs);
        let ty = match value(f)? {
            Value::U64 => "Option<u64>",
            Value::Enum(..) => "Option<String>",
        };
        let _ = writeln!(o, "    pub {}: {ty},", f.snake());
    }
    let _ = writeln!(o, "}}\n");
    let _ = writeln!(
        o,
        "impl PolicyDefaults {{\n    /// `check-policy`'s answer read; a member this record does not know is refused.\n    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {{\n        serde_json::from_str(text)\n    }}\n}}"
    );
    Ok(o)
}

// ---------------------------------------------------------------------------------------------- Python

fn python(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "# {HEADER}");
    let _ = writeln!(
        o,
        "\"\"\"A policy file's defaults, as ``policy-defaults`` in wit/world.wit states them.\"\"\"\n"
    );
    let _ = writeln!(o, "from __future__ import annotations\n");
    let _ = writeln!(o, "from typing import Literal, Optional, TypedDict\n");
    let _ = writeln!(o, "\nclass PolicyDefaults(TypedDict):");
    let _ = writeln!(
        o,
        "    \"\"\"What ``check_policy`` returns.\n\n    {}\"\"\"\n",
        s.docs.join("\n    ")
    );
    for f in &s.fields {
        py_comment(&mut o, &f.docs);
        let ty = match value(f)? {
            Value::U64 => "int".to_string(),
            Value::Enum("dialect", _) => "str".to_string(),
            Value::Enum(_, cases) => format!(
                "Literal[{}]",
                cases
                    .iter()
                    .map(|c| py_literal(c))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let _ = writeln!(o, "    {}: Optional[{ty}]", f.snake());
    }
    Ok(o)
}

// ------------------------------------------------------------------------------------------ TypeScript

fn typescript(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "import type {{ Dialect }} from \"./taxonomy.js\";\n");
    let mut docs = s.docs.clone();
    docs.push(String::new());
    docs.push("What `checkPolicy` returns (snake_case keys, as the component writes them).".into());
    ts_doc(&mut o, "", &docs);
    let _ = writeln!(o, "export interface PolicyDefaults {{");
    for f in &s.fields {
        ts_doc(&mut o, "  ", &f.docs);
        let ty = match value(f)? {
            Value::U64 => "number".to_string(),
            Value::Enum("dialect", _) => "Dialect".to_string(),
            Value::Enum(_, cases) => cases
                .iter()
                .map(|c| py_literal(c))
                .collect::<Vec<_>>()
                .join(" | "),
        };
        let _ = writeln!(o, "  {}: {ty} | null;", f.snake());
    }
    let _ = writeln!(o, "}}");
    Ok(o)
}
