//! `jsonrpc-errors-precompile IN.wasm OUT.cwasm [TARGET]`: serializes the component compiled with the host's
//! engine configuration, for this machine or for the Rust target triple TARGET (a cross-built CLI's:
//! scripts/precompile-for.sh). A package of its own (not part of xtask) so that wasmtime is built once, with the same
//! dependency features as the host: in xtask, wit-component's wasmparser features would force a second build.

#[path = "../../src/engine.rs"]
#[allow(
    dead_code,
    reason = "the host's file: this tool calls `engine_for` only"
)]
mod engine;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (input, output, target) = match args.as_slice() {
        [input, output] => (input, output, None),
        [input, output, target] => (input, output, Some(target.as_str())),
        _ => {
            eprintln!("usage: jsonrpc-errors-precompile IN.wasm OUT.cwasm [TARGET]");
            return ExitCode::from(2);
        }
    };
    let result = std::fs::read(input)
        .map_err(|e| format!("reading {input}: {e}"))
        .and_then(|component| {
            let engine =
                engine::engine_for(target).map_err(|e| format!("creating the engine: {e:?}"))?;
            engine
                .precompile_component(&component)
                .map_err(|e| format!("precompiling {input}: {e:?}"))
        })
        .and_then(|bytes| {
            // An unchanged artifact keeps its time (the host's build script watches it), and one is written
            // whole or not at all (that script may read it at any moment).
            if std::fs::read(output).ok().as_deref() == Some(&bytes[..]) {
                return Ok(bytes.len());
            }
            let partial = format!("{output}.partial");
            std::fs::write(&partial, &bytes)
                .and_then(|_| std::fs::rename(&partial, output))
                .map(|_| bytes.len())
                .map_err(|e| format!("writing {output}: {e}"))
        });
    match result {
        Ok(len) => {
            println!("wrote {output} ({len} bytes)");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("jsonrpc-errors-precompile: {e}");
            ExitCode::from(1)
        }
    }
}
