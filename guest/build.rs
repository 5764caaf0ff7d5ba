//! Turns the human-edited TOML data (taxonomy, redaction rules) into compact JSON embedded in the library,
//! so the wasm guest carries no TOML parser and every runtime reads the very same table.
use std::{env, fs, path::PathBuf};

fn read_toml(source: &str) -> toml::Value {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let path = manifest.join("..").join(source);
    println!("cargo:rerun-if-changed={}", path.display());
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{} is not valid TOML: {e}", path.display()))
}

fn write_json(value: &impl serde::Serialize, out_name: &str) {
    let json = serde_json::to_string(value).expect("TOML values are JSON-representable");
    fs::write(PathBuf::from(env::var("OUT_DIR").unwrap()).join(out_name), json).unwrap();
}

fn main() {
    write_json(&read_toml("taxonomy/taxonomy.toml"), "taxonomy.json");
    // The rules' examples are test data: they go to a file of their own, which only tests and the vector
    // generator read, so they never weigh on the shipped wasm.
    let mut rules = read_toml("redaction/rules.toml");
    let mut examples = toml::map::Map::new();
    if let Some(list) = rules.get_mut("rule").and_then(|r| r.as_array_mut()) {
        for rule in list {
            let table = rule.as_table_mut().expect("each [[rule]] is a table");
            let id = table.get("id").and_then(|v| v.as_str()).unwrap_or_default().to_string();
            let mut ex = toml::map::Map::new();
            for key in ["examples", "negative_examples"] {
                ex.insert(key.to_string(), table.remove(key).unwrap_or(toml::Value::Array(vec![])));
            }
            examples.insert(id, toml::Value::Table(ex));
        }
    }
    write_json(&rules, "redaction_rules.json");
    write_json(&examples, "redaction_examples.json");
}
