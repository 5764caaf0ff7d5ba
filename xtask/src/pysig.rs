//! `bindings/python/src/jsonrpc_errors/_signatures.py`, generated from `wit/world.wit` (part of `cargo xtask
//! gen`): how the Python package calls each export, as plain data. Each parameter type becomes a descriptor
//! (`"string"`, `"enum"`, `"u64"`, `"s64"`, `"bytes"` for `list<u8>`, `"borrow"`, `("option", T)`,
//! `("record", ((name, T), ...))`) and each result one of `"string"`, `"outcome"`, `"record-text"` (a record's
//! `text` field only); an export with any other type is `None`: called through wasmtime-py's generic API.
//! `_abi` (the C-API fast path) and `_public` (wasmtime-py's public API) both build their callers from these.

use anyhow::{anyhow, Context, Result};
use std::fmt::Write;
use wit_parser::{Function, FunctionKind, Handle, Resolve, Type, TypeDefKind};

pub const PATH: &str = "bindings/python/src/jsonrpc_errors/_signatures.py";

fn param(resolve: &Resolve, ty: &Type) -> Option<String> {
    Some(match ty {
        Type::String => "\"string\"".into(),
        Type::U64 => "\"u64\"".into(),
        Type::S64 => "\"s64\"".into(),
        Type::Id(id) => match &resolve.types[*id].kind {
            TypeDefKind::Type(t) => return param(resolve, t),
            TypeDefKind::Enum(_) => "\"enum\"".into(),
            TypeDefKind::List(Type::U8) => "\"bytes\"".into(),
            TypeDefKind::Handle(Handle::Borrow(_)) => "\"borrow\"".into(),
            TypeDefKind::Option(t) => format!("(\"option\", {})", param(resolve, t)?),
            TypeDefKind::Record(r) => {
                let fields: Option<Vec<String>> = r
                    .fields
                    .iter()
                    .map(|f| param(resolve, &f.ty).map(|d| format!("({:?}, {d})", f.name)))
                    .collect();
                format!("(\"record\", ({},))", fields?.join(", "))
            }
            _ => return None,
        },
        _ => return None,
    })
}

fn result(resolve: &Resolve, ty: Option<&Type>) -> Option<&'static str> {
    match ty? {
        Type::String => Some("\"string\""),
        Type::Id(id) => {
            let def = &resolve.types[*id];
            match &def.kind {
                TypeDefKind::Type(t) => result(resolve, Some(t)),
                // `outcome`: ok(string) or failed(error-object).
                TypeDefKind::Variant(v)
                    if v.cases.len() == 2
                        && v.cases[0].name == "ok"
                        && v.cases[0].ty == Some(Type::String)
                        && v.cases[1].name == "failed" =>
                {
                    Some("\"outcome\"")
                }
                TypeDefKind::Record(r)
                    if r.fields
                        .iter()
                        .any(|f| f.name == "text" && f.ty == Type::String) =>
                {
                    Some("\"record-text\"")
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// `(descriptors of the parameters after the resource handle, result)` or `None` for the generic path.
fn signature(resolve: &Resolve, f: &Function) -> Option<String> {
    let skip = usize::from(matches!(f.kind, FunctionKind::Method(_)));
    if matches!(f.kind, FunctionKind::Constructor(_)) {
        return None;
    }
    let params: Option<Vec<String>> = f
        .params
        .iter()
        .skip(skip)
        .map(|p| param(resolve, &p.ty))
        .collect();
    let result = result(resolve, f.result.as_ref())?;
    let params = params?;
    let tuple = match params.len() {
        0 => "()".to_string(),
        1 => format!("({},)", params[0]),
        _ => format!("({})", params.join(", ")),
    };
    Some(format!("({tuple}, {result})"))
}

pub fn python_signatures() -> Result<String> {
    let mut resolve = Resolve::new();
    let (package, _) = resolve
        .push_dir(crate::root().join("wit"))
        .context("parsing wit/")?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Generated from wit/world.wit by `cargo xtask gen`; do not edit."
    );
    let _ = writeln!(out, "\"\"\"How each export is called (see xtask/src/pysig.rs): parameter descriptors after the resource");
    let _ = writeln!(
        out,
        "handle, and the result's; None: through wasmtime-py's generic API.\"\"\"\n"
    );
    let _ = writeln!(out, "from typing import Any, Optional\n");
    for (name, var) in [("api", "API"), ("guard", "GUARD")] {
        let iface = resolve.packages[package]
            .interfaces
            .get(name)
            .map(|id| &resolve.interfaces[*id])
            .ok_or_else(|| anyhow!("wit/ has no interface {name}"))?;
        let _ = writeln!(
            out,
            "{var}: dict[str, Optional[tuple[tuple[Any, ...], str]]] = {{"
        );
        for (fname, f) in &iface.functions {
            let sig = signature(&resolve, f).unwrap_or_else(|| "None".into());
            let _ = writeln!(out, "    {fname:?}: {sig},");
        }
        let _ = writeln!(out, "}}\n");
    }
    out.pop();
    Ok(out)
}
