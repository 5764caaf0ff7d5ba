//! Ids as JSON-RPC compares them: the key of an id however it is spelled.

use jsonrpc_errors_guest::message;
use serde_json::value::RawValue;
use serde_json::Value;

/// A string as a JSON string.
pub(super) fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// An id's identity, as JSON-RPC means it: numbers by value as the guard keys them (`message::id_key`: `7`,
/// `7.0`, `7E0` and `0.7e+1` are one id, `-0` and `0` another), strings by their value whatever escapes spell
/// them (the guard answers with the client's id as a value, so its own answers spell strings, and numbers'
/// exponents, their own way).
pub fn key(raw: &str) -> String {
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::String(s)) => json_string(&s),
        _ => match RawValue::from_string(raw.to_string()) {
            Ok(r) => message::id_key(&r),
            Err(_) => raw.to_string(),
        },
    }
}
