//! `cargo xtask js`: the wasm-bindgen build of `bindings/js` for the `jsonrpc-errors` npm package.
//!
//! 1. builds the `jsonrpc-errors-js` crate for wasm32-unknown-unknown with the size-oriented `npm` profile
//!    (the redaction module: `npm-redact`);
//! 2. runs wasm-bindgen (`--target web`) through the `wasm-bindgen-cli-support` library, wrapped in the
//!    `bindings/js/bindgen` helper so that xtask itself does not compile it for every other command;
//! 3. shrinks the module with binaryen's `wasm-opt -Oz` (without its inlining) when the npm package
//!    `binaryen` is installed in bindings/js (it is a devDependency; `bindings/js/setup.sh` installs it first);
//! 4. writes the glue to bindings/js/wasm/ and, when node_modules is present, compiles the TypeScript
//!    (`npm run build`) into bindings/js/dist/.

use crate::{cargo, root, run};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

const NAME: &str = "jsonrpc_errors";

fn gzip_len(bytes: &[u8]) -> Option<usize> {
    use std::io::Write;
    let mut child = Command::new("gzip")
        .arg("-9c")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    // Written from a thread of its own: gzip's output fills the pipe long before a module has been written
    // whole, and a single thread writing all of stdin first would then wait on gzip forever.
    std::thread::scope(|s| {
        let writer = s.spawn(move || stdin.write_all(bytes));
        let out = child.wait_with_output().ok()?;
        writer.join().ok()?.ok()?;
        Some(out.stdout.len())
    })
}

fn report(label: &str, path: &Path) -> Result<()> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let gz = gzip_len(&bytes)
        .map(|n| format!(", {n} bytes gzipped"))
        .unwrap_or_default();
    println!("{label}: {} ({} bytes{gz})", path.display(), bytes.len());
    Ok(())
}

/// A target directory of its own: the npm build neither waits on nor invalidates the other builds' artifacts.
fn js_cargo() -> Command {
    let mut c = cargo();
    c.env("CARGO_TARGET_DIR", root().join("target/js"));
    c
}

/// The flags already set for the target, if any, and the `--remap-path-prefix` flags that cut the build
/// machine's paths out of the module (`component_build::path_remaps`, shared with the component's build).
fn target_rustflags() -> String {
    let mut flags: Vec<String> = std::env::var("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS")
        .map(|f| f.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    let rustc = PathBuf::from(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()));
    flags.extend(crate::component_build::path_remaps(&rustc));
    flags.join(" ")
}

/// The modules the package ships, each built from the same crate with its own features and cargo profile
/// (Cargo.toml): the base API; the guard session with redaction under options (loaded only by the
/// `jsonrpc-errors/guard` entry); redaction under options alone, built for speed (`jsonrpc-errors/redact`).
const MODULES: [(&str, &[&str], &str); 3] = [
    (NAME, &[], "npm"),
    ("jsonrpc_errors_guard", &["guard"], "npm"),
    ("jsonrpc_errors_redact", &["redact"], "npm-redact"),
];

pub fn build() -> Result<()> {
    let root = root();
    let js = root.join("bindings/js");
    let out = js.join("wasm");
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    std::fs::create_dir_all(&out)?;
    for (name, features, profile) in MODULES {
        build_module(&js, &out, name, features, profile)?;
    }

    if js.join("node_modules").exists() {
        let mut tsc = Command::new("npm");
        tsc.current_dir(&js).args(["run", "--silent", "build"]);
        run(tsc)?;
        println!("wrote {}", js.join("dist").display());
    } else {
        println!(
            "note: bindings/js/node_modules missing: run `npm ci` there, then `npm run build`"
        );
    }
    Ok(())
}

fn build_module(js: &Path, out: &Path, name: &str, features: &[&str], profile: &str) -> Result<()> {
    let root = root();
    let mut b = js_cargo();
    b.args([
        "build",
        "-p",
        "jsonrpc-errors-js",
        "--lib",
        "--target",
        "wasm32-unknown-unknown",
        "--profile",
        profile,
    ]);
    b.env(
        "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
        target_rustflags(),
    );
    if !features.is_empty() {
        b.args(["--features", &features.join(",")]);
    }
    run(b)?;
    // Each feature set overwrites the same artifact: keep a copy under the module's own name.
    let built = root.join(format!(
        "target/js/wasm32-unknown-unknown/{profile}/jsonrpc_errors_js.wasm"
    ));
    let core = root.join(format!(
        "target/js/wasm32-unknown-unknown/{profile}/{name}.core.wasm"
    ));
    std::fs::copy(&built, &core)?;
    report("core module", &core)?;

    let mut bindgen = js_cargo();
    bindgen.args([
        "run",
        "-q",
        "--release",
        "-p",
        "jsonrpc-errors-js-bindgen",
        "--",
    ]);
    bindgen.arg(&core).arg(out).arg(name);
    run(bindgen)?;

    let wasm = out.join(format!("{name}_bg.wasm"));
    report("wasm-bindgen output", &wasm)?;
    // -Oz without binaryen's own inlining (`-sp inlining-optimizing`): LLVM has already inlined what the
    // npm profile allows, and binaryen's inlining on top made the module 2% smaller raw but 6 KB larger
    // gzipped (163 KB with zlib at level 9: over the 160 KB budget), for ~15% on mapError and nothing on
    // redact (A/B in Node). Also measured on this module: -Os, -O1, -O2 are larger gzipped than this.
    // --converge (repeat until nothing shrinks: -160 B gzipped) and --low-memory-unused (-550 B: lets
    // binaryen fold constant addresses into loads, assuming the lowest 1 KB of memory is never used, true
    // of Rust's wasm layout, where the stack grows down to it only on overflow) are worth their few bytes
    // since the guard's hardening brought the module to its budget. --strip-target-features drops the
    // custom section that lists the wasm features the module was built with (-120 B gzipped): wasm-bindgen
    // has read it by now, and no engine does.
    let wasm_opt = js.join("node_modules/binaryen/bin/wasm-opt");
    if wasm_opt.exists() {
        let tmp = out.join(format!("{name}_bg.opt.wasm"));
        let mut opt = Command::new("node");
        opt.arg(&wasm_opt)
            .arg(&wasm)
            .args([
                "-Oz",
                "-sp",
                "inlining-optimizing",
                "--converge",
                "--low-memory-unused",
                "--strip-target-features",
            ])
            .args([
                "--enable-bulk-memory",
                "--enable-nontrapping-float-to-int",
                "--enable-sign-ext",
            ])
            .args([
                "--enable-mutable-globals",
                "--enable-multivalue",
                "--enable-reference-types",
            ])
            .args(["--strip-debug", "--strip-producers", "-o"])
            .arg(&tmp);
        run(opt)?;
        std::fs::rename(&tmp, &wasm)?;
        report("after wasm-opt -Oz -sp inlining-optimizing", &wasm)?;
    } else {
        println!(
            "note: {} not found (run `npm ci` in bindings/js): skipping wasm-opt",
            wasm_opt.display()
        );
    }
    Ok(())
}
