//! What the generators of single records share (`redactgen.rs`: `redaction-options`; `validategen.rs`:
//! `validate-options`; `defaultsgen.rs`: `policy-defaults`): reading their records from `wit/world.wit` and the
//! default an enum field states. The field model, the WIT reader and the per-language doc writers are `guardgen.rs`'s.

use crate::guardgen::{Field, Reader, Ty};
use anyhow::{anyhow, bail, Context, Result};
use std::io::Write as _;
use std::process::{Command, Stdio};

/// Parses `wit/` and hands `read` a reader of `interface types`.
pub(crate) fn read_types<T>(read: impl FnOnce(&mut Reader<'_>) -> Result<T>) -> Result<T> {
    crate::guardgen::read_interface("types", read)
}

/// The case an enum field (or an option of one) of `record` states as its default in a doc line
/// (`Default: `case`.`), checked against the enum's cases; None for a field of another type.
pub(crate) fn enum_default(record: &str, f: &Field) -> Result<Option<String>> {
    let (name, cases) = match &f.ty {
        Ty::Enum(name, cases) => (name, cases),
        Ty::Option(inner) => match inner.as_ref() {
            Ty::Enum(name, cases) => (name, cases),
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    let text = f.docs.join(" ");
    let Some(at) = text.find("Default: `") else {
        bail!(
            "{record}.{}: a field of {name} states no `Default: `case`.`",
            f.name
        );
    };
    let rest = &text[at + "Default: `".len()..];
    let case = &rest[..rest
        .find('`')
        .ok_or_else(|| anyhow!("{record}.{}: unclosed default", f.name))?];
    if !cases.iter().any(|c| c == case) {
        bail!("{record}.{}: default `{case}` is no case of {name}", f.name);
    }
    Ok(Some(case.to_string()))
}

/// Rust as rustfmt writes it (`gen --check` compares the text with the file `cargo fmt` keeps).
pub(crate) fn rustfmt(source: &str) -> Result<String> {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("running rustfmt")?;
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(source.as_bytes())?;
    let out = child.wait_with_output()?;
    if !out.status.success() {
        bail!("rustfmt refused the generated code:\n{source}");
    }
    Ok(String::from_utf8(out.stdout)?)
}
