//! The two conversions of a guard session's outcome across the component boundary, generated from the WIT's
//! `session-outcome`, its `step` variant and their records (`interface guard`; part of `cargo xtask gen`):
//!
//! - the guest's (`guest/src/component/session_outcome.rs`): its `Outcome` into the WIT record the
//!   `*-outcome` calls return, field for field what `Outcome::to_json` writes as text;
//! - the host's (`host/src/guard/outcome_record.rs`): that record into the host's `Outcome`, the same value its
//!   JSON text reads as (host/tests/typed_outcome.rs compares the two paths on generated lines).
//!
//! Both are `From` impls (`Outcome` into `wit::SessionOutcome` and back), the entry points every call that
//! returns the record uses, one outcome at a time. The types on each side are `guardgen.rs`'s: an enum the
//! guard interface declares is a Rust enum in the guest (and `peer` in the host), mapped case by case; an enum
//! it `use`s (`log-level`) is its name in the guest, read into the WIT's case here; any other enum is its name
//! in the host (`name()`, generated in `schema.rs`); a `json-value` crosses as its JSON text; a `u32` is a
//! count (`usize`) on both sides.

use crate::guardgen::{boxed_step, rust_doc, schema, upper_camel, Field, Schema, Ty, HEADER};
use crate::recordgen::rustfmt;
use anyhow::{anyhow, bail, Result};
use std::fmt::Write;

pub const GUEST: &str = "guest/src/component/session_outcome.rs";
pub const HOST: &str = "host/src/guard/outcome_record.rs";

/// (path relative to the repository root, content) of both conversions.
pub fn generated_files() -> Result<Vec<(&'static str, String)>> {
    let s = schema()?;
    Ok(vec![(GUEST, guest(&s)?), (HOST, host(&s)?)])
}

fn snake(kebab: &str) -> String {
    kebab.replace('-', "_")
}

/// The enums the steps and the outcome carry, each once, in the order the fields name them.
fn carried_enums(s: &Schema) -> Vec<(String, Vec<String>)> {
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let fields = s
        .steps
        .iter()
        .flat_map(|(.., fields)| fields.iter())
        .chain(s.outcome.iter());
    for f in fields {
        let ty = match &f.ty {
            Ty::Option(inner) => inner.as_ref(),
            ty => ty,
        };
        if let Ty::Enum(name, cases) = ty {
            if !found.iter().any(|(n, _)| n == name) {
                found.push((name.clone(), cases.clone()));
            }
        }
    }
    found
}

/// Every step record's fields, as the `match` on a step binds them: `(the step's Rust case, whether it is
/// boxed, the WIT record's Rust name, the fields)`.
fn steps(s: &Schema) -> impl Iterator<Item = (String, bool, String, &[Field])> {
    s.steps.iter().map(|(case, record, _, fields)| {
        (
            upper_camel(case),
            boxed_step(fields),
            upper_camel(record),
            fields.as_slice(),
        )
    })
}

// ----------------------------------------------------------------------------------------------- guest

/// The guest's value at `place` as the WIT's field of type `ty`.
fn guest_value(s: &Schema, place: &str, ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::Enum(name, _) if s.own_enums.contains(name) => format!("{}({place})", snake(name)),
        Ty::Enum(name, _) => format!("{}(&{place})", snake(name)),
        Ty::Json => format!("{place}.to_string()"),
        Ty::U32 => format!("{place} as u32"),
        Ty::String | Ty::U64 | Ty::S32 => place.to_string(),
        Ty::List(t) if **t == Ty::Named("step".into()) => {
            format!("{place}.into_iter().map(step).collect()")
        }
        Ty::Option(t) => match t.as_ref() {
            Ty::String | Ty::U64 | Ty::S32 => place.to_string(),
            Ty::Json => format!("{place}.map(|v| v.to_string())"),
            Ty::U32 => format!("{place}.map(|v| v as u32)"),
            Ty::Enum(name, _) if s.own_enums.contains(name) => {
                format!("{place}.map({})", snake(name))
            }
            Ty::Enum(name, _) => format!("{place}.as_deref().map({})", snake(name)),
            other => bail!("the component cannot pass an outcome's option<{other:?}>"),
        },
        other => bail!("the component cannot pass an outcome's {other:?}"),
    })
}

fn guest(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    o.push_str(
        "//! A session call's outcome as the WIT's `session-outcome` record (`client-line-outcome` and the other\n\
         //! calls that return the record itself): field for field what `Outcome::to_json` writes as text, so that a\n\
         //! shell reading the record and one reading the JSON see the same steps (host/tests/typed_outcome.rs\n\
         //! compares them on generated lines). Written by `xtask/src/outcomegen.rs`.\n\n",
    );
    let _ = writeln!(o, "use super::exports::jsonrpc_errors::core::guard as wit;");
    let mut imports: Vec<String> = vec!["Outcome".into(), "Step".into()];
    for (case, boxed, ..) in steps(s) {
        if boxed {
            imports.push(case);
        }
    }
    for (name, _) in carried_enums(s) {
        if s.own_enums.contains(&name) {
            imports.push(upper_camel(&name));
        }
    }
    imports.sort();
    let _ = writeln!(o, "use crate::guard::{{{}}};\n", imports.join(", "));

    // The outcome.
    let _ = writeln!(
        o,
        "impl From<Outcome> for wit::SessionOutcome {{\n    fn from(o: Outcome) -> Self {{\n        wit::SessionOutcome {{"
    );
    for f in &s.outcome {
        let value = guest_value(s, &format!("o.{}", f.snake()), &f.ty)?;
        let _ = writeln!(o, "            {}: {value},", f.snake());
    }
    let _ = writeln!(o, "        }}\n    }}\n}}\n");

    // The step: a boxed case's record by its own function (kept out of the step's match).
    let _ = writeln!(o, "fn step(s: Step) -> wit::Step {{\n    match s {{");
    for (case, boxed, record, fields) in steps(s) {
        if boxed {
            let _ = writeln!(
                o,
                "        Step::{case}(r) => wit::Step::{case}({}(*r)),",
                snake(&format!("{case}-step")).to_lowercase()
            );
            continue;
        }
        let names: Vec<String> = fields.iter().map(Field::snake).collect();
        let _ = writeln!(
            o,
            "        Step::{case} {{ {} }} => wit::Step::{case}(wit::{record} {{",
            names.join(", ")
        );
        for f in fields {
            let value = guest_value(s, &f.snake(), &f.ty)?;
            if value == f.snake() {
                let _ = writeln!(o, "            {value},");
            } else {
                let _ = writeln!(o, "            {}: {value},", f.snake());
            }
        }
        let _ = writeln!(o, "        }}),");
    }
    let _ = writeln!(o, "    }}\n}}\n");
    for (case, boxed, record, fields) in steps(s) {
        if !boxed {
            continue;
        }
        let _ = writeln!(
            o,
            "fn {}(r: {case}) -> wit::{record} {{\n    wit::{record} {{",
            snake(&format!("{case}-step")).to_lowercase()
        );
        for f in fields {
            let value = guest_value(s, &format!("r.{}", f.snake()), &f.ty)?;
            let _ = writeln!(o, "        {}: {value},", f.snake());
        }
        let _ = writeln!(o, "    }}\n}}\n");
    }

    // The enums.
    for (name, cases) in carried_enums(s) {
        let wit = upper_camel(&name);
        if s.own_enums.contains(&name) {
            let _ = writeln!(
                o,
                "fn {}(v: {wit}) -> wit::{wit} {{\n    match v {{",
                snake(&name)
            );
            for case in &cases {
                let c = upper_camel(case);
                let _ = writeln!(o, "        {wit}::{c} => wit::{wit}::{c},");
            }
            let _ = writeln!(o, "    }}\n}}\n");
        } else {
            // The guest holds the case's name (`log-level`: the taxonomy's `log_level`, and the builders' in
            // `steps.rs`, are the enum's cases). A name outside them, which none writes, reads as the first
            // case (the loudest level: kinds.wit lists `error` first) rather than vanish from the log.
            let (first, _) = cases
                .split_first()
                .ok_or_else(|| anyhow!("enum {name} has no case"))?;
            rust_doc(
                &mut o,
                "",
                &[format!(
                    "The case named `name`; a name outside the cases (none is written) reads as `{first}`, the first."
                )],
            );
            let _ = writeln!(
                o,
                "fn {}(name: &str) -> wit::{wit} {{\n    match name {{",
                snake(&name)
            );
            for case in cases.iter().skip(1) {
                let _ = writeln!(o, "        {case:?} => wit::{wit}::{},", upper_camel(case));
            }
            let _ = writeln!(o, "        _ => wit::{wit}::{},", upper_camel(first));
            let _ = writeln!(o, "    }}\n}}\n");
        }
    }
    rustfmt(o.trim_end())
}

// ------------------------------------------------------------------------------------------------ host

/// The WIT's field at `place` as the host's field of type `ty`.
fn host_value(place: &str, ty: &Ty) -> Result<String> {
    Ok(match ty {
        Ty::Enum(name, _) if name == "peer" => format!("peer({place})"),
        Ty::Enum(..) => format!("{place}.name().into()"),
        Ty::U32 => format!("{place} as usize"),
        Ty::String | Ty::U64 | Ty::S32 => place.to_string(),
        Ty::List(t) if **t == Ty::Named("step".into()) => {
            format!("{place}.into_iter().map(step).collect()")
        }
        Ty::Option(t) => match t.as_ref() {
            Ty::String | Ty::U64 | Ty::S32 => place.to_string(),
            Ty::Json => format!("{place}.and_then(json_value)"),
            Ty::U32 => format!("{place}.map(|v| v as usize)"),
            Ty::Enum(name, _) if name == "peer" => format!("{place}.map(peer)"),
            Ty::Enum(..) => format!("{place}.map(|v| v.name().into())"),
            other => bail!("the host cannot read an outcome's option<{other:?}>"),
        },
        other => bail!("the host cannot read an outcome's {other:?}"),
    })
}

fn host(s: &Schema) -> Result<String> {
    let mut o = String::new();
    let _ = writeln!(o, "// {HEADER}\n");
    o.push_str(
        "//! A session call's outcome read from the WIT's `session-outcome` record (the `*-outcome` calls) rather\n\
         //! than from its JSON text: the same `Outcome` either way (tests/typed_outcome.rs compares them on\n\
         //! generated lines), without the component writing JSON and the host parsing it again for every relayed\n\
         //! line. An enum the JSON gives by name is its name here (`name()`, generated in `schema.rs`). Written by\n\
         //! `xtask/src/outcomegen.rs`.\n\n",
    );
    let mut imports: Vec<String> = vec!["Outcome".into(), "Step".into()];
    for (case, boxed, ..) in steps(s) {
        if boxed {
            imports.push(case);
        }
    }
    let enums = carried_enums(s);
    if enums.iter().any(|(n, _)| n == "peer") {
        imports.push("Peer".into());
    }
    imports.sort();
    let _ = writeln!(o, "use super::schema::{{{}}};", imports.join(", "));
    let _ = writeln!(
        o,
        "use crate::exports::jsonrpc_errors::core::guard as wit;\n"
    );

    let _ = writeln!(
        o,
        "impl From<wit::SessionOutcome> for Outcome {{\n    fn from(o: wit::SessionOutcome) -> Self {{\n        Outcome {{"
    );
    for f in &s.outcome {
        let value = host_value(&format!("o.{}", f.snake()), &f.ty)?;
        let _ = writeln!(o, "            {}: {value},", f.snake());
    }
    let _ = writeln!(o, "        }}\n    }}\n}}\n");

    let _ = writeln!(o, "fn step(s: wit::Step) -> Step {{\n    match s {{");
    for (case, boxed, _, fields) in steps(s) {
        if boxed {
            let _ = writeln!(
                o,
                "        wit::Step::{case}(r) => Step::{case}(Box::new({case} {{"
            );
        } else {
            let _ = writeln!(o, "        wit::Step::{case}(r) => Step::{case} {{");
        }
        for f in fields {
            let value = host_value(&format!("r.{}", f.snake()), &f.ty)?;
            let _ = writeln!(o, "            {}: {value},", f.snake());
        }
        let _ = writeln!(o, "        }}{},", if boxed { "))" } else { "" });
    }
    let _ = writeln!(o, "    }}\n}}\n");

    if let Some((_, cases)) = enums.iter().find(|(n, _)| n == "peer") {
        let _ = writeln!(o, "fn peer(p: wit::Peer) -> Peer {{\n    match p {{");
        for case in cases {
            let c = upper_camel(case);
            let _ = writeln!(o, "        wit::Peer::{c} => Peer::{c},");
        }
        let _ = writeln!(o, "    }}\n}}\n");
    }
    let json = |ty: &Ty| matches!(ty, Ty::Json) || matches!(ty, Ty::Option(t) if **t == Ty::Json);
    let carries_json = s
        .steps
        .iter()
        .flat_map(|(.., fields)| fields.iter())
        .chain(s.outcome.iter())
        .any(|f| json(&f.ty));
    if carries_json {
        o.push_str(
            "/// A `json-value` the component wrote as JSON text: `null` reads as absent, as the outcome's JSON reads\n\
             /// (serde's `Option<Value>`), and so does text it could not have written.\n\
             fn json_value(text: String) -> Option<serde_json::Value> {\n    \
             serde_json::from_str::<Option<serde_json::Value>>(&text).ok().flatten()\n}\n",
        );
    }
    rustfmt(o.trim_end())
}
