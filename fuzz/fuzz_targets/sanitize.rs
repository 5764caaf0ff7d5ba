//! `api::sanitize`: an upstream's error response, as fuzzed bytes or built by `arbitrary`, in every dialect.
//!
//! Header: dialect, the call context, secret, position, and mode:
//!   0  the payload as it is
//!   1  the payload with a secret planted at `position` (as a word: ` secret `), wherever that lands
//!   2  the payload decoded by `arbitrary` into an [`UpstreamError`] (code, message, data, stray members);
//!      flag bit 0 plants the secret in its message or one of data's strings or keys (`position`-th)
//!
//! Properties: a dialect outside the eight is refused; any bytes give one JSON document (a plain -32603
//! for what is not a response): a success response comes back unchanged, anything else as a JSON-RPC 2.0
//! response; a planted secret reaches the client nowhere except where the API passes text through by
//! design: the `id` (echoed for correlation) and a success response (passed on unchanged).

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use jsonrpc_errors_fuzz::header::Header;
use jsonrpc_errors_fuzz::json::{assert_response, parse_one, ArbJson, Planting, Text, NUMBERS};
use jsonrpc_errors_fuzz::secrets;
use jsonrpc_errors_guest::api;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

#[derive(Arbitrary, Debug)]
struct UpstreamError {
    id: Option<ArbJson>,
    code: CodeChoice,
    message: Option<Text>,
    data: Option<ArbJson>,
    /// Members besides the envelope's (a "result" among them makes the response ambiguous).
    extra: Vec<(Text, ArbJson)>,
    /// Whether `"jsonrpc": "2.0"` is there.
    version: bool,
}

#[derive(Arbitrary, Debug)]
enum CodeChoice {
    /// -32700, -32600, -32601, -32602, -32603.
    Standard(u8),
    /// -32000 to -32099, the implementation-defined server errors.
    Server(u8),
    Any(i64),
    Number(u8),
    Other(ArbJson),
}

impl UpstreamError {
    fn to_value(&self, planting: &mut Planting<'_>, plant: bool) -> Value {
        let code = match &self.code {
            CodeChoice::Standard(i) => {
                Value::from([-32700, -32600, -32601, -32602, -32603][*i as usize % 5])
            }
            CodeChoice::Server(i) => Value::from(-32000 - i64::from(*i % 100)),
            CodeChoice::Any(n) => Value::from(*n),
            CodeChoice::Number(i) => {
                serde_json::from_str(NUMBERS[*i as usize % NUMBERS.len()]).unwrap_or(Value::Null)
            }
            CodeChoice::Other(v) => v.to_value(),
        };
        let mut error = Map::new();
        error.insert("code".into(), code);
        if let Some(m) = &self.message {
            let message = ArbJson::Str(m.clone());
            error.insert(
                "message".into(),
                if plant {
                    message.to_value_planting(planting)
                } else {
                    message.to_value()
                },
            );
        }
        if let Some(d) = &self.data {
            error.insert(
                "data".into(),
                if plant {
                    d.to_value_planting(planting)
                } else {
                    d.to_value()
                },
            );
        }
        let mut response = Map::new();
        if self.version {
            response.insert("jsonrpc".into(), Value::from("2.0"));
        }
        response.insert(
            "id".into(),
            self.id.as_ref().map_or(Value::from(1), ArbJson::to_value),
        );
        response.insert("error".into(), Value::Object(error));
        for (k, v) in &self.extra {
            response.insert(k.as_str().to_string(), v.to_value());
        }
        Value::Object(response)
    }
}

fuzz_target!(init: secrets::install_environment(), |data: &[u8]| {
    let (h, payload) = Header::split(data);
    let secret = secrets::secret(h.secret, true);
    let mut planting = Planting::new(secret, h.position());
    let (raw, planted) = match h.mode % 3 {
        0 => (payload.to_vec(), false),
        1 => (secrets::plant(payload, h.position(), secret), true),
        _ => {
            let Ok(e) = UpstreamError::arbitrary_take_rest(Unstructured::new(payload)) else { return };
            let v = e.to_value(&mut planting, h.flag(0));
            (v.to_string().into_bytes(), planting.planted)
        }
    };
    // Secret material the fuzzer wrote itself is no planted secret (see `secrets`).
    let check_leaks = planted && {
        let spaced = format!(" {secret} ");
        let rest = String::from_utf8_lossy(&raw).replacen(&spaced, "", 1);
        secrets::leak_in(rest.as_bytes()).is_none()
    };

    let out = match api::sanitize(&raw, h.dialect(), &h.ctx()) {
        Err(e) => {
            assert!(!h.dialect_is_valid(), "sanitize refused input in dialect {}: {}", h.dialect(), api::error_json(&e));
            secrets::assert_no_leak(&api::error_json(&e), "sanitize's refusal");
            return;
        }
        Ok(out) => {
            assert!(h.dialect_is_valid(), "sanitize accepted dialect {:?}", h.dialect());
            out
        }
    };
    let response = parse_one(&out, "sanitize's output");

    // The input as the guest reads it (invalid UTF-8 repaired).
    let input = serde_json::from_str::<Value>(&String::from_utf8_lossy(&raw)).ok();
    let success = input.as_ref().and_then(Value::as_object).is_some_and(|o| o.contains_key("result") && !o.contains_key("error"));
    if success {
        assert_eq!(Some(&response), input.as_ref(), "a success response is passed on unchanged");
        return;
    }
    assert_response(&response, "sanitize's output");
    if check_leaks {
        let mut without_id = response.as_object().cloned().unwrap_or_default();
        without_id.remove("id");
        secrets::assert_no_leak(&Value::Object(without_id).to_string(), "sanitize's output");
    }
});
