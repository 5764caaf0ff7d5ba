//! `cargo xtask vectors`: writes tests/vectors/*.json.
//!
//! The cases (inputs) are defined here; the expected outputs are recorded from the native guest and then
//! reviewed like any golden file: `git diff tests/vectors` after a behaviour change shows exactly what moved.
//! Every runtime's test suite then checks itself against these files.
//!
//! One module per vector family (its cases), and `record`, which runs a case on the native guest.

mod contract;
mod guard;
mod lookup;
mod map;
mod policy;
mod record;
mod redact;
mod sanitize;
mod validate;

use anyhow::Result;

pub fn write() -> Result<()> {
    let dir = crate::root().join("tests").join("vectors");
    std::fs::create_dir_all(&dir)?;
    for (file, content) in [
        ("map-matrix.json", map::map_matrix()),
        ("map-edge-cases.json", map::map_edges()),
        ("validate.json", validate::validate_cases()),
        ("sanitize.json", sanitize::sanitize_cases()),
        ("redact.json", redact::redact_cases()),
        ("lookup.json", lookup::lookup_cases()),
        ("guard.json", guard::guard_cases()),
        ("policy.json", policy::policy_cases()),
        ("contract.json", contract::contract_cases()),
    ] {
        let mut text = serde_json::to_string_pretty(&content)?;
        text.push('\n');
        std::fs::write(dir.join(file), text)?;
        println!(
            "wrote tests/vectors/{file} ({} cases)",
            content["cases"].as_array().map_or(0, Vec::len)
        );
    }
    Ok(())
}
