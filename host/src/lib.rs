//! The jsonrpc-errors component embedded in wasmtime.
//!
//! The build script builds the component from the guest's sources (the `wasm32-unknown-unknown` target must be
//! installed: `rustup target add wasm32-unknown-unknown`) and embeds it. Built in this workspace after
//! `cargo xtask component`, it also embeds the precompiled form that command made of the same bytes
//! (serialized with the same engine configuration, deserialized at start: ~10 ms); otherwise, or if wasmtime
//! refuses the artifact, [`Runtime::new`] compiles the embedded component (~1-2 s on 2 cores, once per
//! `Runtime`). As a dependency, leave out the CLI with `default-features = false`.
//!
//! Instances are created from one `InstancePre` and pooled, so a [`Runtime`] can be shared by many threads; a
//! call that traps returns a plain -32603 and its instance is discarded, so the next call gets a fresh one.

mod bindings;
pub mod engine;
pub mod guard;
pub mod redaction_options;
mod taxonomy;
mod validate_options;

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};
use wasmtime::component::{Component, Linker};
use wasmtime::{Engine, Store, StoreLimits, StoreLimitsBuilder};

/// The WIT world's bindings (`exports`, `JsonrpcErrors`...), where they have always been: at the crate root.
pub use bindings::*;

use exports::jsonrpc_errors::core::kinds::Dialect;
use exports::jsonrpc_errors::core::types::{
    CallContext, CodesFormat, ErrorObject as WitErrorObject, Outcome,
    ValidateOptions as WitValidateOptions,
};
use taxonomy::known_dialect;

/// Redaction options (`redaction-options` in the WIT, generated): what `redact_with` takes as JSON.
pub use redaction_options::{RedactionMethod, RedactionOptions};

/// `validate`'s options (`validate-options` in the WIT, generated), and its batch policy.
pub use exports::jsonrpc_errors::core::types::BatchPolicy;
pub use validate_options::ValidateOptions;

/// Every dialect's name (what `dialect` arguments take) and what it follows, from the taxonomy.
pub use taxonomy::DIALECTS;

/// The HTTP statuses of the taxonomy's kinds, and the kind an MCP error code stands for.
pub use taxonomy::{http_status, kind_name, mcp_kind};

/// The taxonomy's types (every kind's fields record), for [`Runtime::map_error_kind`].
pub use exports::jsonrpc_errors::core::kinds;
pub use exports::jsonrpc_errors::core::kinds::ErrorKind;
pub use exports::jsonrpc_errors::core::types::{
    Finding, InputProblem, KindInfo, Redaction, RequestMeta,
};

/// The component itself, as the build script built it from the guest's sources (or took it from
/// `JSONRPC_ERRORS_COMPONENT`).
pub const COMPONENT: &[u8] = include_bytes!(env!("JSONRPC_ERRORS_COMPONENT"));
const PRECOMPILED: &[u8] = include_bytes!(env!("JSONRPC_ERRORS_PRECOMPILED"));

/// A JSON-RPC error object: how every failure is reported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message} ({code}){}", data.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
pub struct ErrorObject {
    pub code: i32,
    pub message: String,
    /// `data` as JSON text.
    pub data: Option<String>,
}

impl ErrorObject {
    /// The plain -32603 for faults inside the engine (a trap): nothing from the fault reaches the caller.
    pub fn internal() -> Self {
        ErrorObject {
            code: -32603,
            message: "Internal error".into(),
            data: None,
        }
    }

    /// The failure as a JSON-RPC error object (JSON text).
    pub fn to_json(&self) -> String {
        let mut obj = serde_json::Map::new();
        obj.insert("code".into(), self.code.into());
        obj.insert("message".into(), self.message.clone().into());
        if let Some(d) = &self.data {
            let data = serde_json::from_str(d).unwrap_or(serde_json::Value::String(d.clone()));
            obj.insert("data".into(), data);
        }
        serde_json::Value::Object(obj).to_string()
    }
}

pub(crate) fn outcome(o: Outcome) -> Result<String, ErrorObject> {
    match o {
        Outcome::Ok(text) => Ok(text),
        Outcome::Failed(e) => Err(error_object(e)),
    }
}

pub(crate) fn error_object(e: WitErrorObject) -> ErrorObject {
    ErrorObject {
        code: e.code,
        message: e.message,
        data: e.data_json,
    }
}

/// The caller's clock and a random number: the guest imports nothing, so it is handed these.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Context {
    pub unix_millis: u64,
    pub entropy: u64,
}

impl Context {
    pub fn now() -> Self {
        let unix_millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let mut h = RandomState::new().build_hasher();
        h.write_u64(unix_millis);
        Context {
            unix_millis,
            entropy: h.finish(),
        }
    }

    pub(crate) fn wit(self) -> CallContext {
        CallContext {
            unix_millis: self.unix_millis,
            entropy: self.entropy,
        }
    }
}

pub(crate) struct Instance {
    pub(crate) store: Store<StoreLimits>,
    pub(crate) api: JsonrpcErrors,
}

/// Linear memory one instance may grow to: a guest that needs more traps (and is replaced) instead of
/// taking the host down.
pub const DEFAULT_MEMORY_LIMIT: usize = 1024 * 1024 * 1024;

pub struct Runtime {
    engine: Engine,
    pre: JsonrpcErrorsPre<StoreLimits>,
    idle: Mutex<Vec<Instance>>,
    memory_limit: usize,
    environment: Vec<(String, String)>,
    precompiled: bool,
    /// The guest's `max-input-bytes`, asked once.
    max_input: std::sync::OnceLock<usize>,
}

fn wasm_error(e: wasmtime::Error) -> anyhow::Error {
    anyhow::anyhow!("{e:?}")
}

impl Runtime {
    /// The embedded component; `environment` is offered to the guest, which keeps the secret-looking
    /// variables (by name) and scrubs their values from every output.
    pub fn new(environment: Vec<(String, String)>) -> anyhow::Result<Self> {
        let engine = engine::engine().map_err(wasm_error)?;
        // SAFETY: the artifact was produced by `Engine::precompile_component` in this build (xtask); wasmtime
        // checks its version and configuration and refuses a mismatch, in which case we compile instead.
        let precompiled = (!PRECOMPILED.is_empty())
            .then(|| unsafe { Component::deserialize(&engine, PRECOMPILED) }.ok())
            .flatten();
        let is_precompiled = precompiled.is_some();
        let component = match precompiled {
            Some(c) => c,
            None => Component::new(&engine, COMPONENT).map_err(wasm_error)?,
        };
        Self::from_component(engine, component, environment, is_precompiled)
    }

    /// Compiles the given component bytes (for tests and tools that load another build).
    pub fn from_bytes(bytes: &[u8], environment: Vec<(String, String)>) -> anyhow::Result<Self> {
        let engine = engine::engine().map_err(wasm_error)?;
        let component = Component::new(&engine, bytes).map_err(wasm_error)?;
        Self::from_component(engine, component, environment, false)
    }

    fn from_component(
        engine: Engine,
        component: Component,
        environment: Vec<(String, String)>,
        precompiled: bool,
    ) -> anyhow::Result<Self> {
        let linker: Linker<StoreLimits> = Linker::new(&engine);
        let instance_pre = linker.instantiate_pre(&component).map_err(wasm_error)?;
        let pre = JsonrpcErrorsPre::new(instance_pre).map_err(wasm_error)?;
        Ok(Runtime {
            engine,
            pre,
            idle: Mutex::new(Vec::new()),
            memory_limit: DEFAULT_MEMORY_LIMIT,
            environment,
            precompiled,
            max_input: std::sync::OnceLock::new(),
        })
    }

    /// Caps each instance's linear memory (default [`DEFAULT_MEMORY_LIMIT`]).
    pub fn with_memory_limit(mut self, bytes: usize) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// Whether the precompiled artifact was used (false: the component was compiled at start).
    pub fn is_precompiled(&self) -> bool {
        self.precompiled
    }

    /// The names of everything the component imports (empty: it needs no WASI and no host functions).
    pub fn component_imports(&self) -> Vec<String> {
        self.pre
            .instance_pre()
            .component()
            .component_type()
            .imports(&self.engine)
            .map(|(name, _)| name.to_string())
            .collect()
    }

    pub(crate) fn instantiate(&self) -> wasmtime::Result<Instance> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.memory_limit)
            .build();
        let mut store = Store::new(&self.engine, limits);
        store.limiter(|limits| limits);
        let api = self.pre.instantiate(&mut store)?;
        if !self.environment.is_empty() {
            api.jsonrpc_errors_core_api()
                .call_set_environment(&mut store, &self.environment)?;
        }
        Ok(Instance { store, api })
    }

    /// Runs `f` on a pooled instance. A trap discards the instance and answers -32603.
    fn with_instance<T>(
        &self,
        f: impl FnOnce(&mut Instance) -> wasmtime::Result<T>,
    ) -> Result<T, ErrorObject> {
        let pooled = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut instance = match pooled {
            Some(i) => i,
            None => self.instantiate().map_err(|_| ErrorObject::internal())?,
        };
        match f(&mut instance) {
            Ok(v) => {
                self.idle
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(instance);
                Ok(v)
            }
            Err(_) => Err(ErrorObject::internal()),
        }
    }

    /// The largest input any call takes (the guest's `max-input-bytes`): longer ones never enter wasm.
    pub fn max_input_bytes(&self) -> usize {
        *self.max_input.get_or_init(|| {
            self.with_instance(|i| {
                i.api
                    .jsonrpc_errors_core_api()
                    .call_max_input_bytes(&mut i.store)
            })
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            // The guest could not be asked: refuse nothing larger than what a pooled instance can hold.
            .unwrap_or(self.memory_limit / 4)
        })
    }

    /// The guest's error object for an input refused before the call it was meant for.
    pub fn refusal(&self, problem: &InputProblem) -> ErrorObject {
        match self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_refusal(&mut i.store, problem)
        }) {
            Ok(e) => error_object(e),
            Err(f) => f,
        }
    }

    fn check_size(&self, len: usize) -> Result<(), ErrorObject> {
        if len > self.max_input_bytes() {
            Err(self.refusal(&InputProblem::TooLarge(len as u64)))
        } else {
            Ok(())
        }
    }

    /// The dialect enum's case for a name; an unknown name gets the guest's refusal.
    pub fn dialect(&self, name: &str) -> Result<Dialect, ErrorObject> {
        known_dialect(name)
            .ok_or_else(|| self.refusal(&InputProblem::UnknownDialect(name.to_string())))
    }

    /// Checks a guard policy file (TOML): its defaults as JSON, or the error saying where it is wrong
    /// (`data.line`, `data.column`). `env`: the environment its `hash_key_env` is read from.
    pub fn check_policy(
        &self,
        text: &str,
        env: &[(String, String)],
    ) -> Result<String, ErrorObject> {
        self.check_size(text.len())?;
        let o = self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_guard()
                .call_check_policy(&mut i.store, text, env)
        })?;
        outcome(o)
    }

    /// `map`: JSON text `{kind, id?, correlation_id?, timestamp?, ...fields}` → the JSON-RPC response.
    pub fn map_error(
        &self,
        input: &str,
        dialect_name: &str,
        ctx: Context,
    ) -> Result<String, ErrorObject> {
        self.check_size(input.len())?;
        let d = self.dialect(dialect_name)?;
        let o = self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_map_error_json(&mut i.store, input, d, ctx.wit())
        })?;
        outcome(o)
    }

    /// `map` from the typed kind (the WIT `error-kind` variant with its fields) → the JSON-RPC response.
    pub fn map_error_kind(
        &self,
        kind: &ErrorKind,
        meta: &RequestMeta,
        dialect_name: &str,
        ctx: Context,
    ) -> Result<String, ErrorObject> {
        let d = self.dialect(dialect_name)?;
        let o = self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_map_error(&mut i.store, kind, meta, d, ctx.wit())
        })?;
        outcome(o)
    }

    /// The WIT options for a body of `len` bytes: an oversize body never enters wasm (the guest is told its
    /// length and answers without reading it), so `withhold` says to pass an empty body instead.
    fn validate_options(
        &self,
        len: usize,
        options: &ValidateOptions,
    ) -> Result<(WitValidateOptions, bool), ErrorObject> {
        options.to_wit_for_body(|name| self.dialect(name), len, self.max_input_bytes())
    }

    /// `validate`: raw request bytes → the verdict or the error response.
    pub fn validate(
        &self,
        raw: &[u8],
        options: &ValidateOptions,
        ctx: Context,
    ) -> Result<String, ErrorObject> {
        let (wit, withhold) = self.validate_options(raw.len(), options)?;
        let body = if withhold { &raw[..0] } else { raw };
        let o = self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_validate(&mut i.store, body, &wit, ctx.wit())
        })?;
        outcome(o)
    }

    /// `validate` for a body already known to be text: the same answers.
    pub fn validate_text(
        &self,
        text: &str,
        options: &ValidateOptions,
        ctx: Context,
    ) -> Result<String, ErrorObject> {
        let (wit, withhold) = self.validate_options(text.len(), options)?;
        let body = if withhold { "" } else { text };
        let o = self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_validate_text(&mut i.store, body, &wit, ctx.wit())
        })?;
        outcome(o)
    }

    /// `sanitize`: an upstream error response (raw bytes) → the response safe to pass on.
    pub fn sanitize(
        &self,
        raw: &[u8],
        dialect_name: &str,
        ctx: Context,
    ) -> Result<String, ErrorObject> {
        self.check_size(raw.len())?;
        let d = self.dialect(dialect_name)?;
        let o = self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_sanitize(&mut i.store, raw, d, ctx.wit())
        })?;
        outcome(o)
    }

    /// `sanitize` for a response already decoded as text: the same answers.
    pub fn sanitize_text(
        &self,
        text: &str,
        dialect_name: &str,
        ctx: Context,
    ) -> Result<String, ErrorObject> {
        self.check_size(text.len())?;
        let d = self.dialect(dialect_name)?;
        let o = self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_sanitize_text(&mut i.store, text, d, ctx.wit())
        })?;
        outcome(o)
    }

    pub fn redact(&self, text: &str) -> Result<Redaction, ErrorObject> {
        self.check_size(text.len())?;
        self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_redact(&mut i.store, text)
        })
    }

    /// `redact` as one JSON document `{"text", "findings"}`.
    pub fn redact_json(&self, text: &str) -> Result<String, ErrorObject> {
        self.check_size(text.len())?;
        self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_redact_json(&mut i.store, text)
        })
    }

    /// Redaction under options JSON: a [`RedactionOptions`]'s `to_json` (`{}`: the defaults).
    pub fn redact_with(&self, text: &str, options_json: &str) -> Result<String, ErrorObject> {
        self.check_size(text.len())?;
        let o = self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_redact_with(&mut i.store, text, options_json)
        })?;
        outcome(o)
    }

    /// JSON-aware redaction of a JSON document: `{"value", "findings"}`.
    pub fn redact_json_value(&self, json: &str, options_json: &str) -> Result<String, ErrorObject> {
        self.check_size(json.len())?;
        let o = self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_redact_json_value(&mut i.store, json, options_json)
        })?;
        outcome(o)
    }

    pub fn explain(&self, code: i64, dialect_name: &str) -> Result<String, ErrorObject> {
        let d = self.dialect(dialect_name)?;
        let o = self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_explain(&mut i.store, d, code)
        })?;
        outcome(o)
    }

    pub fn lookup_kind(
        &self,
        dialect_name: &str,
        code: i64,
        message: Option<&str>,
        data_json: Option<&str>,
    ) -> Result<Option<String>, ErrorObject> {
        let d = self.dialect(dialect_name)?;
        let o = self.with_instance(|i| {
            i.api.jsonrpc_errors_core_api().call_lookup_kind(
                &mut i.store,
                d,
                code,
                message,
                data_json,
            )
        })?;
        serde_json::from_str(&outcome(o)?).map_err(|_| ErrorObject::internal())
    }

    pub fn kinds(&self) -> Result<Vec<KindInfo>, ErrorObject> {
        self.with_instance(|i| i.api.jsonrpc_errors_core_api().call_kinds(&mut i.store))
    }

    /// The taxonomy table as JSON text (each kind as `explain` describes it, fields included).
    pub fn kinds_json(&self) -> Result<String, ErrorObject> {
        self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_kinds_json(&mut i.store)
        })
    }

    /// The code table (one dialect or all) as `markdown` or `json`.
    pub fn codes(&self, dialect_name: Option<&str>, format: &str) -> Result<String, ErrorObject> {
        let d = dialect_name.map(|n| self.dialect(n)).transpose()?;
        let f = match format {
            "markdown" => CodesFormat::Markdown,
            "json" => CodesFormat::Json,
            other => return Err(self.refusal(&InputProblem::UnknownFormat(other.to_string()))),
        };
        self.with_instance(|i| {
            i.api
                .jsonrpc_errors_core_api()
                .call_codes(&mut i.store, d, f)
        })
    }

    /// How many instances wait in the pool (a trapped instance is never returned to it).
    pub fn idle_instances(&self) -> usize {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}
