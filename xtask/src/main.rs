//! The project's build tool: `cargo xtask <command>`.
//!
//! - `gen`: write the files generated from the taxonomy and the WIT (`--check`: fail if any is stale), the
//!   guard session's options and steps among them (`guardgen.rs`; the `session-outcome` record's
//!   conversions, `outcomegen.rs`), why the upstream failed
//!   (`failuregen.rs`), the redaction options (`redactgen.rs`) and the
//!   validate options (`validategen.rs`)
//! - `component`: build the guest for wasm32-unknown-unknown and make it a component
//!   (target/component/jsonrpc-errors.wasm), then precompile it for this machine (.cwasm)
//! - `vectors`: record tests/vectors/*.json from the native guest (review the diff)
//! - `js`: build the npm package's modules (wasm-bindgen, wasm-opt) and its TypeScript
//! - `build`: `component`, then the release CLI (target/release/jsonrpc-errors)

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

mod codegen;
#[path = "../../host/build/component.rs"]
mod component_build;
mod defaultsgen;
mod failuregen;
mod guardgen;
mod js;
mod outcomegen;
mod pysig;
mod recordgen;
mod redactgen;
mod validategen;
mod vectors;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("workspace root exists")
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

fn run(mut cmd: Command) -> Result<()> {
    let status = cmd.status().with_context(|| format!("running {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}

fn gen(check: bool) -> Result<()> {
    let mut stale = Vec::new();
    let mut files = codegen::generated_files();
    files.push((pysig::PATH, pysig::python_signatures()?));
    files.extend(guardgen::generated_files()?);
    files.extend(outcomegen::generated_files()?);
    files.extend(failuregen::generated_files()?);
    files.extend(redactgen::generated_files()?);
    files.extend(validategen::generated_files()?);
    files.extend(defaultsgen::generated_files()?);
    for (rel, content) in files {
        let path = root().join(rel);
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == content {
            continue;
        }
        if check {
            stale.push(rel);
        } else {
            std::fs::create_dir_all(path.parent().expect("generated files live in folders"))?;
            std::fs::write(&path, content)?;
            println!("wrote {rel}");
        }
    }
    if !stale.is_empty() {
        bail!("stale generated files (run `cargo xtask gen`): {stale:?}");
    }
    Ok(())
}

pub fn component_dir() -> PathBuf {
    root().join("target").join("component")
}

fn component() -> Result<()> {
    // The one way the component is built (host/build/component.rs, also run by the host's build script), in
    // this workspace's target directory.
    let cargo_bin = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let built = component_build::build(
        Path::new(&cargo_bin),
        Path::new(&rustc),
        &root(),
        &root().join("target"),
    )
    .map_err(anyhow::Error::msg)?;
    let component = built.component;
    let dir = component_dir();
    std::fs::create_dir_all(&dir)?;
    let out = dir.join("jsonrpc-errors.wasm");
    // The host embeds the .cwasm beside the .wasm when the .wasm is its component: the old .cwasm goes first, so
    // that no build in between pairs the new component with the old artifact.
    let cwasm = dir.join("jsonrpc-errors.cwasm");
    if std::fs::read(&out).ok().as_deref() != Some(&component[..]) {
        let _ = std::fs::remove_file(&cwasm);
    }
    std::fs::write(&out, &component)?;
    println!(
        "wrote {} ({} bytes) from {}",
        out.display(),
        component.len(),
        built.core.display()
    );

    // Precompiled by a package of the host's (the same engine configuration and the same wasmtime build).
    let mut precompile = cargo();
    precompile
        .args([
            "run",
            "--release",
            "--quiet",
            "-p",
            "jsonrpc-errors-precompile",
            "--",
        ])
        .arg(&out)
        .arg(&cwasm);
    run(precompile)?;
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("gen") => gen(args.iter().any(|a| a == "--check")),
        Some("component") => component(),
        Some("js") => js::build(),
        Some("vectors") => vectors::write(),
        Some("build") => {
            component()?;
            let mut b = cargo();
            b.args(["build", "--release", "-p", "jsonrpc-errors-host"]);
            run(b)
        }
        _ => bail!("usage: cargo xtask gen [--check] | component | build | js"),
    }
}
