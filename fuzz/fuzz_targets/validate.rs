//! `api::validate`: raw request bytes under fuzzed options.
//!
//! Header: dialect, batch policy, the call context, and flags:
//!   bit 0  max_bytes given: number 0 (bit 1: only its low 16 bits, so limits near the body's size are common)
//!   bit 2  content_type given: the payload's first line (the body is the rest)
//!   bit 3  content_length given: number 1 (bit 4: the body's length plus the low byte of number 1 as an i8,
//!          so lengths off by a few are common)
//! Payload: the body.
//!
//! Properties: a refused option (dialect, batch policy) is a clean error object that echoes no secret; every
//! other call returns exactly one JSON document: the verdict `{"valid": true, "id"?, "method"}`, a JSON-RPC
//! error response, or (allowed batch) an array of those, one per member. A body over the limit is the
//! -32600 error, never read (id null). A verdict of "valid" agrees with an independent parse of the body.

#![no_main]

use jsonrpc_errors_fuzz::header::Header;
use jsonrpc_errors_fuzz::json::{assert_response, parse_one};
use jsonrpc_errors_fuzz::{first_line, secrets, text};
use jsonrpc_errors_guest::api;
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let (h, payload) = Header::split(data);
    let (content_type, body) = if h.flag(2) {
        first_line(payload)
    } else {
        (&[][..], payload)
    };
    let content_type = text(content_type);
    let max_bytes = match (h.flag(0), h.flag(1)) {
        (false, _) => None,
        (true, false) => Some(h.number(0)),
        (true, true) => Some(h.number(0) & 0xFFFF),
    };
    let content_length = match (h.flag(3), h.flag(4)) {
        (false, _) => None,
        (true, false) => Some(h.number(1)),
        (true, true) => Some((body.len() as i64 + i64::from(h.numbers[1][0] as i8)).max(0) as u64),
    };
    let args = api::ValidateArgs {
        max_bytes,
        batch: h.batch(),
        content_type: h.flag(2).then_some(&*content_type),
        content_length,
        dialect: h.dialect(),
    };
    let result = api::validate(body, &args, &h.ctx());

    let options_valid = h.dialect_is_valid() && (h.batch() == "reject" || h.batch() == "allow");
    let out = match result {
        Err(e) => {
            assert!(
                !options_valid,
                "validate refused valid options: {}",
                api::error_json(&e)
            );
            // The refused name may be a secret typed as a dialect.
            secrets::assert_no_leak(&api::error_json(&e), "validate's refusal");
            return;
        }
        Ok(out) => {
            assert!(
                options_valid,
                "validate accepted dialect {:?} / batch {:?}",
                h.dialect(),
                h.batch()
            );
            out
        }
    };
    let verdict = parse_one(&out, "validate's output");

    let limit = max_bytes.unwrap_or(
        jsonrpc_errors_guest::taxonomy::taxonomy()
            .meta
            .default_max_bytes,
    );
    if content_length.unwrap_or(0).max(body.len() as u64) > limit {
        assert_response(&verdict, "validate's oversize answer");
        assert_eq!(
            verdict["error"]["code"], -32600,
            "an oversize body is -32600: {out}"
        );
        assert_eq!(
            verdict["id"],
            Value::Null,
            "an oversize body is never read, so its id is not known: {out}"
        );
        return;
    }
    match &verdict {
        Value::Array(verdicts) => {
            assert_eq!(
                h.batch(),
                "allow",
                "an array answered under batch policy reject: {out}"
            );
            // The members, read independently (serde_json gives up past 128 levels of nesting: no check then).
            if let Ok(members) = serde_json::from_slice::<Vec<&RawValue>>(body) {
                assert_eq!(
                    members.len(),
                    verdicts.len(),
                    "one verdict per batch member: {out}"
                );
                for (member, v) in members.iter().zip(verdicts) {
                    check_verdict(v, member.get().as_bytes(), None, None);
                }
            }
        }
        v => check_verdict(v, body, args.content_type, content_length),
    }
});

/// A verdict is either "valid" (and then the body agrees) or an error response.
fn check_verdict(v: &Value, body: &[u8], content_type: Option<&str>, content_length: Option<u64>) {
    if v.get("valid").is_none() {
        assert_response(v, "validate's error answer");
        return;
    }
    assert_eq!(
        v["valid"],
        Value::Bool(true),
        "\"valid\" is only ever true: {v}"
    );
    let method = v["method"]
        .as_str()
        .unwrap_or_else(|| panic!("a valid verdict names the method: {v}"));
    assert!(
        content_length.is_none_or(|n| n == body.len() as u64),
        "valid despite a Content-Length mismatch: {v}"
    );
    if let Some(ct) = content_type {
        let media = ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        assert!(
            [
                "application/json",
                "application/json-rpc",
                "application/jsonrequest"
            ]
            .contains(&media.as_str()),
            "valid despite content type {ct:?}: {v}"
        );
    }
    let text = std::str::from_utf8(body)
        .unwrap_or_else(|e| panic!("valid despite invalid UTF-8 ({e}): {v}"));
    // An independent reading of the request (skipped past serde_json's nesting limit, which the guest does not
    // have: it reads members as raw text).
    // Surrogate escapes (`\uD83D` alone) are JSON syntax but no Unicode, which serde_json refuses; the guest
    // reads only `jsonrpc`, `method` and `id` (refusing such an id), so elsewhere they are the receiver's
    // business. Read here with each one as U+FFFD (a false alarm before: `"di":"\uD83D\uFE00…"`).
    let text = &without_surrogate_escapes(text);
    let Ok(request) = serde_json::from_str::<Map<String, Value>>(text) else {
        let deep = serde_json::from_str::<Value>(text)
            .err()
            .is_some_and(|e| e.to_string().contains("recursion limit"));
        assert!(deep, "valid, but the body is not a JSON object: {v}");
        return;
    };
    assert_eq!(
        request.get("jsonrpc"),
        Some(&Value::String("2.0".into())),
        "valid without jsonrpc 2.0: {v}"
    );
    assert_eq!(
        request.get("method").and_then(Value::as_str),
        Some(method),
        "the verdict's method is the body's: {v}"
    );
    assert_eq!(
        request.get("id"),
        v.get("id"),
        "the verdict's id is the body's: {v}"
    );
    if let Some(id) = request.get("id") {
        assert!(
            matches!(id, Value::String(_) | Value::Number(_) | Value::Null),
            "valid with id {id}: {v}"
        );
    }
    if let Some(params) = request.get("params") {
        assert!(
            params.is_object() || params.is_array(),
            "valid with params {params}: {v}"
        );
    }
}

/// `text` with every lone surrogate escape (`\uD800`…`\uDFFF` not in a pair) written `\uFFFD`; pairs, other
/// escapes, and a backslash escaped itself, as they are.
fn without_surrogate_escapes(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let hex = |at: usize| {
            let h = bytes.get(at..at + 6)?;
            (h[0] == b'\\' && h[1] == b'u').then(|| {
                std::str::from_utf8(&h[2..])
                    .ok()
                    .and_then(|h| u16::from_str_radix(h, 16).ok())
            })?
        };
        match (hex(i), hex(i + 6)) {
            // A pair is one character: kept.
            (Some(0xD800..=0xDBFF), Some(0xDC00..=0xDFFF)) => i += 12,
            (Some(0xD800..=0xDFFF), _) => {
                out.push_str(&text[copied..i]);
                out.push_str("\\uFFFD");
                i += 6;
                copied = i;
            }
            _ => i += 2,
        }
    }
    out.push_str(&text[copied..]);
    out
}
