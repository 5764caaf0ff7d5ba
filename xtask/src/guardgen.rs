//! The guard session's shapes, generated from the one schema, `interface guard` in `wit/world.wit` (part of
//! `cargo xtask gen`): its options (`guard-options`) and what its calls return (`session-outcome`, the
//! `step` variant and its records). Each side of the boundary gets its mirror of them:
//!
//! - the guest (`guest/src/guard/args.rs`): `SessionArgs`, the options as the guest reads them (from the
//!   component's record: `SessionArgs::from_wit` in `guest/src/component/guard_options.rs`; or their JSON:
//!   `SessionArgs::from_json`, unknown members refused); and
//!   (`guest/src/guard/outcome.rs`) what its calls return, `Outcome` with its `Step`s, `Event`, `Peer`,
//!   `EventName`, and `Outcome::to_json`, the JSON text every shell reads; and (`guest/src/guard/settings.rs`)
//!   what a session resolved, `SessionSettings` (`session-settings`), and `SessionSettings::to_json`, what
//!   `settings` returns;
//! - the host (`host/src/guard/schema.rs`): `Options` (with its defaults and the WIT record it becomes),
//!   `Peer`, `Step`, `Event`, `Outcome` (serde, read from the guest's JSON);
//! - Python (`_guard_schema.py`): the `Step` and `Outcome` TypedDicts, `GuardOptions` (the session's keyword
//!   options) and `_options_record`, which checks them and builds the component's record;
//! - TypeScript (`guard-schema.ts`): the step and outcome interfaces, `GuardOptions` and `guardOptionsJson`,
//!   which checks them and writes the JSON the npm module's glue reads (`SessionArgs::from_json`).
//!
//! Rules the schema follows (the generator refuses what it cannot carry): an option is an `option<T>` or a
//! `list` (not given: none, or for a `list<tuple<string, string>>` the process environment, as for
//! `policy-env`), or states its default in a doc line `Default: `value`.`; a field typed `dialect` is the
//! dialect's name in the shells; an enum in a step is a string in the host (its log reads names it does not
//! know yet) except `peer`, which a shell acts on; a `u32` in a step is a count (`usize`); `json-value` is
//! any JSON value; a variant case whose record has more than four fields is boxed in the host, as a struct
//! named after the case.

use anyhow::{anyhow, bail, Context, Result};
use std::fmt::Write;
use wit_parser::{Docs, Interface, Resolve, Type, TypeDefKind, TypeOwner};

pub const GUEST: &str = "guest/src/guard/args.rs";
pub const GUEST_OUTCOME: &str = "guest/src/guard/outcome.rs";
pub const GUEST_SETTINGS: &str = "guest/src/guard/settings.rs";
pub const GUEST_WIT: &str = "guest/src/component/guard_options.rs";
pub const HOST: &str = "host/src/guard/schema.rs";
pub const PYTHON: &str = "bindings/python/src/jsonrpc_errors/_guard_schema.py";
pub const TYPESCRIPT: &str = "bindings/js/src/guard-schema.ts";

pub(crate) const HEADER: &str =
    "Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.";

/// A field's type, as far as the shells need to know it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ty {
    String,
    Bool,
    U16,
    U32,
    U64,
    S32,
    /// An enum: its WIT name and cases.
    Enum(String, Vec<String>),
    /// Any JSON value (`json-value`).
    Json,
    /// A `limit` (a `u64` where 0 means none): as an option, absent is "not given", and the shells' null is
    /// "no limit" (0 at the typed boundary).
    Limit,
    Option(Box<Ty>),
    /// `list<tuple<string, string>>`: (name, value) pairs, an environment.
    Pairs,
    List(Box<Ty>),
    /// A record or variant of the interface, by WIT name.
    Named(String),
}

pub(crate) struct Field {
    /// kebab-case, as in the WIT.
    pub(crate) name: String,
    pub(crate) ty: Ty,
    pub(crate) docs: Vec<String>,
}

impl Field {
    pub(crate) fn snake(&self) -> String {
        self.name.replace('-', "_")
    }

    pub(crate) fn camel(&self) -> String {
        let mut parts = self.name.split('-');
        let first = parts.next().unwrap_or_default().to_string();
        first + &parts.map(upper_camel).collect::<String>()
    }

    /// The default a field that is neither an option nor a list states (`Default: `x`.`).
    pub(crate) fn default(&self) -> Result<Option<String>> {
        if matches!(self.ty, Ty::Option(_) | Ty::Pairs | Ty::List(_)) {
            return Ok(None);
        }
        let text = self.docs.join(" ");
        let at = text.find("Default: `").ok_or_else(|| {
            anyhow!(
                "guard-options.{} is neither an option nor a list and states no `Default: `value`.`",
                self.name
            )
        })? + "Default: `".len();
        let end = text[at..]
            .find('`')
            .ok_or_else(|| anyhow!("guard-options.{}: unclosed default", self.name))?;
        Ok(Some(text[at..at + end].to_string()))
    }
}

pub(crate) fn upper_camel(kebab: &str) -> String {
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

pub(crate) fn doc_lines(docs: &Docs) -> Vec<String> {
    docs.contents
        .as_deref()
        .map(|d| d.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// An enum the shapes use: its name, its cases with their docs, its docs.
pub(crate) type EnumDef = (String, Vec<(String, Vec<String>)>, Vec<String>);

pub(crate) struct Schema {
    options: Vec<Field>,
    /// What a session resolved (`session-settings`).
    settings: Vec<Field>,
    settings_docs: Vec<String>,
    options_docs: Vec<String>,
    /// (case name, its record's name and docs, its fields)
    pub(crate) steps: Vec<(String, String, Vec<String>, Vec<Field>)>,
    pub(crate) outcome: Vec<Field>,
    outcome_docs: Vec<String>,
    /// The step variant's docs.
    step_docs: Vec<String>,
    /// Every enum the shapes use: name, cases, docs per case.
    pub(crate) enums: Vec<EnumDef>,
    /// The enums `interface guard` declares itself (not `use`d from another interface).
    pub(crate) own_enums: Vec<String>,
}

pub(crate) struct Reader<'a> {
    pub(crate) resolve: &'a Resolve,
    pub(crate) iface: &'a Interface,
    pub(crate) enums: Vec<EnumDef>,
}

impl Reader<'_> {
    pub(crate) fn ty(&mut self, ty: &Type) -> Result<Ty> {
        Ok(match ty {
            Type::String => Ty::String,
            Type::Bool => Ty::Bool,
            Type::U16 => Ty::U16,
            Type::U32 => Ty::U32,
            Type::U64 => Ty::U64,
            Type::S32 => Ty::S32,
            Type::Id(id) => {
                let def = &self.resolve.types[*id];
                let name = def.name.clone().unwrap_or_default();
                match &def.kind {
                    TypeDefKind::Type(_) if name == "json-value" => Ty::Json,
                    TypeDefKind::Type(_) if name == "limit" => Ty::Limit,
                    TypeDefKind::Type(t) => return self.ty(t),
                    TypeDefKind::Enum(e) => {
                        let cases: Vec<String> = e.cases.iter().map(|c| c.name.clone()).collect();
                        if !self.enums.iter().any(|(n, _, _)| *n == name) {
                            self.enums.push((
                                name.clone(),
                                e.cases
                                    .iter()
                                    .map(|c| (c.name.clone(), doc_lines(&c.docs)))
                                    .collect(),
                                doc_lines(&def.docs),
                            ));
                        }
                        Ty::Enum(name, cases)
                    }
                    TypeDefKind::Option(t) => Ty::Option(Box::new(self.ty(t)?)),
                    TypeDefKind::List(Type::Id(inner)) => match &self.resolve.types[*inner].kind {
                        TypeDefKind::Tuple(t) if t.types == [Type::String, Type::String] => {
                            Ty::Pairs
                        }
                        _ => Ty::List(Box::new(self.ty(&Type::Id(*inner))?)),
                    },
                    TypeDefKind::List(t) => Ty::List(Box::new(self.ty(t)?)),
                    TypeDefKind::Record(_) | TypeDefKind::Variant(_)
                        if def.owner == TypeOwner::Interface(self.iface_id()?) =>
                    {
                        Ty::Named(name)
                    }
                    other => bail!("the guard schema cannot carry {name} ({other:?})"),
                }
            }
            other => bail!("the guard schema cannot carry {other:?}"),
        })
    }

    fn iface_id(&self) -> Result<wit_parser::InterfaceId> {
        self.resolve
            .interfaces
            .iter()
            .find(|(_, i)| std::ptr::eq(*i, self.iface))
            .map(|(id, _)| id)
            .ok_or_else(|| anyhow!("the interface vanished"))
    }

    pub(crate) fn record(&mut self, name: &str) -> Result<(Vec<Field>, Vec<String>)> {
        let id = *self
            .iface
            .types
            .get(name)
            .ok_or_else(|| anyhow!("the interface has no type {name}"))?;
        let def = &self.resolve.types[id];
        let TypeDefKind::Record(r) = &def.kind else {
            bail!("{name} is not a record");
        };
        let mut fields = Vec::new();
        for f in &r.fields {
            fields.push(Field {
                name: f.name.clone(),
                ty: self.ty(&f.ty)?,
                docs: doc_lines(&f.docs),
            });
        }
        Ok((fields, doc_lines(&def.docs)))
    }
}

/// Parses `wit/` and hands `read` a reader of interface `name` (`guard` here; `types` for `recordgen.rs`).
pub(crate) fn read_interface<T>(
    name: &str,
    read: impl FnOnce(&mut Reader<'_>) -> Result<T>,
) -> Result<T> {
    let mut resolve = Resolve::new();
    let (package, _) = resolve
        .push_dir(crate::root().join("wit"))
        .context("parsing wit/")?;
    let iface_id = *resolve.packages[package]
        .interfaces
        .get(name)
        .ok_or_else(|| anyhow!("wit/ has no interface {name}"))?;
    let mut reader = Reader {
        resolve: &resolve,
        iface: &resolve.interfaces[iface_id],
        enums: Vec::new(),
    };
    read(&mut reader)
}

pub(crate) fn schema() -> Result<Schema> {
    read_interface("guard", read_schema)
}

fn read_schema(reader: &mut Reader<'_>) -> Result<Schema> {
    let (resolve, iface) = (reader.resolve, reader.iface);
    let (options, options_docs) = reader.record("guard-options")?;
    let (settings, settings_docs) = reader.record("session-settings")?;
    let step_id = *iface
        .types
        .get("step")
        .ok_or_else(|| anyhow!("interface guard has no variant step"))?;
    let TypeDefKind::Variant(variant) = &resolve.types[step_id].kind else {
        bail!("step is not a variant");
    };
    let mut steps = Vec::new();
    for case in &variant.cases {
        let Some(Type::Id(id)) = case.ty else {
            bail!("step case {} carries no record", case.name);
        };
        let record = resolve.types[id].name.clone().unwrap_or_default();
        let (fields, docs) = reader.record(&record)?;
        steps.push((case.name.clone(), record, docs, fields));
    }
    let step_docs = doc_lines(&resolve.types[step_id].docs);
    let (outcome, outcome_docs) = reader.record("session-outcome")?;
    let own = TypeOwner::Interface(reader.iface_id()?);
    let own_enums = iface
        .types
        .iter()
        .filter(|(_, id)| {
            let def = &resolve.types[**id];
            def.owner == own && matches!(def.kind, TypeDefKind::Enum(_))
        })
        .map(|(name, _)| name.clone())
        .collect();
    Ok(Schema {
        options,
        settings,
        settings_docs,
        options_docs,
        steps,
        outcome,
        outcome_docs,
        step_docs,
        enums: std::mem::take(&mut reader.enums),
        own_enums,
    })
}

/// (path relative to the repository root, content) of every generated mirror.
pub fn generated_files() -> Result<Vec<(&'static str, String)>> {
    let s = schema()?;
    Ok(vec![
        (GUEST, guest(&s)?),
        (GUEST_OUTCOME, guest_outcome(&s)?),
        (GUEST_SETTINGS, guest_settings(&s)?),
        (GUEST_WIT, guest_from_wit(&s)?),
        (HOST, host(&s)?),
        (PYTHON, python(&s)?),
        (TYPESCRIPT, typescript(&s)?),
    ])
}

// ----------------------------------------------------------------------------------------------- guest

/// The component's conversion of the WIT's `guard-options` into `SessionArgs`: each field as it is, an
/// enum as its case's name (the dialect by the component's `dialect_name`).
fn guest_from_wit(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "// Generated from wit/world.wit (interface `guard`: `guard-options`) by `cargo xtask gen`; do not edit.\n"
    );
    let _ = writeln!(o, "use super::exports::jsonrpc_errors::core::guard as wit;");
    let _ = writeln!(o, "use crate::api::SessionArgs;\n");
    let _ = writeln!(
        o,
        "impl SessionArgs {{\n    /// The component's WIT record, `dialect_name` naming a dialect.\n    pub(crate) fn from_wit(\n        options: wit::GuardOptions,\n        dialect_name: fn(wit::Dialect) -> &'static str,\n    ) -> Self {{\n        SessionArgs {{"
    );
    for f in &s.options {
        let name = f.snake();
        let value = match &f.ty {
            t if is_dialect_option(t) => {
                format!("options.{name}.map(|d| dialect_name(d).to_string())")
            }
            Ty::Option(t) => match &**t {
                Ty::Enum(enum_name, cases) => {
                    let arms: Vec<String> = cases
                        .iter()
                        .map(|c| {
                            format!(
                                "wit::{}::{} => {c:?}",
                                upper_camel(enum_name),
                                upper_camel(c)
                            )
                        })
                        .collect();
                    format!(
                        "options.{name}.map(|v| {{\n                match v {{\n                    {},\n                }}\n                .to_string()\n            }})",
                        arms.join(",\n                    ")
                    )
                }
                Ty::Json | Ty::Named(_) => {
                    bail!("guard-options.{}: the component cannot pass {t:?}", f.name)
                }
                // The bindings' type is the guest's (`guest_option_type`).
                _ => format!("options.{name}"),
            },
            Ty::Enum(..) | Ty::Json | Ty::Named(_) => {
                bail!(
                    "guard-options.{}: the component cannot pass {:?}",
                    f.name,
                    f.ty
                )
            }
            _ => format!("options.{name}"),
        };
        let _ = writeln!(o, "            {name}: {value},");
    }
    let _ = writeln!(o, "        }}\n    }}\n}}");
    Ok(o)
}

/// The guest's Rust type of an option, as `SessionArgs` holds it: an enum by its name (the guest checks it),
/// a `limit` as its `u64`.
fn guest_option_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::Enum(..) | Ty::String => "String".into(),
        Ty::Bool => "bool".into(),
        Ty::U64 | Ty::Limit => "u64".into(),
        Ty::Option(t) => format!("Option<{}>", guest_option_type(t)?),
        Ty::Pairs => "Vec<(String, String)>".into(),
        Ty::List(t) if **t == Ty::String => "Vec<String>".into(),
        other => bail!("the guest's session options cannot carry {other:?}"),
    })
}

/// The expression that reads `value` (a JSON member, not null) as the option's type, `None` if ill-typed.
fn guest_reader(ty: &Ty) -> Result<&'static str> {
    Ok(match ty {
        Ty::Enum(..) | Ty::String => "json_text(value)",
        Ty::Bool => "value.as_bool()",
        Ty::U64 | Ty::Limit => "value.as_u64()",
        Ty::Pairs => "json_pairs(value)",
        Ty::List(t) if **t == Ty::String => "json_texts(value)",
        other => bail!("the guest's session options cannot read {other:?}"),
    })
}

fn guest(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(
        o,
        "use crate::error::ErrorObject;\nuse serde_json::Value;\n"
    );
    rust_doc(&mut o, "", &s.options_docs);
    let _ = writeln!(
        o,
        "///\n/// As every runtime passes them: the component's record (`guest/src/component.rs`), or that record as JSON\n/// with snake_case keys (the npm module's glue, the vectors' `options`). An option not given is none (or its\n/// stated default): `api::guard_session` resolves it from the policy file's `[defaults]`, else the built-in\n/// default."
    );
    let _ = writeln!(o, "#[derive(Debug, Clone)]\npub struct SessionArgs {{");
    for f in &s.options {
        rust_doc(&mut o, "    ", &f.docs);
        let _ = writeln!(o, "    pub {}: {},", f.snake(), guest_option_type(&f.ty)?);
    }
    let _ = writeln!(o, "}}\n");
    let _ = writeln!(
        o,
        "impl Default for SessionArgs {{\n    fn default() -> Self {{\n        SessionArgs {{"
    );
    for f in &s.options {
        let value = match (&f.ty, f.default()?) {
            (Ty::Option(_), _) => "None".to_string(),
            (Ty::Pairs | Ty::List(_), _) => "Vec::new()".to_string(),
            (Ty::Enum(..) | Ty::String, Some(d)) => format!("{d:?}.into()"),
            (ty, d) => bail!("guard-options.{}: no default for {ty:?} from {d:?}", f.name),
        };
        let _ = writeln!(o, "            {}: {value},", f.snake());
    }
    let _ = writeln!(o, "        }}\n    }}\n}}\n");
    let _ = writeln!(o, "impl SessionArgs {{");
    let _ = writeln!(
        o,
        "    /// Reads the options' JSON (the npm module's glue, the vectors): a member not given, or null, is not\n    /// given, but for a `limit`, where null says \"no limit\" (as 0 does). An unknown or ill-typed member is\n    /// refused with -32602 (`data.reason` \"invalid-options\", `data.details` naming it, never its value). A\n    /// match, not a serde derive: a derived reader adds to the npm module."
    );
    let _ = writeln!(
        o,
        "    pub fn from_json(text: &str) -> Result<SessionArgs, ErrorObject> {{\n        let refuse = |details: String| ErrorObject::invalid_params(\"invalid-options\", &details);\n        let Ok(Value::Object(members)) = serde_json::from_str::<Value>(text) else {{\n            return Err(refuse(\n                \"options must be guard-options as a JSON object\".into(),\n            ));\n        }};\n        let mut args = SessionArgs::default();\n        for (name, value) in members {{"
    );
    for f in &s.options {
        if matches!(&f.ty, Ty::Option(t) if **t == Ty::Limit) {
            let _ = writeln!(
                o,
                "            if name == {:?} && value.is_null() {{\n                args.{} = Some(0);\n                continue;\n            }}",
                f.snake(),
                f.snake()
            );
        }
    }
    let _ = writeln!(
        o,
        "            if value.is_null() {{\n                continue;\n            }}\n            let read = match name.as_str() {{"
    );
    for f in &s.options {
        let (reader, wrap) = match &f.ty {
            Ty::Option(t) => (guest_reader(t)?, "Some(v)"),
            t => (guest_reader(t)?, "v"),
        };
        let read = format!("{reader}.map(|v| args.{} = {wrap})", f.snake());
        let arm = format!("                {:?} => {read},", f.snake());
        // As rustfmt writes it (`gen --check` compares the text): a long arm in a block.
        if arm.len() > 100 {
            let _ = writeln!(
                o,
                "                {:?} => {{\n                    {read}\n                }}",
                f.snake()
            );
        } else {
            let _ = writeln!(o, "{arm}");
        }
    }
    let _ = writeln!(
        o,
        "                _ => return Err(refuse(format!(\"unknown option `{{name}}`\"))),\n            }};\n            if read.is_none() {{\n                return Err(refuse(format!(\"option `{{name}}` has the wrong type\")));\n            }}\n        }}\n        Ok(args)\n    }}\n}}"
    );
    let _ = write!(o, "{GUEST_HELPERS}");
    Ok(o)
}

const GUEST_HELPERS: &str = r#"
fn json_text(value: Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// `["value", ...]` as texts.
#[allow(dead_code)]
fn json_texts(value: Value) -> Option<Vec<String>> {
    let Value::Array(items) = value else {
        return None;
    };
    items.into_iter().map(json_text).collect()
}

/// `[[name, value], ...]` as pairs.
#[allow(dead_code)]
fn json_pairs(value: Value) -> Option<Vec<(String, String)>> {
    let Value::Array(items) = value else {
        return None;
    };
    items
        .into_iter()
        .map(|pair| match pair {
            Value::Array(mut p) if p.len() == 2 => {
                let value = json_text(p.pop()?)?;
                Some((json_text(p.pop()?)?, value))
            }
            _ => None,
        })
        .collect()
}
"#;

// ------------------------------------------------------------------------------------- guest: outcome

/// The guest's Rust type of a field of the outcome or a step: an enum `interface guard` declares is the
/// generated Rust enum (the guest builds and matches it); one it `use`s (`log-level`, which the taxonomy
/// gives as text) is its name; a `u32` is a count (`usize`); `json-value` a `serde_json::Value`.
fn guest_step_type(s: &Schema, ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::Enum(name, _) if s.own_enums.contains(name) => upper_camel(name),
        Ty::Enum(..) | Ty::String => "String".into(),
        Ty::U32 => "usize".into(),
        Ty::U64 => "u64".into(),
        Ty::S32 => "i32".into(),
        Ty::Json => "Value".into(),
        Ty::Option(t) => format!("Option<{}>", guest_step_type(s, t)?),
        Ty::List(t) => format!("Vec<{}>", guest_step_type(s, t)?),
        Ty::Named(n) if n == "step" => "Step".into(),
        other => bail!("the guest's outcome cannot carry {other:?}"),
    })
}

/// Writes the statements that append JSON text to `out`, literal text gathered into one `push_str` between
/// the values (as a hand-written writer would put it: each call adds to the npm module).
struct JsonWriter {
    code: String,
    literal: String,
    indent: String,
}

impl JsonWriter {
    fn new(indent: &str) -> Self {
        JsonWriter {
            code: String::new(),
            literal: String::new(),
            indent: indent.into(),
        }
    }

    fn literal(&mut self, text: &str) {
        self.literal.push_str(text);
    }

    fn flush(&mut self) {
        let indent = &self.indent;
        match self.literal.chars().count() {
            0 => {}
            1 => {
                let c = self.literal.chars().next().unwrap_or_default();
                let _ = writeln!(self.code, "{indent}out.push({c:?});");
            }
            _ => {
                let _ = writeln!(self.code, "{indent}out.push_str({:?});", self.literal);
            }
        }
        self.literal.clear();
    }

    /// A statement (one or more lines, at this writer's indent) after the literal text so far.
    fn statement(&mut self, lines: &str) {
        self.flush();
        for line in lines.lines() {
            let _ = writeln!(self.code, "{}{line}", self.indent);
        }
    }

    fn finish(mut self) -> String {
        self.flush();
        self.code
    }

    /// Member `key` of a step or the outcome: `place` is the field (`e.kind`, `self.pending`) or, with
    /// `bound`, the name a `match` bound to a reference to it. An absent option is left out (`null_if_absent`:
    /// written as null, as the outcome's own members are).
    fn member(
        &mut self,
        s: &Schema,
        key: &str,
        place: &str,
        bound: bool,
        ty: &Ty,
        null_if_absent: bool,
    ) -> Result<()> {
        let by_ref = if bound {
            place.to_string()
        } else {
            format!("&{place}")
        };
        match ty {
            Ty::Enum(name, _) if s.own_enums.contains(name) => {
                self.literal(&format!(",\"{key}\":\""));
                self.statement(&format!("out.push_str({place}.name());"));
                self.literal("\"");
            }
            Ty::Enum(..) | Ty::String => {
                self.literal(&format!(",\"{key}\":"));
                self.statement(&format!("push_str(&mut out, {by_ref});"));
            }
            Ty::U32 | Ty::U64 | Ty::S32 => {
                self.literal(&format!(",\"{key}\":"));
                self.statement(&format!("out.push_str(&{place}.to_string());"));
            }
            Ty::Option(t) if null_if_absent => {
                self.literal(&format!(",\"{key}\":"));
                let value = match t.as_ref() {
                    Ty::U32 | Ty::U64 | Ty::S32 | Ty::Json => "out.push_str(&v.to_string())",
                    Ty::Enum(..) | Ty::String => "push_str(&mut out, v)",
                    other => bail!("the outcome's {key} cannot be option<{other:?}>"),
                };
                self.statement(&format!(
                    "match {by_ref} {{\n    Some(v) => {value},\n    None => out.push_str(\"null\"),\n}}"
                ));
            }
            Ty::Option(t) => match t.as_ref() {
                Ty::Enum(name, _) if s.own_enums.contains(name) => {
                    bail!("a step's {key} cannot be an option of {name}")
                }
                Ty::Enum(..) | Ty::String => self.statement(&format!(
                    "push_member(&mut out, {key:?}, {place}.as_deref());"
                )),
                Ty::U32 | Ty::U64 | Ty::S32 | Ty::Json => self.statement(&format!(
                    "if let Some(v) = {by_ref} {{\n    out.push_str(\",\\\"{key}\\\":\");\n    out.push_str(&v.to_string());\n}}"
                )),
                other => bail!("a step's {key} cannot be option<{other:?}>"),
            },
            other => bail!("the outcome's {key} cannot be {other:?}"),
        }
        Ok(())
    }
}

/// The step records with more than four fields are boxed, as a struct named after the case (as the host's).
pub(crate) fn boxed_step(fields: &[Field]) -> bool {
    fields.len() > 4
}

fn guest_outcome(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(
        o,
        "//! What a guard session's calls return (`session-outcome`, its `step`s and their records) and the JSON\n//! text every shell reads it as. The events' builders are `steps.rs`'s.\n\nuse serde_json::Value;\n"
    );
    for name in &s.own_enums {
        let (_, cases, docs) = s
            .enums
            .iter()
            .find(|(n, ..)| n == name)
            .ok_or_else(|| anyhow!("the outcome does not use enum {name}"))?;
        let rust = upper_camel(name);
        rust_doc(&mut o, "", docs);
        let _ = writeln!(
            o,
            "#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum {rust} {{"
        );
        for (case, docs) in cases {
            rust_doc(&mut o, "    ", docs);
            let _ = writeln!(o, "    {},", upper_camel(case));
        }
        let _ = writeln!(o, "}}\n");
        let _ = writeln!(o, "impl {rust} {{\n    /// The case's name, as the JSON writes it.\n    pub fn name(self) -> &'static str {{\n        match self {{");
        for (case, _) in cases {
            let _ = writeln!(o, "            {rust}::{} => {case:?},", upper_camel(case));
        }
        let _ = writeln!(o, "        }}\n    }}\n}}\n");
    }

    // Step, and the records boxed in it.
    rust_doc(&mut o, "", &s.step_docs);
    let _ = writeln!(o, "#[derive(Debug, Clone, PartialEq)]\npub enum Step {{");
    for (case, _, docs, fields) in &s.steps {
        rust_doc(&mut o, "    ", docs);
        let rust = upper_camel(case);
        if boxed_step(fields) {
            let _ = writeln!(o, "    {rust}(Box<{rust}>),");
        } else {
            let _ = writeln!(o, "    {rust} {{");
            for f in fields {
                rust_doc(&mut o, "        ", &f.docs);
                let _ = writeln!(o, "        {}: {},", f.snake(), guest_step_type(s, &f.ty)?);
            }
            let _ = writeln!(o, "    }},");
        }
    }
    let _ = writeln!(o, "}}\n");
    for (case, _, docs, fields) in s.steps.iter().filter(|(.., f)| boxed_step(f)) {
        let rust = upper_camel(case);
        rust_doc(&mut o, "", docs);
        let _ = writeln!(
            o,
            "#[derive(Debug, Clone, PartialEq)]\npub struct {rust} {{"
        );
        for f in fields {
            rust_doc(&mut o, "    ", &f.docs);
            let _ = writeln!(o, "    pub {}: {},", f.snake(), guest_step_type(s, &f.ty)?);
        }
        let _ = writeln!(o, "}}\n");
        // Its constructor: the fields that are not options as arguments, the options absent.
        let required: Vec<&Field> = fields
            .iter()
            .filter(|f| !matches!(f.ty, Ty::Option(_)))
            .collect();
        let mut params = Vec::new();
        for f in &required {
            params.push(match &f.ty {
                Ty::Enum(name, _) if s.own_enums.contains(name) => {
                    format!("{}: {}", f.snake(), upper_camel(name))
                }
                Ty::Enum(..) | Ty::String => format!("{}: &str", f.snake()),
                other => format!("{}: {}", f.snake(), guest_step_type(s, other)?),
            });
        }
        let _ = writeln!(
            o,
            "impl {rust} {{\n    /// One with {}, every other member absent.\n    pub fn new({}) -> Self {{\n        {rust} {{",
            required
                .iter()
                .map(|f| format!("`{}`", f.snake()))
                .collect::<Vec<_>>()
                .join(" and "),
            params.join(", ")
        );
        for f in fields {
            match &f.ty {
                Ty::Option(_) => {
                    let _ = writeln!(o, "            {}: None,", f.snake());
                }
                Ty::Enum(name, _) if !s.own_enums.contains(name) => {
                    let _ = writeln!(o, "            {0}: {0}.to_string(),", f.snake());
                }
                Ty::String => {
                    let _ = writeln!(o, "            {0}: {0}.to_string(),", f.snake());
                }
                _ => {
                    let _ = writeln!(o, "            {},", f.snake());
                }
            }
        }
        let _ = writeln!(o, "        }}\n    }}\n}}\n");
    }

    // Outcome.
    rust_doc(&mut o, "", &s.outcome_docs);
    let _ = writeln!(o, "#[derive(Debug)]\npub struct Outcome {{");
    for f in &s.outcome {
        rust_doc(&mut o, "    ", &f.docs);
        let _ = writeln!(o, "    pub {}: {},", f.snake(), guest_step_type(s, &f.ty)?);
    }
    let _ = writeln!(o, "}}\n");

    // Its JSON.
    let _ = writeln!(
        o,
        "impl Outcome {{\n    /// The outcome as JSON text (snake_case keys; a step's absent member left out, the outcome's null),\n    /// written member by member rather than by derived serializers: this runs once per relayed message, and\n    /// the npm module is downloaded (each derived serializer adds to it).\n    pub fn to_json(&self) -> String {{\n        let mut out = String::with_capacity(64);"
    );
    let mut w = JsonWriter::new("        ");
    w.literal("{");
    for (i, f) in s.outcome.iter().enumerate() {
        let key = f.snake();
        if f.ty != Ty::List(Box::new(Ty::Named("step".into()))) {
            if i == 0 {
                bail!("session-outcome's first member must be its steps");
            }
            w.member(s, &key, &format!("self.{key}"), false, &f.ty, true)?;
            continue;
        }
        w.literal(&format!("{}\"{key}\":[", if i > 0 { "," } else { "" }));
        let mut arms = String::new();
        for (case, _, _, fields) in &s.steps {
            let rust = upper_camel(case);
            let mut arm = JsonWriter::new("    ");
            arm.literal(&format!("{{\"step\":{case:?}"));
            if boxed_step(fields) {
                let _ = writeln!(arms, "Step::{rust}(e) => {{");
                for f in fields {
                    let place = format!("e.{}", f.snake());
                    arm.member(s, &f.snake(), &place, false, &f.ty, false)?;
                }
            } else {
                let names: Vec<String> = fields.iter().map(Field::snake).collect();
                let _ = writeln!(arms, "Step::{rust} {{ {} }} => {{", names.join(", "));
                for f in fields {
                    arm.member(s, &f.snake(), &f.snake(), true, &f.ty, false)?;
                }
            }
            arm.literal("}");
            arms.push_str(&arm.finish());
            arms.push_str("}\n");
        }
        w.statement(&format!(
            "for (i, step) in self.{key}.iter().enumerate() {{\n    if i > 0 {{\n        out.push(',');\n    }}\n    match step {{\n{}    }}\n}}",
            arms.lines().map(|l| format!("        {l}\n")).collect::<String>()
        ));
        w.literal("]");
    }
    w.literal("}");
    o.push_str(&w.finish());
    let _ = write!(o, "        out\n    }}\n}}\n\n{GUEST_OUTCOME_HELPERS}");
    Ok(o)
}

const GUEST_OUTCOME_HELPERS: &str = r#"/// Appends `s` as a JSON string.
pub(super) fn push_str(out: &mut String, s: &str) {
    // serde_json's string escaping (a string of valid UTF-8 cannot fail to serialize).
    out.push_str(&serde_json::to_string(s).unwrap_or_default());
}

/// `,"name":"value"` when there is a value.
fn push_member(out: &mut String, name: &str, value: Option<&str>) {
    if let Some(v) = value {
        out.push_str(",\"");
        out.push_str(name);
        out.push_str("\":");
        push_str(out, v);
    }
}
"#;

// ------------------------------------------------------------------------------------ guest: settings

/// The guest's type of a field of `session-settings`, whether its JSON is a string the writer quotes itself,
/// and the statement that appends its JSON to `out` after its key: the dialect by its name (the guest checks
/// it against the taxonomy), escaped; an enum of the guest's own by its `name()`; a `u64`; an option of one
/// (null when absent).
fn guest_settings_member(f: &Field) -> Result<(String, bool, String)> {
    let place = format!("self.{}", f.snake());
    Ok(match &f.ty {
        t if is_dialect(t) => (
            "String".into(),
            false,
            format!("push_str(&mut out, &{place});"),
        ),
        Ty::Enum(name, _) => {
            let rust = guest_settings_enum(name)
                .ok_or_else(|| anyhow!("session-settings.{}: the guest has no type for {name}", f.name))?;
            (rust.into(), true, format!("out.push_str({place}.name());"))
        }
        Ty::U64 => (
            "u64".into(),
            false,
            format!("out.push_str(&{place}.to_string());"),
        ),
        Ty::Option(t) if **t == Ty::U64 => (
            "Option<u64>".into(),
            false,
            format!(
                "match {place} {{\n    Some(v) => out.push_str(&v.to_string()),\n    None => out.push_str(\"null\"),\n}}"
            ),
        ),
        other => bail!("session-settings.{} cannot be {other:?} in the guest", f.name),
    })
}

/// The guest's Rust type of an enum `session-settings` holds (its `name()` is the case's WIT name).
fn guest_settings_enum(name: &str) -> Option<&'static str> {
    match name {
        "batch-policy" => Some("BatchPolicy"),
        _ => None,
    }
}

/// `guest/src/guard/settings.rs`: `SessionSettings`, what a session resolved when it opened (the guest's
/// `guard::Options` holds it beside its own fields), and its `to_json`, the text `settings` returns.
fn guest_settings(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(
        o,
        "//! What a guard session resolved when it opened (`session-settings`) and the JSON text its `settings`\n//! returns: `api::guard_session` fills it (the caller's options, else the policy file's `[defaults]`, else\n//! the built-in defaults) and the session decides by it.\n\nuse super::outcome::push_str;\nuse crate::validation::BatchPolicy;\n"
    );
    rust_doc(&mut o, "", &s.settings_docs);
    let _ = writeln!(
        o,
        "#[derive(Debug, Clone, PartialEq, Eq)]\npub struct SessionSettings {{"
    );
    let mut writer = JsonWriter::new("        ");
    for (i, f) in s.settings.iter().enumerate() {
        let (ty, quoted, write) = guest_settings_member(f)?;
        rust_doc(&mut o, "    ", &f.docs);
        let _ = writeln!(o, "    pub {}: {ty},", f.snake());
        let quote = if quoted { "\"" } else { "" };
        let open = if i == 0 { "{" } else { "," };
        writer.literal(&format!("{open}\"{}\":{quote}", f.snake()));
        writer.statement(&write);
        writer.literal(quote);
    }
    writer.literal("}");
    let _ = writeln!(o, "}}\n");
    let _ = writeln!(
        o,
        "impl SessionSettings {{\n    /// The settings as JSON text: snake_case keys in the WIT's order, an absent option null. Written member by\n    /// member: a derived serializer (or `json!`) adds to the npm modules.\n    pub fn to_json(&self) -> String {{\n        let mut out = String::with_capacity(160);"
    );
    o.push_str(&writer.finish());
    let _ = writeln!(o, "        out\n    }}\n}}");
    Ok(o)
}

// ------------------------------------------------------------------------------------------------ host

pub(crate) fn rust_doc(out: &mut String, indent: &str, docs: &[String]) {
    for line in docs {
        let _ = writeln!(
            out,
            "{indent}///{}{line}",
            if line.is_empty() { "" } else { " " }
        );
    }
}

fn is_dialect(ty: &Ty) -> bool {
    matches!(ty, Ty::Enum(name, _) if name == "dialect")
}

/// The `dialect` option (Python's `GuardSession` takes it as its first argument).
fn is_dialect_option(ty: &Ty) -> bool {
    is_dialect(ty) || matches!(ty, Ty::Option(t) if is_dialect(t))
}

fn host_option_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        _ if is_dialect(ty) => "String".into(),
        Ty::Enum(name, _) => format!("wit::{}", upper_camel(name)),
        Ty::String => "String".into(),
        Ty::Bool => "bool".into(),
        Ty::U32 => "u32".into(),
        Ty::U64 | Ty::Limit => "u64".into(),
        Ty::S32 => "i32".into(),
        Ty::Option(t) => format!("Option<{}>", host_option_type(t)?),
        Ty::Pairs => "Vec<(String, String)>".into(),
        Ty::List(t) if **t == Ty::String => "Vec<String>".into(),
        other => bail!("an option cannot be {other:?}"),
    })
}

fn host_is_copy(ty: &Ty) -> bool {
    match ty {
        _ if is_dialect(ty) => false,
        Ty::Enum(..) | Ty::Bool | Ty::U32 | Ty::U64 | Ty::S32 | Ty::Limit => true,
        Ty::Option(t) => host_is_copy(t),
        _ => false,
    }
}

fn host_step_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::Enum(name, _) if name == "peer" => "Peer".into(),
        Ty::Enum(..) | Ty::String => "String".into(),
        Ty::U32 => "usize".into(),
        Ty::U64 => "u64".into(),
        Ty::S32 => "i32".into(),
        Ty::Json => "Value".into(),
        Ty::Option(t) => format!("Option<{}>", host_step_type(t)?),
        Ty::List(t) => format!("Vec<{}>", host_step_type(t)?),
        Ty::Named(n) if n == "step" => "Step".into(),
        other => bail!("a step cannot carry {other:?}"),
    })
}

fn host_fields(out: &mut String, indent: &str, fields: &[Field], public: bool) -> Result<()> {
    for f in fields {
        rust_doc(out, indent, &f.docs);
        let _ = writeln!(
            out,
            "{indent}{}{}: {},",
            if public { "pub " } else { "" },
            f.snake(),
            host_step_type(&f.ty)?
        );
    }
    Ok(())
}

fn host(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "use crate::exports::jsonrpc_errors::core::guard as wit;");
    let _ = writeln!(o, "use serde::Deserialize;\nuse serde_json::Value;\n");
    let _ = writeln!(o, "pub use wit::BatchPolicy;\n");

    // Options.
    rust_doc(&mut o, "", &s.options_docs);
    let _ = writeln!(o, "#[derive(Debug, Clone)]\npub struct Options {{");
    for f in &s.options {
        rust_doc(&mut o, "    ", &f.docs);
        let _ = writeln!(o, "    pub {}: {},", f.snake(), host_option_type(&f.ty)?);
    }
    let _ = writeln!(o, "}}\n");
    let _ = writeln!(
        o,
        "impl Default for Options {{\n    fn default() -> Self {{\n        Options {{"
    );
    for f in &s.options {
        let value = match (&f.ty, f.default()?) {
            (Ty::Option(_), _) => "None".to_string(),
            (Ty::Pairs | Ty::List(_), _) => "Vec::new()".to_string(),
            (ty, Some(d)) if is_dialect(ty) || *ty == Ty::String => format!("{d:?}.into()"),
            (Ty::Enum(name, cases), Some(d)) if cases.contains(&d) => {
                format!("wit::{}::{}", upper_camel(name), upper_camel(&d))
            }
            (Ty::U32 | Ty::U64 | Ty::S32, Some(d)) => d,
            (ty, d) => bail!("guard-options.{}: no default for {ty:?} from {d:?}", f.name),
        };
        let _ = writeln!(o, "            {}: {value},", f.snake());
    }
    let _ = writeln!(o, "        }}\n    }}\n}}\n");
    let _ = writeln!(o, "impl Options {{");
    let _ = writeln!(
        o,
        "    /// The WIT record, the dialect's name (when given) read by `dialect`: the runtime's check, which refuses a\n    /// name outside the dialect enum with the guest's own error (the record cannot carry it)."
    );
    let _ = writeln!(
        o,
        "    pub(crate) fn to_wit<E>(\n        &self,\n        dialect: impl FnOnce(&str) -> Result<wit::Dialect, E>,\n    ) -> Result<wit::GuardOptions, E> {{\n        Ok(wit::GuardOptions {{"
    );
    for f in &s.options {
        let value = if is_dialect_option(&f.ty) {
            let read = if is_dialect(&f.ty) {
                format!("dialect(&self.{})?", f.snake())
            } else {
                format!("self.{}.as_deref().map(dialect).transpose()?", f.snake())
            };
            let _ = writeln!(o, "            {}: {read},", f.snake());
            continue;
        } else if host_is_copy(&f.ty) {
            format!("self.{}", f.snake())
        } else {
            format!("self.{}.clone()", f.snake())
        };
        let _ = writeln!(o, "            {}: {value},", f.snake());
    }
    let _ = writeln!(o, "        }})\n    }}\n}}\n");
    // Each enum an option takes (but the dialect, which the runtime checks by name), from its name.
    for f in &s.options {
        let Ty::Option(inner) = &f.ty else { continue };
        let Ty::Enum(name, cases) = inner.as_ref() else {
            continue;
        };
        if is_dialect(inner) {
            continue;
        }
        let rust = upper_camel(name);
        let _ = writeln!(
            o,
            "impl wit::{rust} {{\n    /// The case named `name` (as the JSON, a policy file and the command line spell it).\n    pub fn from_name(name: &str) -> Option<Self> {{\n        match name {{"
        );
        for case in cases {
            let _ = writeln!(
                o,
                "            {case:?} => Some(Self::{}),",
                upper_camel(case)
            );
        }
        let _ = writeln!(o, "            _ => None,\n        }}\n    }}\n}}\n");
    }

    // Each enum a step carries by name (the host's steps hold their cases as the JSON spells them), to its
    // name: what a shell reading the `session-outcome` record writes where the JSON has the name.
    let mut named = Vec::new();
    for (_, _, _, fields) in &s.steps {
        for f in fields {
            let ty = match &f.ty {
                Ty::Option(inner) => inner.as_ref(),
                ty => ty,
            };
            if let Ty::Enum(name, cases) = ty {
                if name != "peer" && !named.contains(&name) {
                    named.push(name);
                    let rust = upper_camel(name);
                    let _ = writeln!(
                        o,
                        "impl wit::{rust} {{\n    /// The case's name, as the outcome's JSON spells it.\n    pub fn name(self) -> &'static str {{\n        match self {{"
                    );
                    for case in cases {
                        let _ = writeln!(o, "            Self::{} => {case:?},", upper_camel(case));
                    }
                    let _ = writeln!(o, "        }}\n    }}\n}}\n");
                }
            }
        }
    }

    // Peer.
    let (_, peer_cases, peer_docs) = s
        .enums
        .iter()
        .find(|(n, _, _)| n == "peer")
        .ok_or_else(|| anyhow!("the steps name no peer"))?;
    rust_doc(&mut o, "", peer_docs);
    let _ = writeln!(o, "#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]\n#[serde(rename_all = \"kebab-case\")]\npub enum Peer {{");
    for (case, docs) in peer_cases {
        rust_doc(&mut o, "    ", docs);
        let _ = writeln!(o, "    {},", upper_camel(case));
    }
    let _ = writeln!(o, "}}\n");

    // Step.
    let _ = writeln!(o, "/// One step to carry out (in order).");
    let _ = writeln!(o, "#[derive(Debug, Clone, PartialEq, Deserialize)]\n#[serde(tag = \"step\", rename_all = \"kebab-case\")]\npub enum Step {{");
    let mut boxed = Vec::new();
    for (case, _, docs, fields) in &s.steps {
        rust_doc(&mut o, "    ", docs);
        if boxed_step(fields) {
            let _ = writeln!(o, "    {}(Box<{}>),", upper_camel(case), upper_camel(case));
            boxed.push((case, docs, fields));
        } else {
            let _ = writeln!(o, "    {} {{", upper_camel(case));
            host_fields(&mut o, "        ", fields, false)?;
            let _ = writeln!(o, "    }},");
        }
    }
    let _ = writeln!(o, "}}\n");
    for (case, docs, fields) in boxed {
        rust_doc(&mut o, "", docs);
        let _ = writeln!(
            o,
            "#[derive(Debug, Clone, PartialEq, Deserialize)]\npub struct {} {{",
            upper_camel(case)
        );
        host_fields(&mut o, "    ", fields, true)?;
        let _ = writeln!(o, "}}\n");
    }
    let _ = writeln!(o, "/// What one session call returned.");
    let _ = writeln!(
        o,
        "#[derive(Debug, Clone, PartialEq, Deserialize)]\npub struct Outcome {{"
    );
    host_fields(&mut o, "    ", &s.outcome, true)?;
    let _ = writeln!(o, "}}");
    settings_mirror(&mut o, s, Shell::Host)?;
    Ok(o)
}

// ---------------------------------------------------------------------------------------------- Python

pub(crate) fn py_literal(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

fn py_alias(name: &str) -> String {
    upper_camel(name)
}

fn py_step_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::Enum(name, _) => py_alias(name),
        Ty::String => "str".into(),
        Ty::U32 | Ty::U64 | Ty::S32 => "int".into(),
        Ty::Json => "Any".into(),
        Ty::Option(t) => py_step_type(t)?,
        Ty::List(t) => format!("list[{}]", py_step_type(t)?),
        Ty::Named(n) if n == "step" => "Step".into(),
        other => bail!("a step cannot carry {other:?}"),
    })
}

fn py_option_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::Enum(_, cases) => format!(
            "Literal[{}]",
            cases
                .iter()
                .map(|c| py_literal(c))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Ty::String => "str".into(),
        Ty::Bool => "bool".into(),
        Ty::U32 | Ty::U64 | Ty::S32 => "int".into(),
        Ty::Option(t) if **t == Ty::Limit => "Optional[int]".into(),
        Ty::Option(t) => format!("Optional[{}]", py_option_type(t)?),
        Ty::Pairs => "Optional[Mapping[str, str]]".into(),
        Ty::List(t) if **t == Ty::String => "Sequence[str]".into(),
        other => bail!("an option cannot be {other:?}"),
    })
}

pub(crate) fn py_comment(out: &mut String, docs: &[String]) {
    for line in docs {
        let _ = writeln!(out, "    #: {line}");
    }
}

/// The Python statement(s) that check `value` (the option's value, a local) and give the record's value.
fn py_marshal(f: &Field) -> Result<String> {
    let py = f.snake();
    let default = f.default()?;
    Ok(match &f.ty {
        Ty::Enum(_, cases) => {
            let d = default.ok_or_else(|| anyhow!("{} needs a default", f.name))?;
            let names: Vec<String> = cases.iter().map(|c| format!("'{c}'")).collect();
            let tuple: Vec<String> = cases.iter().map(|c| py_literal(c)).collect();
            format!(
                "value = options.get({py:?}, {d:?})\n    if value not in ({},):\n        raise JsonRpcErrorsValueError(f\"{py} must be {}, not {{value!r}}\")",
                tuple.join(", "),
                names.join(" or "),
            )
        }
        Ty::String => {
            let d = default.ok_or_else(|| anyhow!("{} needs a default", f.name))?;
            format!("value = options.get({py:?}, {d:?})\n    _text(value, {py:?})")
        }
        Ty::Option(t) => match t.as_ref() {
            // Not given: None (the session resolves it).
            Ty::Enum(_, cases) => {
                let names: Vec<String> = cases.iter().map(|c| format!("'{c}'")).collect();
                let tuple: Vec<String> = cases.iter().map(|c| py_literal(c)).collect();
                format!(
                    "value = options.get({py:?})\n    if value is not None and value not in ({},):\n        raise JsonRpcErrorsValueError(f\"{py} must be {}, not {{value!r}}\")",
                    tuple.join(", "),
                    names.join(" or "),
                )
            }
            Ty::U32 | Ty::U64 | Ty::S32 => {
                format!("value = options.get({py:?})\n    if value is not None:\n        _u64(value, {py:?})")
            }
            // Absent: not given (None); None: no limit (0).
            Ty::Limit => format!(
                "value = options.get({py:?}, ...)\n    if value is ...:\n        value = None\n    elif value is None:\n        value = 0\n    else:\n        _u64(value, {py:?})"
            ),
            Ty::String => {
                format!("value = options.get({py:?})\n    if value is not None:\n        _text(value, {py:?})")
            }
            Ty::Bool => {
                format!("value = options.get({py:?})\n    if value is not None:\n        _bool(value, {py:?})")
            }
            Ty::Pairs => format!(
                "value = options.get({py:?})\n    if value is not None:\n        value = _pairs(value, {py:?})"
            ),
            Ty::List(t) if **t == Ty::String => format!(
                "value = options.get({py:?})\n    if value is not None:\n        value = _texts(value, {py:?})"
            ),
            other => bail!("an option cannot be option<{other:?}>"),
        },
        Ty::Pairs => format!("value = _pairs(options.get({py:?}), {py:?})"),
        other => bail!("an option cannot be {other:?}"),
    })
}

fn python(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "# {HEADER}");
    let _ = writeln!(
        o,
        "\"\"\"A guard session's options and what its calls return, as ``interface guard`` in wit/world.wit states them.\"\"\"\n"
    );
    let _ = writeln!(o, "from __future__ import annotations\n");
    let _ = writeln!(o, "from collections.abc import Mapping, Sequence");
    let _ = writeln!(o, "from typing import Any, Literal, Optional, TypedDict\n");
    let _ = writeln!(o, "from wasmtime.component import Record\n");
    let _ = writeln!(o, "from ._args import _bool, _pairs, _text, _texts, _u64");
    let _ = writeln!(
        o,
        "from ._errors import ArgumentTypeError, JsonRpcErrorsValueError\n"
    );
    for (name, cases, docs) in &s.enums {
        if name == "dialect" || name == "batch-policy" {
            continue;
        }
        for line in docs {
            let _ = writeln!(o, "#: {line}");
        }
        let _ = writeln!(
            o,
            "{} = Literal[{}]\n",
            py_alias(name),
            cases
                .iter()
                .map(|(c, _)| py_literal(c))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    // Step: every case's fields, the `step` member naming the case.
    let _ = writeln!(o, "\nclass Step(TypedDict, total=False):");
    let _ = writeln!(o, "    \"\"\"One step, carried out in order: ``step`` names the case ({}); the other members are its fields,\n    absent when none.\"\"\"\n",
        s.steps.iter().map(|(c, ..)| format!("``{c}``")).collect::<Vec<_>>().join(", "));
    let _ = writeln!(
        o,
        "    step: Literal[{}]",
        s.steps
            .iter()
            .map(|(c, ..)| py_literal(c))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut seen: Vec<String> = Vec::new();
    for (_, _, _, fields) in &s.steps {
        for f in fields {
            if seen.contains(&f.snake()) {
                continue;
            }
            seen.push(f.snake());
            py_comment(&mut o, &f.docs);
            let _ = writeln!(o, "    {}: {}", f.snake(), py_step_type(&f.ty)?);
        }
    }
    let _ = writeln!(o, "\n\nclass Outcome(TypedDict):");
    let _ = writeln!(o, "    \"\"\"What a session call returns.\"\"\"\n");
    for f in &s.outcome {
        py_comment(&mut o, &f.docs);
        let ty = match &f.ty {
            Ty::Option(t) => format!("Optional[{}]", py_step_type(t)?),
            t => py_step_type(t)?,
        };
        let _ = writeln!(o, "    {}: {ty}", f.snake());
    }
    // Options.
    let _ = writeln!(o, "\n\nclass GuardOptions(TypedDict, total=False):");
    let _ = writeln!(o, "    \"\"\":class:`GuardSession`'s keyword options (the dialect is its first argument).\"\"\"\n");
    for f in s.options.iter().filter(|f| !is_dialect_option(&f.ty)) {
        py_comment(&mut o, &f.docs);
        let _ = writeln!(o, "    {}: {}", f.snake(), py_option_type(&f.ty)?);
    }
    let names: Vec<String> = s
        .options
        .iter()
        .filter(|f| !is_dialect_option(&f.ty))
        .map(|f| py_literal(&f.snake()))
        .collect();
    let _ = writeln!(o, "\n\n_OPTIONS = frozenset(({},))\n", names.join(", "));
    let _ = writeln!(
        o,
        "\ndef _options_record(dialect: Optional[str], options: Mapping[str, Any]) -> Record:"
    );
    let _ = writeln!(o, "    \"\"\"``guard-options`` for the component: ``dialect`` (already checked) and the options, each checked.\"\"\"");
    let _ = writeln!(o, "    unknown = sorted(set(options) - _OPTIONS)");
    let _ = writeln!(o, "    if unknown:");
    let _ = writeln!(o, "        raise ArgumentTypeError(f\"GuardSession got an unexpected option {{unknown[0]!r}}\")");
    let _ = writeln!(o, "    record = Record()");
    for f in &s.options {
        if is_dialect_option(&f.ty) {
            let _ = writeln!(o, "    setattr(record, {:?}, dialect)", f.name);
            continue;
        }
        let _ = writeln!(o, "    {}", py_marshal(f)?);
        let _ = writeln!(o, "    setattr(record, {:?}, value)", f.name);
    }
    let _ = writeln!(o, "    return record");
    settings_mirror(&mut o, s, Shell::Python)?;
    Ok(o)
}

// ------------------------------------------------------------------------------------------ TypeScript

pub(crate) fn ts_doc(out: &mut String, indent: &str, docs: &[String]) {
    match docs.len() {
        0 => {}
        1 => {
            let _ = writeln!(out, "{indent}/** {} */", docs[0]);
        }
        _ => {
            let _ = writeln!(out, "{indent}/**");
            for line in docs {
                let _ = writeln!(
                    out,
                    "{indent} *{}{line}",
                    if line.is_empty() { "" } else { " " }
                );
            }
            let _ = writeln!(out, "{indent} */");
        }
    }
}

fn ts_name(wit: &str) -> String {
    match wit {
        "step" => "GuardStep".into(),
        "session-outcome" => "GuardOutcome".into(),
        "guard-options" => "GuardOptions".into(),
        other => upper_camel(other),
    }
}

fn ts_step_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::Enum(name, _) => upper_camel(name),
        Ty::String => "string".into(),
        Ty::U32 | Ty::U64 | Ty::S32 => "number".into(),
        Ty::Json => "Id".into(),
        Ty::Option(t) => ts_step_type(t)?,
        Ty::List(t) => format!("{}[]", ts_step_type(t)?),
        Ty::Named(n) => ts_name(n),
        other => bail!("a step cannot carry {other:?}"),
    })
}

fn ts_option_type(ty: &Ty) -> Result<String> {
    Ok(match ty {
        _ if is_dialect(ty) => "Dialect".into(),
        Ty::Enum(_, cases) => cases
            .iter()
            .map(|c| py_literal(c))
            .collect::<Vec<_>>()
            .join(" | "),
        Ty::String => "string".into(),
        Ty::Bool => "boolean".into(),
        Ty::U32 | Ty::U64 | Ty::S32 | Ty::Limit => "number".into(),
        Ty::Option(t) => format!("{} | null", ts_option_type(t)?),
        Ty::Pairs => "Record<string, string | undefined>".into(),
        Ty::List(t) if **t == Ty::String => "readonly string[]".into(),
        other => bail!("an option cannot be {other:?}"),
    })
}

fn ts_marshal(f: &Field) -> Result<String> {
    let key = f.camel();
    let v = format!("options.{key}");
    let default = f.default()?;
    Ok(match &f.ty {
        Ty::Enum(..) | Ty::String => format!(
            "text({v}, {}, {})",
            py_literal(&key),
            py_literal(&default.ok_or_else(|| anyhow!("{} needs a default", f.name))?)
        ),
        Ty::Option(t) => match t.as_ref() {
            // Not given: null (the session resolves it); a name the guest checks.
            Ty::Enum(..) => format!("{v} == null ? null : text({v}, {}, \"\")", py_literal(&key)),
            Ty::U32 | Ty::U64 | Ty::S32 => {
                format!("{v} == null ? null : u64({v}, {})", py_literal(&key))
            }
            // Undefined: not given (left out of the JSON); null: no limit (0).
            Ty::Limit => format!(
                "{v} === undefined ? undefined : {v} === null ? 0 : u64({v}, {})",
                py_literal(&key)
            ),
            Ty::String => format!("{v} == null ? null : text({v}, {}, \"\")", py_literal(&key)),
            Ty::Bool => format!("{v} == null ? null : flag({v}, {})", py_literal(&key)),
            Ty::Pairs => format!("{v} == null ? null : pairs({v}, {})", py_literal(&key)),
            Ty::List(t) if **t == Ty::String => {
                format!("{v} == null ? null : texts({v}, {})", py_literal(&key))
            }
            other => bail!("an option cannot be option<{other:?}>"),
        },
        Ty::Pairs => format!("pairs({v} ?? processEnv(), {})", py_literal(&key)),
        other => bail!("an option cannot be {other:?}"),
    })
}

fn typescript(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    let _ = writeln!(o, "import {{ ArgumentTypeError }} from \"./errors.js\";");
    let _ = writeln!(o, "import {{ checkedText }} from \"./runtime.js\";");
    let _ = writeln!(o, "import type {{ Dialect }} from \"./taxonomy.js\";");
    let _ = writeln!(o, "import type {{ Id }} from \"./types.js\";\n");
    for (name, cases, docs) in &s.enums {
        if name == "dialect" || name == "batch-policy" {
            continue;
        }
        ts_doc(&mut o, "", docs);
        let _ = writeln!(
            o,
            "export type {} = {};\n",
            upper_camel(name),
            cases
                .iter()
                .map(|(c, _)| py_literal(c))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    for (case, record, docs, fields) in &s.steps {
        ts_doc(&mut o, "", docs);
        let _ = writeln!(
            o,
            "export interface {} {{\n  step: {};",
            ts_name(record),
            py_literal(case)
        );
        for f in fields {
            ts_doc(&mut o, "  ", &f.docs);
            let optional = if matches!(f.ty, Ty::Option(_)) {
                "?"
            } else {
                ""
            };
            let _ = writeln!(o, "  {}{optional}: {};", f.snake(), ts_step_type(&f.ty)?);
        }
        let _ = writeln!(o, "}}\n");
    }
    let _ = writeln!(
        o,
        "/** One step of a call, carried out in order. */\nexport type GuardStep = {};\n",
        s.steps
            .iter()
            .map(|(_, r, ..)| ts_name(r))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(
        o,
        "/** What a session call returns. */\nexport interface GuardOutcome {{"
    );
    for f in &s.outcome {
        ts_doc(&mut o, "  ", &f.docs);
        let ty = match &f.ty {
            Ty::Option(t) => format!("{} | null", ts_step_type(t)?),
            t => ts_step_type(t)?,
        };
        let _ = writeln!(o, "  {}: {ty};", f.snake());
    }
    let _ = writeln!(o, "}}\n");
    ts_doc(&mut o, "", &s.options_docs);
    let _ = writeln!(o, "export interface GuardOptions {{");
    for f in &s.options {
        ts_doc(&mut o, "  ", &f.docs);
        let _ = writeln!(o, "  {}?: {};", f.camel(), ts_option_type(&f.ty)?);
    }
    let _ = writeln!(o, "}}\n");
    let _ = writeln!(o, "{}", TS_HELPERS);
    let _ = writeln!(o, "/** The options as the guard module's glue reads them (`guard-options` as JSON, snake_case keys), each checked. */");
    let _ = writeln!(
        o,
        "export function guardOptionsJson(options: GuardOptions): string {{"
    );
    let _ = writeln!(o, "  if (typeof options !== \"object\" || options === null) throw new ArgumentTypeError(\"options must be an object\");");
    let _ = writeln!(o, "  return JSON.stringify({{");
    for f in &s.options {
        let _ = writeln!(o, "    {}: {},", f.snake(), ts_marshal(f)?);
    }
    let _ = writeln!(o, "  }});\n}}");
    settings_mirror(&mut o, s, Shell::TypeScript)?;
    Ok(o)
}

// ---------------------------------------------------------------------------- session settings, each shell

#[derive(Clone, Copy, PartialEq)]
enum Shell {
    Host,
    Python,
    TypeScript,
}

/// `session-settings`, the JSON `settings` returns, as each shell reads it: the host's `Settings` (serde),
/// Python's `Settings` TypedDict, TypeScript's `GuardSettings` interface. Fields are scalars, enums (names)
/// and options (null).
fn settings_mirror(o: &mut String, s: &Schema, shell: Shell) -> Result<()> {
    fn scalar(ty: &Ty, shell: Shell) -> Result<String> {
        let names = |cases: &[String], sep: &str| {
            cases
                .iter()
                .map(|c| py_literal(c))
                .collect::<Vec<_>>()
                .join(sep)
        };
        Ok(match (ty, shell) {
            (t, Shell::Host) if is_dialect(t) => "String".into(),
            (t, Shell::Python) if is_dialect(t) => "str".into(),
            (t, Shell::TypeScript) if is_dialect(t) => "Dialect".into(),
            (Ty::Enum(..), Shell::Host) => "String".into(),
            (Ty::Enum(_, cases), Shell::Python) => format!("Literal[{}]", names(cases, ", ")),
            (Ty::Enum(_, cases), Shell::TypeScript) => names(cases, " | "),
            (Ty::U64 | Ty::Limit, Shell::Host) => "u64".into(),
            (Ty::U64 | Ty::Limit, Shell::Python) => "int".into(),
            (Ty::U64 | Ty::Limit, Shell::TypeScript) => "number".into(),
            (Ty::Option(t), Shell::Host) => format!("Option<{}>", scalar(t, shell)?),
            (Ty::Option(t), Shell::Python) => format!("Optional[{}]", scalar(t, shell)?),
            (Ty::Option(t), Shell::TypeScript) => format!("{} | null", scalar(t, shell)?),
            (other, _) => bail!("session-settings cannot carry {other:?}"),
        })
    }
    match shell {
        Shell::Host => {
            let _ = writeln!(o);
            rust_doc(o, "", &s.settings_docs);
            let _ = writeln!(
                o,
                "#[derive(Debug, Clone, PartialEq, Deserialize)]\npub struct Settings {{"
            );
            for f in &s.settings {
                rust_doc(o, "    ", &f.docs);
                let _ = writeln!(o, "    pub {}: {},", f.snake(), scalar(&f.ty, shell)?);
            }
            let _ = writeln!(o, "}}");
        }
        Shell::Python => {
            let _ = writeln!(o, "\n\nclass Settings(TypedDict):");
            let _ = writeln!(o, "    \"\"\"{}\"\"\"\n", s.settings_docs.join("\n    "));
            for f in &s.settings {
                py_comment(o, &f.docs);
                let _ = writeln!(o, "    {}: {}", f.snake(), scalar(&f.ty, shell)?);
            }
        }
        Shell::TypeScript => {
            let _ = writeln!(o);
            ts_doc(o, "", &s.settings_docs);
            let _ = writeln!(o, "export interface GuardSettings {{");
            for f in &s.settings {
                ts_doc(o, "  ", &f.docs);
                let _ = writeln!(o, "  {}: {};", f.snake(), scalar(&f.ty, shell)?);
            }
            let _ = writeln!(o, "}}");
        }
    }
    Ok(())
}

const TS_HELPERS: &str = r#"function text(value: unknown, what: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string") throw new ArgumentTypeError(`${what} must be a string`);
  return checkedText(value);
}

function flag(value: unknown, what: string): boolean {
  if (typeof value !== "boolean") throw new ArgumentTypeError(`${what} must be a boolean`);
  return value;
}

function u64(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new ArgumentTypeError(`${what} must be a non-negative safe integer`);
  }
  return value;
}

/** `{name: value}` as (name, value) pairs; unset values left out. */
function pairs(env: unknown, what: string): [string, string][] {
  if (typeof env !== "object" || env === null) throw new ArgumentTypeError(`${what} must be an object of strings`);
  return Object.entries(env as Record<string, unknown>).flatMap(([k, v]): [string, string][] =>
    typeof v === "string" ? [[checkedText(k), checkedText(v)]] : [],
  );
}

/** A list of strings, each checked. */
function texts(value: unknown, what: string): string[] {
  if (!Array.isArray(value)) throw new ArgumentTypeError(`${what} must be an array of strings`);
  return value.map((v: unknown) => {
    if (typeof v !== "string") throw new ArgumentTypeError(`${what} must be an array of strings`);
    return checkedText(v);
  });
}

/** The process environment where there is one (Node), as in Python; none in a browser. */
function processEnv(): Record<string, string | undefined> {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
}
"#;
