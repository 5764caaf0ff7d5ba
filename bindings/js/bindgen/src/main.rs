//! `jsonrpc-errors-js-bindgen INPUT.wasm OUT_DIR NAME`: wasm-bindgen's `--target web` output for INPUT.

use anyhow::{bail, Context, Result};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, out_dir, name] = args.as_slice() else {
        bail!("usage: jsonrpc-errors-js-bindgen INPUT.wasm OUT_DIR NAME");
    };
    let mut b = wasm_bindgen_cli_support::Bindgen::new();
    b.input_path(input)
        .out_name(name)
        .web(true)?
        .typescript(true)
        .debug(false)
        .keep_debug(false)
        .demangle(false)
        .remove_name_section(true)
        .remove_producers_section(true)
        // `__wbg_reset_state`: re-instantiates the module after a trap (a trapped instance is unusable).
        .reset_state_function(true);
    b.generate(out_dir)
        .with_context(|| format!("wasm-bindgen on {input}"))?;
    Ok(())
}
