//! jsonrpc-errors: one canonical JSON-RPC 2.0 error layer.
//!
//! All logic lives in these plain Rust modules, so the native build (host tests, xtask, the wasm-bindgen
//! npm build) and the WebAssembly component run the very same code. [`api`] is the boundary every runtime
//! calls: JSON text or bytes in, JSON text out, failures as JSON-RPC error objects.

pub mod api;
pub mod context;
pub mod error;
pub mod guard;
mod heap_sort;
pub mod lookup;
pub mod message;
pub mod ordered;
pub mod policy;
pub mod redact;
pub mod render;
pub mod sanitize;
pub mod scrub;
pub mod sniff;
pub mod taxonomy;
mod validate_args;
pub mod validation;

#[cfg(feature = "component")]
mod component;

use std::cell::RefCell;
use std::sync::{Arc, RwLock};

// In wasm (the component and the npm module) every call allocates a few dozen small blocks; talc serves them
// faster than the default dlmalloc, and its code is smaller. The guest is single-threaded there.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

static ENVIRONMENT: RwLock<Option<Arc<redact::Secrets>>> = RwLock::new(None);

/// Stores the secret-looking variables among `env` (by name, see `redaction/rules.toml`); their values are
/// scrubbed from everything this library returns. Returns how many were kept.
pub fn set_environment(env: &[(String, String)]) -> usize {
    // Filtered and compiled once here, not on every call.
    let secrets = redact::Secrets::from_env(env);
    let kept = secrets.len();
    *ENVIRONMENT.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(secrets));
    kept
}

thread_local! {
    /// The environment of the guard session whose call is running on this thread, if it was given one
    /// (see [`EnvironmentScope`]): it takes the place of the one `set_environment` configured.
    static CALL_ENVIRONMENT: RefCell<Option<Arc<redact::Secrets>>> = const { RefCell::new(None) };
}

/// While alive, [`environment`] on this thread is a guard session's own secrets (for the length of one of
/// its calls: sessions of one module, as the npm module's are, each keep their own); dropped, it restores what
/// was there before.
pub struct EnvironmentScope {
    previous: Option<Option<Arc<redact::Secrets>>>,
}

impl EnvironmentScope {
    /// `None` (a session given no environment): [`environment`] stays as it is.
    pub fn enter(secrets: Option<&Arc<redact::Secrets>>) -> Self {
        let previous =
            secrets.map(|s| CALL_ENVIRONMENT.with(|current| current.replace(Some(s.clone()))));
        EnvironmentScope { previous }
    }
}

impl Drop for EnvironmentScope {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            CALL_ENVIRONMENT.with(|current| *current.borrow_mut() = previous);
        }
    }
}

/// The secret environment values in force: the running guard session's own, if it was given some, else
/// those `set_environment` configured.
pub fn environment() -> Arc<redact::Secrets> {
    if let Some(own) = CALL_ENVIRONMENT.with(|current| current.borrow().clone()) {
        return own;
    }
    let current = ENVIRONMENT
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    current.unwrap_or_else(|| Arc::new(redact::Secrets::default()))
}
