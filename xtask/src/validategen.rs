//! Validate options, generated from the one schema, `validate-options` in `interface types` of
//! `wit/world.wit` (part of `cargo xtask gen`). Unlike the redaction options, the record crosses the boundary
//! typed (`validate`, `validate-text`), so each shell's mirror is what its callers fill in:
//!
//! - the guest (`guest/src/validate_args.rs`): `ValidateArgs`, what every runtime's call hands
//!   `api::validate` (enums by name), and its `Default`; `from_wit`, for the component's export, in a child
//!   of the component (`guest/src/component/validate_options.rs`), the one module that names its bindings;
//! - the host (`host/src/validate_options.rs`): `ValidateOptions` with its `Default` (each field's default
//!   as the WIT states it), `to_wit`, the WIT record (the dialect's name read by the runtime's check), and
//!   `to_wit_for_body`, the record for a body, withheld when oversize (as every shell does: Python's
//!   `_validate_record_for_body`, TypeScript's `validateRecordJson`);
//! - Python (`_validate_schema.py`): the `ValidateOptions` TypedDict (the keyword options of `validate` and
//!   `validate_json`) and `_validate_record`, which checks each option and lays them out in the WIT's order;
//! - TypeScript (`validate-schema.ts`): the `ValidateFields` interface (`ValidateOptions` less the call
//!   context) and `VALIDATE_OPTION_KEYS`, its camelCase keys → the WIT's snake_case names; and
//!   (`validate-record.ts`) `validateRecordJson`, the record as the npm module's glue takes it.
//!
//! Rules the schema follows (the generator refuses what it cannot carry): a field is an `option<T>`, or an
//! enum (`dialect` among them) whose doc states its default case (`Default: `case`.`).

use crate::guardgen::{py_comment, py_literal, rust_doc, ts_doc, upper_camel, Field, Ty};
use anyhow::{anyhow, bail, Result};
use std::fmt::Write;

pub const GUEST: &str = "guest/src/validate_args.rs";
pub const GUEST_WIT: &str = "guest/src/component/validate_options.rs";
pub const HOST: &str = "host/src/validate_options.rs";
pub const PYTHON: &str = "bindings/python/src/jsonrpc_errors/_validate_schema.py";
pub const TYPESCRIPT: &str = "bindings/js/src/validate-schema.ts";
pub const TYPESCRIPT_RECORD: &str = "bindings/js/src/validate-record.ts";

const HEADER: &str =
    "Generated from wit/world.wit (interface `types`: `validate-options`) by `cargo xtask gen`; do not edit.";

const OPTIONS: &str = "validate-options";

struct Schema {
    fields: Vec<Field>,
    docs: Vec<String>,
}

fn schema() -> Result<Schema> {
    let (fields, docs) = crate::recordgen::read_types(|reader| reader.record(OPTIONS))?;
    for f in &fields {
        match &f.ty {
            Ty::Option(t) if matches!(t.as_ref(), Ty::U64 | Ty::String) => {}
            Ty::Enum(..) => {
                default_case(f)?;
            }
            other => bail!("{OPTIONS}.{}: cannot carry {other:?}", f.name),
        }
    }
    Ok(Schema { fields, docs })
}

/// The default case an enum field states (`Default: `case`.`), one of its cases.
fn default_case(f: &Field) -> Result<String> {
    crate::recordgen::enum_default(OPTIONS, f)?
        .ok_or_else(|| anyhow!("{OPTIONS}.{} is no enum: it states no default case", f.name))
}

fn is_dialect(ty: &Ty) -> bool {
    matches!(ty, Ty::Enum(name, _) if name == "dialect")
}

/// The two fields every shell's rule for an oversize body names (`max-bytes`, its limit; `content-length`,
/// which tells the component the length of a body withheld from it): generated, so that no shell names them.
fn oversize_fields(s: &Schema) -> Result<(&Field, &Field)> {
    let field = |name: &str| {
        s.fields
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| anyhow!("{OPTIONS} has no `{name}`: the shells' oversize rule needs it"))
    };
    Ok((field("max-bytes")?, field("content-length")?))
}

/// (path relative to the repository root, content) of every generated mirror.
pub fn generated_files() -> Result<Vec<(&'static str, String)>> {
    let s = schema()?;
    Ok(vec![
        (GUEST, guest(&s)?),
        (GUEST_WIT, guest_wit(&s)?),
        (HOST, host(&s)?),
        (PYTHON, python(&s)?),
        (TYPESCRIPT, typescript(&s)?),
        (TYPESCRIPT_RECORD, ts_record_json(&s)?),
    ])
}

// ----------------------------------------------------------------------------------------------- guest

fn guest_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::Enum(..) | Ty::String => "&'a str".into(),
        Ty::U64 => "u64".into(),
        Ty::Option(t) => format!("Option<{}>", guest_type(t)?),
        other => bail!("the guest's validate args cannot carry {other:?}"),
    })
}

fn guest(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(
        o,
        "use crate::error::ErrorObject;\nuse serde_json::Value;\n"
    );
    rust_doc(&mut o, "", &s.docs);
    if !s.docs.is_empty() {
        let _ = writeln!(o, "///");
    }
    let _ = writeln!(
        o,
        "/// As every runtime hands it to `api::validate`: an enum by its case's name (the guest checks it)."
    );
    let _ = writeln!(
        o,
        "#[derive(Debug, Clone, Copy)]\npub struct ValidateArgs<'a> {{"
    );
    for f in &s.fields {
        rust_doc(&mut o, "    ", &f.docs);
        let _ = writeln!(o, "    pub {}: {},", f.snake(), guest_type(&f.ty)?);
    }
    let _ = writeln!(o, "}}\n");
    let _ = writeln!(
        o,
        "impl Default for ValidateArgs<'_> {{\n    fn default() -> Self {{\n        ValidateArgs {{"
    );
    for f in &s.fields {
        let value = match &f.ty {
            Ty::Option(_) => "None".to_string(),
            _ => format!("{:?}", default_case(f)?),
        };
        let _ = writeln!(o, "            {}: {value},", f.snake());
    }
    let _ = writeln!(o, "        }}\n    }}\n}}\n");
    guest_json_reader(&mut o, s)?;
    Ok(o)
}

/// `ValidateArgs::from_json`: the record as JSON (snake_case keys), as the npm module's glue passes it. Read by
/// hand rather than derived, as `SessionArgs::from_json` is: a derived reader adds to the npm module.
fn guest_json_reader(o: &mut String, s: &Schema) -> Result<()> {
    let _ = writeln!(
        o,
        "impl<'a> ValidateArgs<'a> {{\n    /// The record as JSON (snake_case keys: the npm module's glue): a member not given, or null, keeps its\n    /// default; an unknown or ill-typed member is refused with -32602 (`data.reason` \"invalid-options\",\n    /// `data.details` naming it, never its value).\n    pub fn from_json(json: &'a Value) -> Result<Self, ErrorObject> {{"
    );
    let _ = writeln!(
        o,
        "        let refuse = |details: String| ErrorObject::invalid_params(\"invalid-options\", &details);"
    );
    let _ = writeln!(
        o,
        "        let Value::Object(members) = json else {{\n            return Err(refuse(\n                \"options must be {OPTIONS} as a JSON object\".into(),\n            ));\n        }};"
    );
    let _ = writeln!(o, "        let mut args = ValidateArgs::default();");
    let _ = writeln!(o, "        for (name, value) in members {{");
    let _ = writeln!(
        o,
        "            if value.is_null() {{\n                continue;\n            }}"
    );
    let _ = writeln!(o, "            let read = match name.as_str() {{");
    for f in &s.fields {
        let read = match &f.ty {
            Ty::Option(t) if **t == Ty::U64 => {
                format!("value.as_u64().map(|v| args.{} = Some(v))", f.snake())
            }
            Ty::Option(_) => format!("value.as_str().map(|v| args.{} = Some(v))", f.snake()),
            Ty::Enum(..) => format!("value.as_str().map(|v| args.{} = v)", f.snake()),
            other => bail!("{OPTIONS}.{}: cannot read {other:?} from JSON", f.name),
        };
        let _ = writeln!(o, "                {:?} => {read},", f.snake());
    }
    let _ = writeln!(
        o,
        "                _ => return Err(refuse(format!(\"unknown option `{{name}}`\"))),\n            }};"
    );
    let _ = writeln!(
        o,
        "            if read.is_none() {{\n                return Err(refuse(format!(\"option `{{name}}` has the wrong type\")));\n            }}\n        }}\n        Ok(args)\n    }}\n}}"
    );
    Ok(())
}

/// The component's conversion, a child of `component.rs` (whose WIT bindings it names): `validate_args.rs`
/// names nothing of the component's, so that `api` (which the component calls) does not import it back.
fn guest_wit(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "use super::exports::jsonrpc_errors::core::types as wit;");
    let _ = writeln!(o, "use crate::validate_args::ValidateArgs;\n");
    let _ = writeln!(
        o,
        "impl<'a> ValidateArgs<'a> {{\n    /// The component's WIT record, `dialect` being its dialect's name.\n    pub(crate) fn from_wit(options: &'a wit::ValidateOptions, dialect: &'a str) -> Self {{"
    );
    let _ = writeln!(o, "        ValidateArgs {{");
    for f in &s.fields {
        let value = match &f.ty {
            ty if is_dialect(ty) => {
                let _ = writeln!(o, "            {},", f.snake());
                continue;
            }
            Ty::Enum(name, cases) => {
                let arms: Vec<String> = cases
                    .iter()
                    .map(|c| format!("wit::{}::{} => {c:?}", upper_camel(name), upper_camel(c)))
                    .collect();
                format!(
                    "match options.{} {{\n                {},\n            }}",
                    f.snake(),
                    arms.join(",\n                ")
                )
            }
            Ty::Option(t) if **t == Ty::String => format!("options.{}.as_deref()", f.snake()),
            _ => format!("options.{}", f.snake()),
        };
        let _ = writeln!(o, "            {}: {value},", f.snake());
    }
    let _ = writeln!(o, "        }}\n    }}\n}}");
    Ok(o)
}

// ------------------------------------------------------------------------------------------------ host

fn host_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        _ if is_dialect(ty) => "String".into(),
        Ty::String => "String".into(),
        Ty::U64 => "u64".into(),
        Ty::Enum(name, _) => format!("wit::{}", upper_camel(name)),
        Ty::Option(t) => format!("Option<{}>", host_type(t)?),
        other => bail!("the host's validate options cannot carry {other:?}"),
    })
}

fn host(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(
        o,
        "use crate::bindings::exports::jsonrpc_errors::core::kinds::Dialect;"
    );
    let _ = writeln!(
        o,
        "use crate::bindings::exports::jsonrpc_errors::core::types as wit;\n"
    );
    rust_doc(&mut o, "", &s.docs);
    if !s.docs.is_empty() {
        let _ = writeln!(o, "///");
    }
    let _ = writeln!(
        o,
        "/// A shell that builds one names every field or takes the rest from `Default` (each field's default as the\n/// WIT states it)."
    );
    let _ = writeln!(o, "#[derive(Debug, Clone)]\npub struct ValidateOptions {{");
    for f in &s.fields {
        rust_doc(&mut o, "    ", &f.docs);
        let _ = writeln!(o, "    pub {}: {},", f.snake(), host_type(&f.ty)?);
    }
    let _ = writeln!(o, "}}\n");
    let _ = writeln!(
        o,
        "impl Default for ValidateOptions {{\n    fn default() -> Self {{\n        ValidateOptions {{"
    );
    for f in &s.fields {
        let value = match &f.ty {
            Ty::Option(_) => "None".to_string(),
            ty if is_dialect(ty) => format!("{:?}.into()", default_case(f)?),
            Ty::Enum(name, _) => format!(
                "wit::{}::{}",
                upper_camel(name),
                upper_camel(&default_case(f)?)
            ),
            other => bail!("{OPTIONS}.{}: no default for {other:?}", f.name),
        };
        let _ = writeln!(o, "            {}: {value},", f.snake());
    }
    let _ = writeln!(o, "        }}\n    }}\n}}\n");
    let _ = writeln!(
        o,
        "impl ValidateOptions {{\n    /// The WIT record, the dialect's name read by `dialect`: the runtime's check, which refuses a name outside\n    /// the dialect enum with the guest's own error (the record cannot carry it).\n    pub(crate) fn to_wit<E>(\n        &self,\n        dialect: impl FnOnce(&str) -> Result<Dialect, E>,\n    ) -> Result<wit::ValidateOptions, E> {{\n        Ok(wit::ValidateOptions {{"
    );
    for f in &s.fields {
        let value = match &f.ty {
            ty if is_dialect(ty) => format!("dialect(&self.{})?", f.snake()),
            Ty::Option(t) if **t == Ty::String => format!("self.{}.clone()", f.snake()),
            _ => format!("self.{}", f.snake()),
        };
        let _ = writeln!(o, "            {}: {value},", f.snake());
    }
    let _ = writeln!(o, "        }})\n    }}\n");
    let (max_bytes, content_length) = oversize_fields(s)?;
    let _ = writeln!(
        o,
        "    /// The WIT record for a body of `len` bytes, and whether the body is withheld: one over\n    /// `{mb}` (else `DEFAULT_MAX_BYTES`) or over `max_input` never enters wasm;\n    /// `{cl}` tells the component its length instead, so that it answers it unread.\n    pub(crate) fn to_wit_for_body<E>(\n        &self,\n        dialect: impl FnOnce(&str) -> Result<Dialect, E>,\n        len: usize,\n        max_input: usize,\n    ) -> Result<(wit::ValidateOptions, bool), E> {{\n        let limit = self.{mb}.unwrap_or(crate::taxonomy::DEFAULT_MAX_BYTES);\n        let withhold = len as u64 > limit || len > max_input;\n        let mut record = self.to_wit(dialect)?;\n        if withhold {{\n            record.{cl} = Some(len as u64);\n        }}\n        Ok((record, withhold))\n    }}\n}}",
        mb = max_bytes.snake(),
        cl = content_length.snake(),
    );
    Ok(o)
}

// ---------------------------------------------------------------------------------------------- Python

fn py_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        _ if is_dialect(ty) => "Union[str, Dialect]".into(),
        Ty::String => "str".into(),
        Ty::U64 => "int".into(),
        Ty::Enum(name, _) => upper_camel(name),
        Ty::Option(t) => format!("Optional[{}]", py_type(t)?),
        other => bail!("Python's validate options cannot carry {other:?}"),
    })
}

fn python(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "# {HEADER}");
    let _ = writeln!(
        o,
        "\"\"\"Validate options, as ``validate-options`` in wit/world.wit states them.\"\"\"\n"
    );
    let _ = writeln!(o, "from __future__ import annotations\n");
    let _ = writeln!(o, "from collections.abc import Mapping");
    let _ = writeln!(
        o,
        "from typing import Any, Literal, Optional, TypedDict, Union\n"
    );
    let _ = writeln!(o, "from ._args import _dialect, _text, _u64");
    let _ = writeln!(
        o,
        "from ._errors import ArgumentTypeError, JsonRpcErrorsValueError"
    );
    let _ = writeln!(o, "from ._taxonomy import DEFAULT_MAX_BYTES, Dialect\n");
    let mut enums: Vec<(&str, &Vec<String>)> = Vec::new();
    for f in &s.fields {
        if let Ty::Enum(name, cases) = &f.ty {
            if !is_dialect(&f.ty) && !enums.iter().any(|(n, _)| n == name) {
                enums.push((name, cases));
            }
        }
    }
    for (name, cases) in &enums {
        let names: Vec<String> = cases.iter().map(|c| py_literal(c)).collect();
        let _ = writeln!(o, "{} = Literal[{}]\n", upper_camel(name), names.join(", "));
    }
    let _ = writeln!(o, "\nclass ValidateOptions(TypedDict, total=False):");
    let _ = writeln!(
        o,
        "    \"\"\"The keyword options of ``validate`` and ``validate_json``.{}\"\"\"\n",
        if s.docs.is_empty() {
            String::new()
        } else {
            format!(" {}", s.docs.join("\n    "))
        }
    );
    for f in &s.fields {
        let mut docs = f.docs.clone();
        if let Ty::Enum(..) = f.ty {
            if !docs.iter().any(|d| d.contains("Default: `")) {
                docs.push(format!("Default: `{}`.", default_case(f)?));
            }
        }
        py_comment(&mut o, &docs);
        let _ = writeln!(o, "    {}: {}", f.snake(), py_type(&f.ty)?);
    }
    let names: Vec<String> = s.fields.iter().map(|f| py_literal(&f.snake())).collect();
    let _ = writeln!(
        o,
        "\n\n#: The options' names.\nVALIDATE_OPTIONS = frozenset(({},))\n",
        names.join(", ")
    );
    let _ = writeln!(
        o,
        "\ndef _validate_record(options: Mapping[str, Any], what: str) -> tuple[Any, ...]:"
    );
    let _ = writeln!(
        o,
        "    \"\"\"``validate-options`` for the component, in the WIT's field order: each option checked (None or\n    absent: not given, or its default).\"\"\""
    );
    let _ = writeln!(o, "    unknown = sorted(set(options) - VALIDATE_OPTIONS)");
    let _ = writeln!(o, "    if unknown:");
    let _ = writeln!(o, "        raise ArgumentTypeError(f\"{{what}} got an unexpected option {{unknown[0]!r}} (known: {{', '.join(sorted(VALIDATE_OPTIONS))}})\")");
    let mut out = Vec::new();
    for f in &s.fields {
        let py = f.snake();
        let _ = writeln!(o, "    {py} = options.get({py:?})");
        match &f.ty {
            ty if is_dialect(ty) => {
                let d = default_case(f)?;
                let _ = writeln!(
                    o,
                    "    {py}_value = _dialect({d:?} if {py} is None else {py})"
                );
            }
            Ty::Enum(_, cases) => {
                let d = default_case(f)?;
                let list: Vec<String> = cases.iter().map(|c| py_literal(c)).collect();
                let words: Vec<String> = cases.iter().map(|c| format!("'{c}'")).collect();
                let _ = writeln!(o, "    if {py} is None:\n        {py} = {d:?}");
                let _ = writeln!(o, "    if {py} not in ({},):", list.join(", "));
                let _ = writeln!(
                    o,
                    "        raise JsonRpcErrorsValueError(f\"{py} must be {}, not {{{py}!r}}\")",
                    words.join(" or ")
                );
                let _ = writeln!(o, "    {py}_value = {py}.encode()");
            }
            Ty::Option(t) if **t == Ty::U64 => {
                let _ = writeln!(
                    o,
                    "    {py}_value = None if {py} is None else _u64({py}, {py:?})"
                );
            }
            Ty::Option(_) => {
                let _ = writeln!(
                    o,
                    "    {py}_value = None if {py} is None else _text({py}, {py:?})"
                );
            }
            other => bail!("{OPTIONS}.{}: cannot marshal {other:?}", f.name),
        }
        out.push(format!("{py}_value"));
    }
    let _ = writeln!(o, "    return ({},)", out.join(", "));
    let (max_bytes, content_length) = oversize_fields(s)?;
    let (mb, cl) = (max_bytes.snake(), content_length.snake());
    let _ = writeln!(
        o,
        "\n\ndef _validate_record_for_body(\n    options: Mapping[str, Any], what: str, length: int, max_input: int\n) -> tuple[tuple[Any, ...], bool]:\n    \"\"\"``_validate_record`` for a body of ``length`` bytes, and whether the body is withheld: one over\n    ``{mb}`` (else ``DEFAULT_MAX_BYTES``) or over ``max_input`` does not enter wasm;\n    ``{cl}`` tells the component its length instead, so that it answers it unread.\"\"\"\n    record = _validate_record(options, what)\n    limit = options.get({mb:?})\n    if length <= min(DEFAULT_MAX_BYTES if limit is None else limit, max_input):\n        return record, False\n    return _validate_record({{**options, {cl:?}: length}}, what), True"
    );
    Ok(o)
}

// ------------------------------------------------------------------------------------------ TypeScript

fn ts_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        _ if is_dialect(ty) => "Dialect".into(),
        Ty::String => "string".into(),
        Ty::U64 => "number".into(),
        Ty::Enum(name, _) => upper_camel(name),
        Ty::Option(t) => ts_type(t)?,
        other => bail!("TypeScript's validate options cannot carry {other:?}"),
    })
}

fn typescript(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "import type {{ Dialect }} from \"./taxonomy.js\";\n");
    let mut seen: Vec<&str> = Vec::new();
    for f in &s.fields {
        if let Ty::Enum(name, cases) = &f.ty {
            if is_dialect(&f.ty) || seen.contains(&name.as_str()) {
                continue;
            }
            seen.push(name);
            let names: Vec<String> = cases.iter().map(|c| py_literal(c)).collect();
            let _ = writeln!(
                o,
                "export type {} = {};\n",
                upper_camel(name),
                names.join(" | ")
            );
        }
    }
    let mut docs = s.docs.clone();
    docs.push("`validate`'s options but the call context.".into());
    ts_doc(&mut o, "", &docs);
    let _ = writeln!(o, "export interface ValidateFields {{");
    for f in &s.fields {
        let mut docs = f.docs.clone();
        if let Ty::Enum(..) = f.ty {
            if !docs.iter().any(|d| d.contains("Default: `")) {
                docs.push(format!("Default: `{}`.", default_case(f)?));
            }
        }
        ts_doc(&mut o, "  ", &docs);
        let _ = writeln!(o, "  {}?: {};", f.camel(), ts_type(&f.ty)?);
    }
    let _ = writeln!(o, "}}\n");
    let _ = writeln!(
        o,
        "/** ValidateFields' keys, each as the WIT's record spells it (snake_case). */\nexport const VALIDATE_OPTION_KEYS: Readonly<Record<keyof ValidateFields, string>> = {{"
    );
    for f in &s.fields {
        let _ = writeln!(o, "  {}: {},", f.camel(), py_literal(&f.snake()));
    }
    let _ = writeln!(o, "}};");
    Ok(o)
}

/// `validate-record.ts`, `validateRecordJson`: the record as the npm module's glue takes it (JSON text,
/// snake_case keys), each option checked, and the rule for a body over its limit (refused unread: the
/// `content-length` sent is its length), so that `api.ts` names no field. A file of its own: the types of
/// `validate-schema.ts` are imported by `types.ts`, which `errors.ts` (imported here) imports.
fn ts_record_json(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let o = &mut o;
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "import {{ ArgumentTypeError }} from \"./errors.js\";");
    let _ = writeln!(o, "import {{ checkedText }} from \"./runtime.js\";");
    let _ = writeln!(o, "import {{ DEFAULT_MAX_BYTES }} from \"./taxonomy.js\";");
    let _ = writeln!(
        o,
        "import type {{ ValidateFields }} from \"./validate-schema.js\";"
    );
    let (max_bytes, content_length) = oversize_fields(s)?;
    let _ = writeln!(
        o,
        "\nfunction u64(value: unknown, what: string): number {{\n  if (typeof value !== \"number\" || !Number.isSafeInteger(value) || value < 0) {{\n    throw new ArgumentTypeError(`${{what}} must be a non-negative safe integer`);\n  }}\n  return value;\n}}"
    );
    let _ = writeln!(
        o,
        "\nfunction text(value: unknown, what: string): string {{\n  if (typeof value !== \"string\") throw new ArgumentTypeError(`${{what}} must be a string, not ${{typeof value}}`);\n  return checkedText(value);\n}}"
    );
    let _ = writeln!(
        o,
        "\n/**\n * `options` as the component's record, JSON text with snake_case keys: each option checked (undefined or null:\n * not given, or its default). A body of `length` bytes over its limit (`{mb}`, else `DEFAULT_MAX_BYTES`; never\n * over `maxInput`) is `withheld`: it does not enter wasm, and `{cl}` says its length, so that the component\n * answers it unread.\n */\nexport function validateRecordJson(options: ValidateFields, length: number, maxInput: number): {{ json: string; withheld: boolean }} {{\n  const record: Record<string, unknown> = {{}};",
        mb = max_bytes.camel(),
        cl = content_length.camel(),
    );
    for f in &s.fields {
        let check = match &f.ty {
            Ty::Option(t) if **t == Ty::U64 => "u64",
            Ty::Option(t) if **t == Ty::String => "text",
            Ty::Enum(..) => "text",
            other => bail!("{OPTIONS}.{}: cannot check {other:?} in TypeScript", f.name),
        };
        let (camel, snake) = (f.camel(), f.snake());
        let _ = writeln!(
            o,
            "  if (options.{camel} !== undefined && options.{camel} !== null) record.{snake} = {check}(options.{camel}, {camel:?});"
        );
    }
    let _ = writeln!(
        o,
        "  const withheld = length > Math.min((record.{mb} as number | undefined) ?? DEFAULT_MAX_BYTES, maxInput);\n  if (withheld) record.{cl} = length;\n  return {{ json: JSON.stringify(record), withheld }};\n}}",
        mb = max_bytes.snake(),
        cl = content_length.snake(),
    );
    Ok(o.clone())
}
