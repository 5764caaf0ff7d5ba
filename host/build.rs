//! Embeds the component built by `cargo xtask component` (and its precompiled form, when present).
use std::{env, path::PathBuf};

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    let dir = root.join("target").join("component");
    let wasm = dir.join("jsonrpc-errors.wasm");
    let cwasm = dir.join("jsonrpc-errors.cwasm");
    println!("cargo:rerun-if-changed={}", wasm.display());
    println!("cargo:rerun-if-changed={}", cwasm.display());
    if !wasm.exists() {
        panic!(
            "{} is missing: build the component first with `cargo xtask component` (or `cargo xtask build`)",
            wasm.display()
        );
    }
    println!("cargo:rustc-env=JSONRPC_ERRORS_COMPONENT={}", wasm.canonicalize().unwrap().display());
    // Without a precompiled artifact the host compiles the component at start (the safe fallback).
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let embedded_cwasm = if cwasm.exists() {
        cwasm.canonicalize().unwrap()
    } else {
        let empty = out.join("empty.cwasm");
        std::fs::write(&empty, b"").unwrap();
        empty
    };
    println!("cargo:rustc-env=JSONRPC_ERRORS_PRECOMPILED={}", embedded_cwasm.display());
}
