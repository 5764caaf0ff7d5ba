//! Builds the component from the guest's sources (`build/component.rs`: the same build `cargo xtask component`
//! runs) and embeds it, with its precompiled form when `cargo xtask component` made one of exactly these bytes.
//!
//! The guest is built in the target directory the host is built in, so a checkout builds it once (xtask and
//! this script share it) and another project that depends on this crate keeps it in its own `target/`.
//! `JSONRPC_ERRORS_COMPONENT=path/to/jsonrpc-errors.wasm` embeds that component instead (no wasm build).
use std::path::{Path, PathBuf};
use std::{env, fs};

#[path = "build/component.rs"]
mod component;

fn fail(message: &str) -> ! {
    eprintln!("\njsonrpc-errors-host: {message}\n");
    std::process::exit(1);
}

/// The target directory the host is being built in: the nearest folder above OUT_DIR that cargo tagged.
fn target_dir(out: &Path) -> Option<PathBuf> {
    out.ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .map(Path::to_path_buf)
}

/// Writes `bytes` unless the file already holds them (an unchanged file keeps its time: nothing downstream
/// is rebuilt for it).
fn write_if_changed(path: &Path, bytes: &[u8]) {
    if fs::read(path).ok().as_deref() != Some(bytes) {
        fs::write(path, bytes)
            .unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", path.display())));
    }
}

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.parent().unwrap().to_path_buf();
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/component.rs");
    println!("cargo:rerun-if-env-changed=JSONRPC_ERRORS_COMPONENT");

    let target = target_dir(&out).unwrap_or_else(|| out.join("guest-target"));
    let component = match env::var_os("JSONRPC_ERRORS_COMPONENT").filter(|v| !v.is_empty()) {
        Some(path) => {
            let path = PathBuf::from(path);
            println!("cargo:rerun-if-changed={}", path.display());
            fs::read(&path).unwrap_or_else(|e| {
                fail(&format!("JSONRPC_ERRORS_COMPONENT={}: {e}", path.display()))
            })
        }
        None => {
            let cargo = PathBuf::from(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
            let rustc = PathBuf::from(env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()));
            let built =
                component::build(&cargo, &rustc, &root, &target).unwrap_or_else(|e| fail(&e));
            // What the component is made of: a change to any of them builds it again.
            for source in &built.sources {
                println!("cargo:rerun-if-changed={}", source.display());
            }
            for file in ["Cargo.toml", "Cargo.lock", "guest/Cargo.toml"] {
                println!("cargo:rerun-if-changed={}", root.join(file).display());
            }
            built.component
        }
    };
    let wasm = out.join("jsonrpc-errors.wasm");
    write_if_changed(&wasm, &component);
    println!(
        "cargo:rustc-env=JSONRPC_ERRORS_COMPONENT={}",
        wasm.display()
    );

    // `cargo xtask component` writes <target>/component/jsonrpc-errors.wasm and its precompiled form; the latter is
    // embedded only when the former is the very component embedded here (a stale or foreign one never is), else
    // the host compiles the component at start. The .cwasm is watched (an empty one stands in until xtask
    // writes it, dated in the past so that it does not make this script run again), so a later
    // `cargo xtask component` embeds it. A build for another target (a cross build) embeds
    // `jsonrpc-errors.TARGET.cwasm` instead, which scripts/precompile-for.sh writes beside a copy of the
    // component (an artifact for this machine is of no use there).
    let dir = target.join("component");
    let (host, triple) = (env::var("HOST").unwrap(), env::var("TARGET").unwrap());
    let cwasm = if triple == host {
        dir.join("jsonrpc-errors.cwasm")
    } else {
        dir.join(format!("jsonrpc-errors.{triple}.cwasm"))
    };
    if !cwasm.exists() && fs::create_dir_all(&dir).is_ok() {
        if let Ok(file) = fs::File::create(&cwasm) {
            let _ = file.set_modified(
                std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1),
            );
        }
    }
    println!("cargo:rerun-if-changed={}", cwasm.display());
    let precompiled = fs::read(dir.join("jsonrpc-errors.wasm"))
        .ok()
        .filter(|stock| *stock == component)
        .and_then(|_| {
            fs::metadata(&cwasm)
                .ok()
                .filter(|m| m.len() > 0)
                .map(|_| cwasm.clone())
        });
    let embedded = precompiled.unwrap_or_else(|| {
        let empty = out.join("empty.cwasm");
        write_if_changed(&empty, b"");
        empty
    });
    println!(
        "cargo:rustc-env=JSONRPC_ERRORS_PRECOMPILED={}",
        embedded.display()
    );
}
