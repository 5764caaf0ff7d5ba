//! Thin `#[wasm_bindgen]` exports over [`jsonrpc_errors_guest::api`]: no logic of their own.
//!
//! Every function returns JSON text; a failure is thrown as a JS string holding the JSON-RPC error object
//! (`error_json`), which the npm wrapper turns into an `InvalidInputError`. The call context (clock and
//! entropy) is passed as two f64s per call: u64 would cost a BigInt conversion at each crossing, and the
//! entropy is split into two u32 halves by the wrapper.
//!
//! Three modules are built from this file. The base module has the functions the package's main entry calls.
//! The guard module (feature `guard`) has those too, the guard session and the calls its entry makes
//! (`checkPolicy`, `redactWith`, `redactJsonValue`): in a browser page that imports the main entry and
//! `jsonrpc-errors/guard` or `/mcp`, it serves both, and the page downloads one module (the package's
//! src/load-browser.ts). The redaction module (feature `redact`, the `jsonrpc-errors/redact` entry) has
//! `setEnvironment`, `redactWith`, `redactJsonValue`, `refusal` and `maxInputBytes`, and is built for speed
//! (Cargo.toml, `profile.npm-redact`); the rest of the base functions are left out of it: its entry never
//! calls them, and they cost 15 KB gzipped (the codes table's Markdown, `explain`, `validate`).

use jsonrpc_errors_guest::api;
#[cfg(any(feature = "guard", not(feature = "redact")))]
use jsonrpc_errors_guest::context::CallContext;
use jsonrpc_errors_guest::error::ErrorObject;
#[cfg(feature = "guard")]
use jsonrpc_errors_guest::guard;
use wasm_bindgen::prelude::*;

// Every module's calls but the redaction module's take a call context.
#[cfg(any(feature = "guard", not(feature = "redact")))]
fn ctx(unix_millis: f64, entropy_hi: u32, entropy_lo: u32) -> CallContext {
    CallContext {
        unix_millis: unix_millis as u64,
        entropy: ((entropy_hi as u64) << 32) | entropy_lo as u64,
    }
}

fn outcome(r: Result<String, ErrorObject>) -> Result<String, JsValue> {
    r.map_err(|e| JsValue::from_str(&api::error_json(&e)))
}

/// A flat list `[name0, value0, name1, value1, …]` as pairs.
fn pairs(flat: Vec<String>) -> Vec<(String, String)> {
    let mut pairs = Vec::with_capacity(flat.len() / 2);
    let mut it = flat.into_iter();
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        pairs.push((k, v));
    }
    pairs
}

/// `env` is a flat list `[name0, value0, name1, value1, …]`.
#[wasm_bindgen(js_name = setEnvironment)]
pub fn set_environment(env: Vec<String>) -> u32 {
    jsonrpc_errors_guest::set_environment(&pairs(env)) as u32
}

/// Checks a policy file: its defaults as JSON, or the error object (thrown) saying where it is wrong.
/// `env`: flat `[name, value, …]`.
#[cfg(feature = "guard")]
#[wasm_bindgen(js_name = checkPolicy)]
pub fn check_policy(text: &str, env: Vec<String>) -> Result<String, JsValue> {
    outcome(api::check_policy(text, &pairs(env)))
}

#[cfg(any(feature = "guard", not(feature = "redact")))]
#[wasm_bindgen(js_name = mapError)]
pub fn map_error(
    input: &str,
    dialect: &str,
    unix_millis: f64,
    entropy_hi: u32,
    entropy_lo: u32,
) -> Result<String, JsValue> {
    outcome(api::map_error(
        input,
        dialect,
        &ctx(unix_millis, entropy_hi, entropy_lo),
    ))
}

/// `options_json`: `validate-options` (wit/world.wit) as JSON with snake_case keys, as `validate-schema.ts`
/// (generated from the WIT) writes it.
#[cfg(any(feature = "guard", not(feature = "redact")))]
#[wasm_bindgen]
pub fn validate(
    raw: &[u8],
    options_json: &str,
    unix_millis: f64,
    entropy_hi: u32,
    entropy_lo: u32,
) -> Result<String, JsValue> {
    outcome(api::validate_with_json(
        raw,
        options_json,
        &ctx(unix_millis, entropy_hi, entropy_lo),
    ))
}

#[cfg(any(feature = "guard", not(feature = "redact")))]
#[wasm_bindgen]
pub fn sanitize(
    raw: &[u8],
    dialect: &str,
    unix_millis: f64,
    entropy_hi: u32,
    entropy_lo: u32,
) -> Result<String, JsValue> {
    outcome(api::sanitize(
        raw,
        dialect,
        &ctx(unix_millis, entropy_hi, entropy_lo),
    ))
}

/// `{"text", "findings"}` as JSON text.
#[cfg(any(feature = "guard", not(feature = "redact")))]
#[wasm_bindgen(js_name = redactJson)]
pub fn redact_json(text: &str) -> String {
    api::redact_json(text)
}

/// The redacted text only (no findings document to build or parse).
#[cfg(any(feature = "guard", not(feature = "redact")))]
#[wasm_bindgen]
pub fn redact(text: &str) -> String {
    api::redact(text).text
}

/// Redaction under caller options (JSON): `{"text", "findings"}`. In the guard and redaction modules only:
/// parsing options, compiling callers' rules and HMAC-SHA256 cost ~12 KB gzipped, more than the base module's
/// budget holds.
#[cfg(any(feature = "guard", feature = "redact"))]
#[wasm_bindgen(js_name = redactWith)]
pub fn redact_with(text: &str, options_json: &str) -> Result<String, JsValue> {
    outcome(api::redact_with(text, options_json))
}

/// JSON-aware redaction of a JSON document (text) under caller options: `{"value", "findings"}`. In the
/// guard and redaction modules only, as `redactWith`.
#[cfg(any(feature = "guard", feature = "redact"))]
#[wasm_bindgen(js_name = redactJsonValue)]
pub fn redact_json_value(json: &str, options_json: &str) -> Result<String, JsValue> {
    outcome(api::redact_json_value(json, options_json))
}

/// The taxonomy table as JSON text.
#[cfg(any(feature = "guard", not(feature = "redact")))]
#[wasm_bindgen(js_name = kindsJson)]
pub fn kinds_json() -> String {
    api::kinds_json()
}

#[cfg(any(feature = "guard", not(feature = "redact")))]
#[wasm_bindgen]
pub fn explain(dialect: &str, code: f64) -> Result<String, JsValue> {
    outcome(api::explain(dialect, code as i64))
}

/// The kind name, or `undefined` when the code stands for none.
#[cfg(any(feature = "guard", not(feature = "redact")))]
#[wasm_bindgen(js_name = lookupKind)]
pub fn lookup_kind(
    dialect: &str,
    code: f64,
    message: Option<String>,
    data_json: Option<String>,
) -> Result<Option<String>, JsValue> {
    api::lookup_kind(
        dialect,
        code as i64,
        message.as_deref(),
        data_json.as_deref(),
    )
    .map_err(|e| JsValue::from_str(&api::error_json(&e)))
}

#[cfg(any(feature = "guard", not(feature = "redact")))]
#[wasm_bindgen]
pub fn codes(dialect: Option<String>, format: &str) -> Result<String, JsValue> {
    outcome(api::codes(dialect.as_deref(), format))
}

/// Traps on purpose (a panic is `unreachable` under `panic = "abort"`): lets the test suite check that a trap
/// becomes a -32603 and that the module is re-instantiated. Not part of the package's public API.
#[wasm_bindgen(js_name = __trapForTests)]
pub fn trap_for_tests() {
    panic!("trap requested by the test suite");
}

/// A guard session (see `jsonrpc_errors_guest::guard`): every method returns the outcome's JSON text
/// (`upstreamStderr`, `upstreamLog`: the redacted text). The context is passed as for the functions above.
#[cfg(feature = "guard")]
#[wasm_bindgen]
pub struct GuardSession(guard::Session);

#[cfg(feature = "guard")]
#[wasm_bindgen]
impl GuardSession {
    /// `options`: `guard-options` (wit/world.wit) as JSON with snake_case keys, as `guard-schema.ts` (generated
    /// from the WIT) writes it; a refusal throws the error object's JSON.
    #[wasm_bindgen(constructor)]
    pub fn new(options: &str) -> Result<GuardSession, JsValue> {
        api::SessionArgs::from_json(options)
            .and_then(api::guard_session)
            .map(GuardSession)
            .map_err(|e| JsValue::from_str(&api::error_json(&e)))
    }

    /// The settings the session resolved (`session-settings` as JSON).
    pub fn settings(&self) -> String {
        self.0.settings()
    }

    #[wasm_bindgen(js_name = clientLine)]
    pub fn client_line(
        &mut self,
        line: &[u8],
        unix_millis: f64,
        entropy_hi: u32,
        entropy_lo: u32,
    ) -> String {
        self.0
            .client_line(line, ctx(unix_millis, entropy_hi, entropy_lo))
            .to_json()
    }

    /// Replaces the policy for requests from now on; a refused one leaves it as it was (the error, thrown).
    #[wasm_bindgen(js_name = setPolicy)]
    pub fn set_policy(&mut self, text: &str, env: Vec<String>) -> Result<String, JsValue> {
        self.0
            .set_policy(text, &pairs(env))
            .map(|()| "{}".to_string())
            .map_err(|e| JsValue::from_str(&api::error_json(&api::policy_error(&e))))
    }

    #[wasm_bindgen(js_name = clientLineOn)]
    pub fn client_line_on(
        &mut self,
        stream: f64,
        line: &[u8],
        unix_millis: f64,
        entropy_hi: u32,
        entropy_lo: u32,
    ) -> String {
        self.0
            .client_line_on(
                stream as u64,
                line,
                ctx(unix_millis, entropy_hi, entropy_lo),
            )
            .to_json()
    }

    #[wasm_bindgen(js_name = streamClosed)]
    pub fn stream_closed(
        &mut self,
        stream: f64,
        unix_millis: f64,
        entropy_hi: u32,
        entropy_lo: u32,
    ) -> String {
        self.0
            .stream_closed(stream as u64, ctx(unix_millis, entropy_hi, entropy_lo))
            .to_json()
    }

    #[wasm_bindgen(js_name = clientOversize)]
    pub fn client_oversize(
        &mut self,
        length: f64,
        head: &[u8],
        tail: &[u8],
        unix_millis: f64,
        entropy_hi: u32,
        entropy_lo: u32,
    ) -> String {
        self.0
            .client_oversize(
                length as u64,
                head,
                tail,
                ctx(unix_millis, entropy_hi, entropy_lo),
            )
            .to_json()
    }

    #[wasm_bindgen(js_name = upstreamLine)]
    pub fn upstream_line(
        &mut self,
        line: &[u8],
        unix_millis: f64,
        entropy_hi: u32,
        entropy_lo: u32,
    ) -> String {
        self.0
            .upstream_line(line, ctx(unix_millis, entropy_hi, entropy_lo))
            .to_json()
    }

    #[wasm_bindgen(js_name = upstreamOversize)]
    pub fn upstream_oversize(
        &mut self,
        length: f64,
        head: &[u8],
        tail: &[u8],
        unix_millis: f64,
        entropy_hi: u32,
        entropy_lo: u32,
    ) -> String {
        self.0
            .upstream_oversize(
                length as u64,
                head,
                tail,
                ctx(unix_millis, entropy_hi, entropy_lo),
            )
            .to_json()
    }

    /// `failure`: `upstream-failure` as JSON (`upstreamFailureJson`, generated from the WIT, writes it).
    #[wasm_bindgen(js_name = upstreamFailed)]
    pub fn upstream_failed(
        &mut self,
        failure: &str,
        unix_millis: f64,
        entropy_hi: u32,
        entropy_lo: u32,
    ) -> Result<String, JsValue> {
        let failure = guard::UpstreamFailure::from_json(failure)
            .map_err(|e| JsValue::from_str(&api::error_json(&e)))?;
        Ok(self
            .0
            .upstream_failed(failure, ctx(unix_millis, entropy_hi, entropy_lo))
            .to_json())
    }

    /// Request `id` (JSON text, as the upstream was sent it) got no answer from an upstream reached request by
    /// request. `failure`: `request-failure` as JSON (`requestFailureJson`, generated from the WIT, writes it).
    #[wasm_bindgen(js_name = upstreamRequestFailed)]
    pub fn upstream_request_failed(
        &mut self,
        id: &str,
        failure: &str,
        unix_millis: f64,
        entropy_hi: u32,
        entropy_lo: u32,
    ) -> Result<String, JsValue> {
        let failure = guard::RequestFailure::from_json(failure)
            .map_err(|e| JsValue::from_str(&api::error_json(&e)))?;
        Ok(self
            .0
            .upstream_request_failed(id, failure, ctx(unix_millis, entropy_hi, entropy_lo))
            .to_json())
    }

    /// The upstream's response to request `id` (JSON text, as the upstream was sent it) ended with nothing
    /// more to come.
    #[wasm_bindgen(js_name = upstreamExchangeEnded)]
    pub fn upstream_exchange_ended(
        &mut self,
        id: &str,
        unix_millis: f64,
        entropy_hi: u32,
        entropy_lo: u32,
    ) -> String {
        self.0
            .upstream_exchange_ended(id, ctx(unix_millis, entropy_hi, entropy_lo))
            .to_json()
    }

    pub fn expire(&mut self, unix_millis: f64, entropy_hi: u32, entropy_lo: u32) -> String {
        self.0
            .expire(ctx(unix_millis, entropy_hi, entropy_lo))
            .to_json()
    }

    #[wasm_bindgen(js_name = upstreamStderr)]
    pub fn upstream_stderr(&mut self, bytes: &[u8], end: bool) -> String {
        self.0.upstream_stderr(bytes, end)
    }

    #[wasm_bindgen(js_name = upstreamLog)]
    pub fn upstream_log(&mut self, text: &str) -> String {
        self.0.upstream_log(text)
    }
}

/// The guest's error object (JSON text) for an input refused before the call it was meant for: `kind` is
/// "unknown-dialect" or "unknown-format" (with `name`), "not-unicode" or "too-large" (with `n`).
#[wasm_bindgen]
pub fn refusal(kind: &str, name: &str, n: f64) -> String {
    let problem = match kind {
        "unknown-dialect" => api::Refusal::UnknownDialect(name),
        "unknown-format" => api::Refusal::UnknownFormat(name),
        "not-unicode" => api::Refusal::NotUnicode(n as u64),
        _ => api::Refusal::TooLarge(n as u64),
    };
    api::error_json(&api::refusal(problem))
}

/// The largest input, in bytes, any function takes.
#[wasm_bindgen(js_name = maxInputBytes)]
pub fn max_input_bytes() -> f64 {
    api::max_input_bytes() as f64
}
