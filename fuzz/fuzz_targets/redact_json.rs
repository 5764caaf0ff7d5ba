//! `api::redact_json_value`: JSON-aware redaction of a document, as fuzzed text or built by `arbitrary`.
//!
//! Header: flags (bit 0: plant a secret, structured document and default options only), secret, position
//! (which string or key gets it), and mode:
//!   bit 0     the document: 0, the payload's text (after the options, if any); 1, an `ArbJson` decoded by
//!             `arbitrary` from it
//!   bits 1-2  the options: 0, none (empty text); 1, `{}`; 2, the payload's first line as it is;
//!             3, `options::Options` decoded by `arbitrary` from the front of the payload
//!
//! Properties: it fails exactly when the options are refused or the text is not JSON, with a clean error
//! object; otherwise the output is one JSON document `{value, findings}` whose value has the input's shape
//! (every array as long, every object with as many members: keys are renamed in place, never merged; a
//! redacted node may become a string) and whose findings are well-formed; under the default options a
//! planted secret is in neither values nor keys.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use jsonrpc_errors_fuzz::header::Header;
use jsonrpc_errors_fuzz::json::{parse_one, ArbJson, Planting};
use jsonrpc_errors_fuzz::options::Options;
use jsonrpc_errors_fuzz::{first_line, secrets, text};
use jsonrpc_errors_guest::api;
use jsonrpc_errors_guest::redact::Redactor;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(init: secrets::install_environment(), |data: &[u8]| {
    let (h, payload) = Header::split(data);
    let mut u = Unstructured::new(payload);
    let (options, default_options) = match (h.mode >> 1) & 3 {
        0 => (String::new(), true),
        1 => ("{}".to_string(), true),
        2 => {
            let (line, rest) = first_line(payload);
            u = Unstructured::new(rest);
            (text(line).into_owned(), false)
        }
        _ => match Options::arbitrary(&mut u) {
            Ok(o) => (o.to_json(), false),
            Err(_) => return,
        },
    };
    let secret = secrets::secret(h.secret, true);
    let mut planting = Planting::new(secret, h.position());
    let document = if h.mode & 1 == 0 {
        text(u.take_rest()).into_owned()
    } else {
        let Ok(doc) = ArbJson::arbitrary_take_rest(u) else { return };
        let plant = h.flag(0) && default_options;
        if plant { doc.to_value_planting(&mut planting) } else { doc.to_value() }.to_string()
    };
    let check_leaks = planting.planted && secrets::leak_in(document.replacen(&format!(" {secret} "), "", 1).as_bytes()).is_none();

    let expected_failure = Redactor::from_json(&options).is_err() || serde_json::from_str::<Value>(&document).is_err();
    let out = match api::redact_json_value(&document, &options) {
        Err(e) => {
            assert!(expected_failure, "refused a JSON document under valid options: {}", api::error_json(&e));
            let failure = parse_one(&api::error_json(&e), "redact-json's refusal");
            assert_eq!(failure["code"], -32602, "a refusal is -32602: {failure}");
            return;
        }
        Ok(out) => out,
    };
    assert!(!expected_failure, "accepted bad options or a text that is not JSON: {out}");
    let result = parse_one(&out, "redact-json's output");
    let input: Value = serde_json::from_str(&document).expect("checked above");
    let value = result.get("value").unwrap_or_else(|| panic!("no value in {out}"));
    same_shape(&input, value, "$");
    let findings = result["findings"].as_array().unwrap_or_else(|| panic!("no findings in {out}"));
    for f in findings {
        let ok = f["rule"].is_string()
            && f["category"].is_string()
            && f["path"].is_string()
            && f["start"].as_u64().zip(f["end"].as_u64()).is_some_and(|(s, e)| s <= e);
        assert!(ok, "a malformed finding {f} in {out}");
    }
    if check_leaks {
        secrets::assert_no_leak(&value.to_string(), "the redacted document");
    }
});

/// Panics unless `output` has the shape of `input`: containers keep their length (object members their
/// count, in place), except that a redacted node may become a string.
fn same_shape(input: &Value, output: &Value, path: &str) {
    match (input, output) {
        (_, Value::String(_)) => {}
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(
                a.len(),
                b.len(),
                "array at {path} changed length: {input} -> {output}"
            );
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                same_shape(x, y, &format!("{path}[{i}]"));
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            assert_eq!(
                a.len(),
                b.len(),
                "object at {path} changed its member count: {input} -> {output}"
            );
            for ((k, x), (_, y)) in a.iter().zip(b) {
                same_shape(x, y, &format!("{path}.{k}"));
            }
        }
        (a, b) => assert_eq!(a, b, "a {} at {path} became {output}", kind(a)),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
