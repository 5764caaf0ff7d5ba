//! Why the upstream failed, generated from `interface guard` in `wit/world.wit` (part of `cargo xtask gen`):
//! the variants `upstream-failure` (what `upstream-failed` takes) and `request-failure`
//! (`upstream-request-failed`), and the records their cases carry (`http-refusal`). Each side gets its mirror:
//!
//! - the guest (`guest/src/guard/failures.rs`): the enums the session takes, and `from_json`, which reads
//!   the JSON the npm module's glue is handed (a case without a payload as its name, `"closed-output"`; one
//!   with a payload as an object of one member, `{"exited": 3}`; a record's fields in snake_case);
//!   and the component's records made them (`guest/src/component/failures.rs`: `From` the bindings' types);
//! - Python (`_failure_schema.py`): each variant as a `Union` of `("case", payload)` tuples and bare
//!   `"case"` names, each record as a TypedDict, and the function that checks one and builds what
//!   wasmtime-py lowers (a `Variant`, or the payload alone for a variant wasmtime-py reads untagged);
//! - TypeScript (`failure-schema.ts`): each variant as a union of `{caseName: payload}` objects and bare
//!   `"case"` names, each record as an interface (camelCase), and the function that checks one and writes
//!   the guest's JSON.
//!
//! The host needs no mirror: it re-exports wasmtime's bindings of them (`host/src/guard.rs`); it gets only
//! each case's name as the WIT spells it (`host/src/guard/failure_cases.rs`: `case_name`, a metric's label).

use crate::guardgen::{py_literal, upper_camel, Field, Reader, Ty};
use crate::recordgen::rustfmt;
use anyhow::{anyhow, bail, Result};
use std::fmt::Write;
use wit_parser::{Type, TypeDefKind};

pub const GUEST: &str = "guest/src/guard/failures.rs";
pub const GUEST_WIT: &str = "guest/src/component/failures.rs";
pub const HOST: &str = "host/src/guard/failure_cases.rs";
pub const PYTHON: &str = "bindings/python/src/jsonrpc_errors/_failure_schema.py";
pub const TYPESCRIPT: &str = "bindings/js/src/failure-schema.ts";

/// The variants generated, by WIT name (the records their cases carry come with them).
const VARIANTS: [&str; 2] = ["upstream-failure", "request-failure"];

const HEADER: &str =
    "Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.";

struct Case {
    /// kebab-case, as in the WIT.
    name: String,
    payload: Option<Ty>,
    docs: Vec<String>,
}

struct Variant {
    name: String,
    docs: Vec<String>,
    cases: Vec<Case>,
}

struct Record {
    name: String,
    docs: Vec<String>,
    fields: Vec<Field>,
}

struct Schema {
    variants: Vec<Variant>,
    records: Vec<Record>,
}

impl Schema {
    fn record(&self, name: &str) -> Result<&Record> {
        self.records
            .iter()
            .find(|r| r.name == name)
            .ok_or_else(|| anyhow!("no record {name}"))
    }
}

fn schema() -> Result<Schema> {
    crate::guardgen::read_interface("guard", |reader| {
        let mut variants = Vec::new();
        let mut records: Vec<Record> = Vec::new();
        for name in VARIANTS {
            let variant = read_variant(reader, name)?;
            for case in &variant.cases {
                if let Some(Ty::Named(record)) = &case.payload {
                    if !records.iter().any(|r| r.name == *record) {
                        let (fields, docs) = reader.record(record)?;
                        records.push(Record {
                            name: record.clone(),
                            docs,
                            fields,
                        });
                    }
                }
            }
            variants.push(variant);
        }
        Ok(Schema { variants, records })
    })
}

fn read_variant(reader: &mut Reader<'_>, name: &str) -> Result<Variant> {
    let id = *reader
        .iface
        .types
        .get(name)
        .ok_or_else(|| anyhow!("interface guard has no type {name}"))?;
    let def = &reader.resolve.types[id];
    let TypeDefKind::Variant(v) = &def.kind else {
        bail!("{name} is not a variant");
    };
    let docs = crate::guardgen::doc_lines(&def.docs);
    let cases: Vec<(String, Option<Type>, Vec<String>)> = v
        .cases
        .iter()
        .map(|c| (c.name.clone(), c.ty, crate::guardgen::doc_lines(&c.docs)))
        .collect();
    let mut out = Vec::new();
    for (case, ty, docs) in cases {
        let payload = ty.map(|t| reader.ty(&t)).transpose()?;
        match &payload {
            None | Some(Ty::String | Ty::S32 | Ty::U16 | Ty::U32 | Ty::U64 | Ty::Named(_)) => {}
            Some(other) => bail!("{name}.{case}: a failure cannot carry {other:?}"),
        }
        out.push(Case {
            name: case,
            payload,
            docs,
        });
    }
    Ok(Variant {
        name: name.into(),
        docs,
        cases: out,
    })
}

/// (path relative to the repository root, content) of every generated mirror.
pub fn generated_files() -> Result<Vec<(&'static str, String)>> {
    let s = schema()?;
    Ok(vec![
        (GUEST, guest(&s)?),
        (GUEST_WIT, guest_from_wit(&s)?),
        (HOST, host(&s)?),
        (PYTHON, python(&s)?),
        (TYPESCRIPT, typescript(&s)?),
    ])
}

/// The integer bounds of a scalar field (inclusive), as text in each language's own literal.
fn int_range(ty: &Ty) -> Option<(&'static str, &'static str)> {
    match ty {
        Ty::S32 => Some(("-2147483648", "2147483647")),
        Ty::U16 => Some(("0", "65535")),
        Ty::U32 => Some(("0", "4294967295")),
        Ty::U64 => Some(("0", "18446744073709551615")),
        _ => None,
    }
}

// ----------------------------------------------------------------------------------------------- guest

fn rust_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::String => "String".into(),
        Ty::S32 => "i32".into(),
        Ty::U16 => "u16".into(),
        Ty::U32 => "u32".into(),
        Ty::U64 => "u64".into(),
        Ty::Option(t) => format!("Option<{}>", rust_type(t)?),
        other => bail!("a failure's field cannot be {other:?}"),
    })
}

/// The expression that reads `v` (a `Value`) as `ty`: an `Option` of it, None when ill-typed.
fn rust_reader(ty: &Ty, v: &str) -> Result<String> {
    Ok(match ty {
        Ty::String => format!("{v}.as_str().map(String::from)"),
        Ty::S32 => format!("{v}.as_i64().and_then(|n| i32::try_from(n).ok())"),
        Ty::U16 => format!("{v}.as_u64().and_then(|n| u16::try_from(n).ok())"),
        Ty::U32 => format!("{v}.as_u64().and_then(|n| u32::try_from(n).ok())"),
        Ty::U64 => format!("{v}.as_u64()"),
        other => bail!("a failure's field cannot be {other:?}"),
    })
}

fn guest(s: &Schema) -> Result<String> {
    use crate::guardgen::rust_doc;
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "//! Why the upstream failed, as the session takes it. A case that carries a record holds its fields.\n");
    let _ = writeln!(
        o,
        "use crate::error::ErrorObject;\nuse serde_json::Value;\n"
    );
    for v in &s.variants {
        let rust = upper_camel(&v.name);
        rust_doc(&mut o, "", &v.docs);
        let _ = writeln!(
            o,
            "#[derive(Debug, Clone, PartialEq, Eq)]\npub enum {rust} {{"
        );
        for c in &v.cases {
            rust_doc(&mut o, "    ", &c.docs);
            match &c.payload {
                None => {
                    let _ = writeln!(o, "    {},", upper_camel(&c.name));
                }
                Some(Ty::Named(record)) => {
                    let r = s.record(record)?;
                    if !c.docs.is_empty() && !r.docs.is_empty() {
                        let _ = writeln!(o, "    ///");
                    }
                    rust_doc(&mut o, "    ", &r.docs);
                    let _ = writeln!(o, "    {} {{", upper_camel(&c.name));
                    for f in &r.fields {
                        rust_doc(&mut o, "        ", &f.docs);
                        let _ = writeln!(o, "        {}: {},", f.snake(), rust_type(&f.ty)?);
                    }
                    let _ = writeln!(o, "    }},");
                }
                Some(t) => {
                    let _ = writeln!(o, "    {}({}),", upper_camel(&c.name), rust_type(t)?);
                }
            }
        }
        let _ = writeln!(o, "}}\n");
        let _ = writeln!(o, "impl {rust} {{");
        let _ = writeln!(o, "    /// Reads `{}` as JSON (the npm module's glue): a case without a payload as its name, one with a\n    /// payload as an object of one member named after the case, a record's fields in snake_case (an optional\n    /// one absent or null when none; others are not read). Anything else is refused with -32602 (`data.reason` \"invalid-failure\").", v.name);
        let _ = writeln!(
            o,
            "    pub fn from_json(text: &str) -> Result<{rust}, ErrorObject> {{"
        );
        let _ = writeln!(o, "        serde_json::from_str(text).ok().as_ref().and_then(read_{}).ok_or_else(not_a_failure)\n    }}\n}}\n", v.name.replace('-', "_"));
        let _ = writeln!(
            o,
            "fn read_{}(value: &Value) -> Option<{rust}> {{\n    let (case, payload) = case(value)?;\n    Some(match (case, payload) {{",
            v.name.replace('-', "_")
        );
        for c in &v.cases {
            let case = upper_camel(&c.name);
            match &c.payload {
                None => {
                    let _ = writeln!(o, "        ({:?}, None) => {rust}::{case},", c.name);
                }
                Some(Ty::Named(record)) => {
                    let r = s.record(record)?;
                    let _ = writeln!(
                        o,
                        "        ({:?}, Some(Value::Object(fields))) => {{",
                        c.name
                    );
                    let names: Vec<String> = r.fields.iter().map(Field::snake).collect();
                    for f in &r.fields {
                        let read = match &f.ty {
                            Ty::Option(t) => format!(
                                "match fields.get({:?}) {{ None | Some(Value::Null) => None, Some(v) => Some({}?) }}",
                                f.snake(),
                                rust_reader(t, "v")?
                            ),
                            t => format!(
                                "{{ let v = fields.get({:?})?; {}? }}",
                                f.snake(),
                                rust_reader(t, "v")?
                            ),
                        };
                        let _ = writeln!(o, "            let {} = {read};", f.snake());
                    }
                    let _ = writeln!(
                        o,
                        "            {rust}::{case} {{ {} }}\n        }}",
                        names.join(", ")
                    );
                }
                Some(t) => {
                    let _ = writeln!(
                        o,
                        "        ({:?}, Some(v)) => {rust}::{case}({}?),",
                        c.name,
                        rust_reader(t, "v")?
                    );
                }
            }
        }
        let _ = writeln!(o, "        _ => return None,\n    }})\n}}\n");
    }
    let _ = write!(o, "{GUEST_HELPERS}");
    rustfmt(&o)
}

/// The guest's enums from the component's bindings of them (the component's `upstream-failed` and
/// `upstream-request-failed`), in a child of the component, the one module that names its bindings.
fn guest_from_wit(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "use super::exports::jsonrpc_errors::core::guard as wit;");
    let names: Vec<String> = s.variants.iter().map(|v| upper_camel(&v.name)).collect();
    let _ = writeln!(o, "use crate::guard::{{{}}};\n", names.join(", "));
    for v in &s.variants {
        let rust = upper_camel(&v.name);
        let _ = writeln!(o, "impl From<wit::{rust}> for {rust} {{\n    fn from(failure: wit::{rust}) -> Self {{\n        match failure {{");
        for c in &v.cases {
            let case = upper_camel(&c.name);
            let arm = match &c.payload {
                None => format!("wit::{rust}::{case} => {rust}::{case},"),
                Some(Ty::Named(record)) => {
                    let fields: Vec<String> = s
                        .record(record)?
                        .fields
                        .iter()
                        .map(|f| format!("{0}: r.{0}", f.snake()))
                        .collect();
                    format!(
                        "wit::{rust}::{case}(r) => {rust}::{case} {{ {} }},",
                        fields.join(", ")
                    )
                }
                Some(_) => format!("wit::{rust}::{case}(v) => {rust}::{case}(v),"),
            };
            let _ = writeln!(o, "            {arm}");
        }
        let _ = writeln!(o, "        }}\n    }}\n}}\n");
    }
    rustfmt(o.trim_end())
}

// ------------------------------------------------------------------------------------------------ host

fn host(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(
        o,
        "//! Each failure's case by the name the WIT gives it: the word a metric's label and a log use, so none\n//! spells it by hand.\n"
    );
    let names: Vec<String> = s.variants.iter().map(|v| upper_camel(&v.name)).collect();
    let _ = writeln!(o, "use super::{{{}}};\n", names.join(", "));
    for v in &s.variants {
        let rust = upper_camel(&v.name);
        let _ = writeln!(
            o,
            "impl {rust} {{\n    /// The case's name in `wit/world.wit` (`{}`).\n    pub fn case_name(&self) -> &'static str {{\n        match self {{",
            v.name
        );
        for c in &v.cases {
            let case = upper_camel(&c.name);
            let payload = if c.payload.is_some() { "(_)" } else { "" };
            let _ = writeln!(o, "            {rust}::{case}{payload} => {:?},", c.name);
        }
        let _ = writeln!(o, "        }}\n    }}\n}}\n");
    }
    rustfmt(o.trim_end())
}

const GUEST_HELPERS: &str = r#"/// What `from_json` refuses: no shell's generated marshaller writes it (Python's and TypeScript's check each
/// part first), so one word for every variant keeps the npm module small.
#[cold]
fn not_a_failure() -> ErrorObject {
    ErrorObject::invalid_params("invalid-failure", "failure must be a case of the WIT's variant, as JSON")
}

/// A case's name and its payload: `"name"`, or `{"name": payload}`.
fn case(value: &Value) -> Option<(&str, Option<&Value>)> {
    match value {
        Value::String(name) => Some((name, None)),
        Value::Object(members) if members.len() == 1 => {
            members.iter().next().map(|(name, payload)| (name.as_str(), Some(payload)))
        }
        _ => None,
    }
}
"#;

/// The variant's cases as a sentence, each written by `name`.
fn cases_text(v: &Variant, last: &str, name: impl Fn(&Case) -> String) -> String {
    let names: Vec<String> = v.cases.iter().map(name).collect();
    match names.split_last() {
        Some((tail, rest)) if !rest.is_empty() => format!("{}{last}{tail}", rest.join(", ")),
        _ => names.join(""),
    }
}

// ---------------------------------------------------------------------------------------------- Python

fn py_type(s: &Schema, ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::String => "str".into(),
        Ty::S32 | Ty::U16 | Ty::U32 | Ty::U64 => "int".into(),
        Ty::Option(t) => format!("Optional[{}]", py_type(s, t)?),
        Ty::Named(n) => upper_camel(&s.record(n)?.name),
        other => bail!("a failure cannot carry {other:?}"),
    })
}

/// The Python classes wasmtime-py tells a case's payload by (`object` for none): a variant whose cases share
/// none is lowered from the payload alone (untagged), any other from a `Variant`.
fn py_classes(ty: Option<&Ty>) -> &'static str {
    match ty {
        None => "object",
        Some(Ty::String) => "str",
        Some(Ty::Named(_)) => "Record",
        Some(_) => "int",
    }
}

fn py_tagged(v: &Variant) -> bool {
    let mut seen = Vec::new();
    v.cases.iter().any(|c| {
        let class = py_classes(c.payload.as_ref());
        let shared = seen.contains(&class);
        seen.push(class);
        shared
    })
}

/// The expression that checks `value` (a local) as a scalar field and gives what wasmtime-py takes.
fn py_check(ty: &Ty, value: &str, what: &str) -> Result<String> {
    Ok(match ty {
        Ty::String => format!("_str({value}, {what})"),
        t => {
            let (lo, hi) = int_range(t).ok_or_else(|| anyhow!("no check for {t:?}"))?;
            format!("_int({value}, {what}, {lo}, {hi})")
        }
    })
}

fn python(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "# {HEADER}");
    let _ = writeln!(
        o,
        "\"\"\"Why the upstream failed, as ``interface guard`` in wit/world.wit states it: each variant a union of\n``(\"case\", payload)`` tuples and bare ``\"case\"`` names, each record a TypedDict.\"\"\"\n"
    );
    let _ = writeln!(o, "from __future__ import annotations\n");
    let _ = writeln!(o, "from collections.abc import Mapping");
    let _ = writeln!(
        o,
        "from typing import Any, Literal, Optional, TypedDict, Union\n"
    );
    let _ = writeln!(o, "from wasmtime.component import Record, Variant\n");
    let _ = writeln!(o, "from ._args import _text");
    let _ = writeln!(
        o,
        "from ._errors import ArgumentTypeError, JsonRpcErrorsValueError\n"
    );
    for r in &s.records {
        let name = upper_camel(&r.name);
        let (required, optional): (Vec<&Field>, Vec<&Field>) = r
            .fields
            .iter()
            .partition(|f| !matches!(f.ty, Ty::Option(_)));
        let _ = writeln!(o, "\nclass _{name}Required(TypedDict):");
        let _ = writeln!(
            o,
            "    \"\"\"{}'s fields that are always given.\"\"\"\n",
            name
        );
        for f in &required {
            crate::guardgen::py_comment(&mut o, &f.docs);
            let _ = writeln!(o, "    {}: {}", f.snake(), py_type(s, &f.ty)?);
        }
        let _ = writeln!(o, "\n\nclass {name}(_{name}Required, total=False):");
        let _ = writeln!(o, "    \"\"\"{}\"\"\"\n", r.docs.join("\n    "));
        if optional.is_empty() {
            let _ = writeln!(o, "    pass");
        }
        for f in &optional {
            crate::guardgen::py_comment(&mut o, &f.docs);
            let _ = writeln!(o, "    {}: {}", f.snake(), py_type(s, &f.ty)?);
        }
        let _ = writeln!(o);
    }
    for v in &s.variants {
        let _ = writeln!(o);
        for line in &v.docs {
            let _ = writeln!(o, "#: {line}");
        }
        let _ = writeln!(o, "{} = Union[", upper_camel(&v.name));
        for c in &v.cases {
            for line in &c.docs {
                let _ = writeln!(o, "    # {line}");
            }
            match &c.payload {
                None => {
                    let _ = writeln!(o, "    Literal[{}],", py_literal(&c.name));
                }
                Some(t) => {
                    let _ = writeln!(
                        o,
                        "    tuple[Literal[{}], {}],",
                        py_literal(&c.name),
                        py_type(s, t)?
                    );
                }
            }
        }
        let _ = writeln!(o, "]");
    }
    // Marshalling.
    for v in &s.variants {
        let func = v.name.replace('-', "_");
        let tagged = py_tagged(v);
        let forms = cases_text(v, " or ", |c| match &c.payload {
            None => format!("'{}'", c.name),
            Some(_) => format!("('{}', ...)", c.name),
        });
        let _ = writeln!(o, "\n\ndef _{func}(failure: Any) -> Any:");
        let _ = writeln!(
            o,
            "    \"\"\"``{}`` as the component's call takes it, each part checked: {}.\"\"\"",
            v.name,
            if tagged {
                "a ``Variant`` (wasmtime-py tells its cases apart by their tag)"
            } else {
                "its payload alone (wasmtime-py tells its cases apart by their Python type)"
            }
        );
        let wrap = |case: &str, payload: &str| {
            if tagged {
                format!("Variant({}, {payload})", py_literal(case))
            } else {
                payload.to_string()
            }
        };
        for c in v.cases.iter().filter(|c| c.payload.is_none()) {
            let _ = writeln!(
                o,
                "    if failure == {}:\n        return {}",
                py_literal(&c.name),
                wrap(&c.name, "None")
            );
        }
        let _ = writeln!(o, "    try:\n        tag, payload = failure\n    except (TypeError, ValueError):\n        raise ArgumentTypeError({}) from None", py_literal(&format!("failure must be {forms}")));
        for c in &v.cases {
            let Some(t) = &c.payload else { continue };
            let what = py_literal(&c.name);
            let value = match t {
                Ty::Named(record) => format!("_{}(payload, {what})", record.replace('-', "_")),
                t => py_check(t, "payload", &what)?,
            };
            let _ = writeln!(
                o,
                "    if tag == {what}:\n        return {}",
                wrap(&c.name, &value)
            );
        }
        let _ = writeln!(
            o,
            "    raise JsonRpcErrorsValueError(f\"unknown {} {{tag!r}}\")",
            v.name.replace('-', " ")
        );
    }
    for r in &s.records {
        let func = r.name.replace('-', "_");
        let names: Vec<String> = r.fields.iter().map(|f| py_literal(&f.snake())).collect();
        let _ = writeln!(o, "\n\ndef _{func}(value: Any, what: str) -> Record:");
        let _ = writeln!(
            o,
            "    \"\"\"``{}`` as the component's call takes it, each field checked.\"\"\"",
            r.name
        );
        let _ = writeln!(o, "    if not isinstance(value, Mapping):\n        raise ArgumentTypeError(f\"{{what}} must be a {} dict\")", upper_camel(&r.name));
        let _ = writeln!(
            o,
            "    unknown = sorted(set(value) - {{{}}})\n    if unknown:\n        raise ArgumentTypeError(f\"{{what}} has no field {{unknown[0]!r}}\")",
            names.join(", ")
        );
        let _ = writeln!(o, "    record = Record()");
        for f in &r.fields {
            let what = format!("f\"{{what}}.{}\"", f.snake());
            let line = match &f.ty {
                Ty::Option(t) => format!(
                    "item = value.get({})\n    setattr(record, {}, None if item is None else {})",
                    py_literal(&f.snake()),
                    py_literal(&f.name),
                    py_check(t, "item", &what)?
                ),
                t => format!(
                    "setattr(record, {}, {})",
                    py_literal(&f.name),
                    py_check(t, &format!("value.get({})", py_literal(&f.snake())), &what)?
                ),
            };
            let _ = writeln!(o, "    {line}");
        }
        let _ = writeln!(o, "    return record");
    }
    let _ = write!(o, "{PY_HELPERS}");
    Ok(o)
}

const PY_HELPERS: &str = r#"

def _str(value: Any, what: str) -> str:
    _text(value, what)
    return str(value)


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ArgumentTypeError(f"{what} must be an int from {lo} to {hi}, not {value!r}")
    return value
"#;

// ------------------------------------------------------------------------------------------ TypeScript

fn ts_type(s: &Schema, ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::String => "string".into(),
        Ty::S32 | Ty::U16 | Ty::U32 | Ty::U64 => "number".into(),
        Ty::Option(t) => format!("{} | null", ts_type(s, t)?),
        Ty::Named(n) => upper_camel(&s.record(n)?.name),
        other => bail!("a failure cannot carry {other:?}"),
    })
}

/// The expression that checks `value` as a scalar field: what the guest's JSON holds.
fn ts_check(ty: &Ty, value: &str, what: &str) -> Result<String> {
    Ok(match ty {
        Ty::String => format!("text({value}, {what})"),
        t => {
            let (lo, hi) = int_range(t).ok_or_else(|| anyhow!("no check for {t:?}"))?;
            // A JavaScript number is exact up to 2^53 - 1.
            let hi = if hi.len() > 15 {
                "Number.MAX_SAFE_INTEGER"
            } else {
                hi
            };
            format!("int({value}, {what}, {lo}, {hi})")
        }
    })
}

fn typescript(s: &Schema) -> Result<String> {
    use crate::guardgen::ts_doc;
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "import {{ ArgumentTypeError }} from \"./errors.js\";");
    let _ = writeln!(o, "import {{ checkedText }} from \"./runtime.js\";\n");
    for r in &s.records {
        ts_doc(&mut o, "", &r.docs);
        let _ = writeln!(o, "export interface {} {{", upper_camel(&r.name));
        for f in &r.fields {
            ts_doc(&mut o, "  ", &f.docs);
            let (optional, ty) = match &f.ty {
                Ty::Option(t) => ("?", ts_type(s, t)?),
                t => ("", ts_type(s, t)?),
            };
            let _ = writeln!(o, "  {}{optional}: {ty};", f.camel());
        }
        let _ = writeln!(o, "}}\n");
    }
    for v in &s.variants {
        ts_doc(&mut o, "", &v.docs);
        let _ = writeln!(o, "export type {} =", upper_camel(&v.name));
        for (i, c) in v.cases.iter().enumerate() {
            ts_doc(&mut o, "  ", &c.docs);
            let member = match &c.payload {
                None => py_literal(&c.name),
                Some(t) => format!("{{ {}: {} }}", camel(&c.name), ts_type(s, t)?),
            };
            let end = if i + 1 == v.cases.len() { ";" } else { "" };
            let _ = writeln!(o, "  | {member}{end}");
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(o, "{TS_HELPERS}");
    for v in &s.variants {
        let rust = upper_camel(&v.name);
        let forms = cases_text(v, " or ", |c| match &c.payload {
            None => format!("\"{}\"", c.name),
            Some(_) => format!("{{{}}}", camel(&c.name)),
        });
        let _ = writeln!(o, "/** `{}` as the guard module's glue reads it (JSON: the WIT's case names, snake_case fields), each part checked. */", v.name);
        let _ = writeln!(
            o,
            "export function {}Json(failure: {rust}): string {{",
            camel(&v.name)
        );
        let bare: Vec<String> = v
            .cases
            .iter()
            .filter(|c| c.payload.is_none())
            .map(|c| format!("failure === {}", py_literal(&c.name)))
            .collect();
        if !bare.is_empty() {
            let _ = writeln!(
                o,
                "  if ({}) return JSON.stringify(failure);",
                bare.join(" || ")
            );
        }
        let _ = writeln!(
            o,
            "  const [key, payload] = onlyMember(failure, {});\n  switch (key) {{",
            py_literal(&format!("failure must be {forms}"))
        );
        for c in &v.cases {
            let Some(t) = &c.payload else { continue };
            let key = camel(&c.name);
            let what = py_literal(&key);
            let value = match t {
                Ty::Named(record) => format!("{}(payload, {what})", camel(record)),
                t => ts_check(t, "payload", &what)?,
            };
            let _ = writeln!(
                o,
                "    case {what}:\n      return JSON.stringify({{ {}: {value} }});",
                py_literal(&c.name)
            );
        }
        let _ = writeln!(
            o,
            "  }}\n  throw new ArgumentTypeError({});\n}}\n",
            py_literal(&format!("failure must be {forms}"))
        );
    }
    for r in &s.records {
        let _ = writeln!(
            o,
            "function {}(value: unknown, what: string): Record<string, unknown> {{",
            camel(&r.name)
        );
        let _ = writeln!(o, "  if (typeof value !== \"object\" || value === null) throw new ArgumentTypeError(`${{what}} must be an object`);");
        let _ = writeln!(o, "  const fields = value as Record<string, unknown>;");
        let _ = writeln!(o, "  return {{");
        for f in &r.fields {
            let what = format!("`${{what}}.{}`", f.camel());
            let read = format!("fields.{}", f.camel());
            let value = match &f.ty {
                Ty::Option(t) => format!("{read} == null ? null : {}", ts_check(t, &read, &what)?),
                t => ts_check(t, &read, &what)?,
            };
            let _ = writeln!(o, "    {}: {value},", f.snake());
        }
        let _ = writeln!(o, "  }};\n}}\n");
    }
    Ok(o.trim_end().to_string() + "\n")
}

fn camel(kebab: &str) -> String {
    let upper = upper_camel(kebab);
    let mut chars = upper.chars();
    chars
        .next()
        .map(|c| c.to_ascii_lowercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

const TS_HELPERS: &str = r#"/** The one member of `{name: payload}`: its name and payload. */
function onlyMember(value: unknown, expected: string): [string, unknown] {
  const entries = typeof value === "object" && value !== null ? Object.entries(value) : [];
  if (entries.length !== 1) throw new ArgumentTypeError(expected);
  return entries[0] as [string, unknown];
}

function text(value: unknown, what: string): string {
  if (typeof value !== "string") throw new ArgumentTypeError(`${what} must be a string`);
  return checkedText(value);
}

function int(value: unknown, what: string, lo: number, hi: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < lo || value > hi) {
    throw new ArgumentTypeError(`${what} must be an integer from ${lo} to ${hi}`);
  }
  return value;
}
"#;
