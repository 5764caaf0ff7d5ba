//! Turns the human-edited TOML data (taxonomy, redaction rules) into compact JSON embedded in the library,
//! so the wasm guest carries no TOML parser and every runtime reads the very same table.
use std::{env, fs, path::PathBuf};

fn convert(source: &str, out_name: &str) {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let path = manifest.join("..").join(source);
    println!("cargo:rerun-if-changed={}", path.display());
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let value: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{} is not valid TOML: {e}", path.display()));
    let json = serde_json::to_string(&value).expect("TOML values are JSON-representable");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join(out_name);
    fs::write(out, json).unwrap();
}

fn main() {
    convert("taxonomy/taxonomy.toml", "taxonomy.json");
    convert("redaction/rules.toml", "redaction_rules.json");
}
