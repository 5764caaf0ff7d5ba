//! The wasmtime engine configuration, shared by the host and by `cargo xtask component` (which precompiles
//! the component with it), so a precompiled artifact always matches the engine that loads it.

use wasmtime::{Config, Engine};

pub fn engine() -> wasmtime::Result<Engine> {
    engine_for(None)
}

/// The same configuration compiling for `target` (a Rust target triple; `None`: this machine): what
/// `jsonrpc-errors-precompile` uses to precompile the component for a cross-built CLI.
pub fn engine_for(target: Option<&str>) -> wasmtime::Result<Engine> {
    let mut config = Config::new();
    if let Some(triple) = target {
        config.target(triple)?;
    }
    config.wasm_component_model(true);
    // Guest code is trusted to terminate (no loops over unbounded input without progress), but a runaway
    // call must not hang a host: fuel is not used because it slows every call; the size cap bounds work.
    config.cranelift_opt_level(wasmtime::OptLevel::Speed);
    Engine::new(&config)
}
