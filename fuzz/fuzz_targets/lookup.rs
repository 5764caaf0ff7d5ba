//! Reverse lookup (`api::lookup_kind`), `api::explain` and `api::codes`.
//!
//! Header: dialect; number 0, the code (flag bit 2: instead, the taxonomy's n-th distinct code, so codes
//! that several kinds share come up often); flags bit 0: a message (the payload's first line), bit 1: `data`
//! (the rest of the payload, as JSON text). `codes` takes finitely many arguments: every pair is checked
//! once when the target starts.
//!
//! Properties: a dialect outside the eight, `data` that is not JSON and an unknown format are refused with
//! a clean error object (a secret typed as a dialect is not echoed); a kind found for a code renders with
//! that code in that dialect and is among the kinds `explain` lists for it; no kind found means `explain`
//! knows none; `explain` lists exactly the kinds with that code; `codes` is JSON or non-empty markdown.

#![no_main]

use jsonrpc_errors_fuzz::header::{Header, DIALECT_CHOICES};
use jsonrpc_errors_fuzz::json::parse_one;
use jsonrpc_errors_fuzz::{first_line, secrets, text};
use jsonrpc_errors_guest::api;
use jsonrpc_errors_guest::taxonomy::{taxonomy, DIALECTS};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::sync::OnceLock;

/// Every code any dialect uses, once each.
fn all_codes() -> &'static [i64] {
    static CODES: OnceLock<Vec<i64>> = OnceLock::new();
    CODES.get_or_init(|| {
        let mut codes: Vec<i64> = taxonomy()
            .kinds
            .iter()
            .flat_map(|k| k.dialects.iter().filter_map(|(_, e)| e.code.map(i64::from)))
            .collect();
        codes.sort_unstable();
        codes.dedup();
        codes
    })
}

const FORMATS: [&str; 3] = ["json", "markdown", "yaml"];

/// `codes` takes one of finitely many argument pairs (a dialect choice or all of them, a format): checked
/// for every one of them, once, instead of fuzzed.
fn check_codes() {
    let dialects = DIALECT_CHOICES.iter().map(|d| Some(*d)).chain([None]);
    for which in dialects {
        for format in FORMATS {
            let valid = format != "yaml" && which.is_none_or(|d| DIALECTS.contains(&d));
            match api::codes(which, format) {
                Err(e) => {
                    assert!(
                        !valid,
                        "codes refused {which:?} / {format}: {}",
                        api::error_json(&e)
                    );
                    parse_one(&api::error_json(&e), "codes' refusal");
                    secrets::assert_no_leak(&api::error_json(&e), "codes' refusal");
                }
                Ok(out) => {
                    assert!(valid, "codes accepted {which:?} / {format}");
                    if format == "json" {
                        parse_one(&out, "the code table");
                    } else {
                        assert!(!out.is_empty(), "an empty markdown table");
                    }
                }
            }
        }
    }
}

fuzz_target!(init: check_codes(), |data: &[u8]| {
    let (h, payload) = Header::split(data);
    let dialect = h.dialect();
    let code = if h.flag(2) { all_codes()[h.number(0) as usize % all_codes().len()] } else { h.number(0) as i64 };
    let (message, rest) = if h.flag(0) { first_line(payload) } else { (&[][..], payload) };
    let message = h.flag(0).then(|| text(message));
    let data_text = h.flag(1).then(|| text(rest));

    let refused = |e: &jsonrpc_errors_guest::error::ErrorObject, what: &str| {
        let failure = api::error_json(e);
        parse_one(&failure, what);
        secrets::assert_no_leak(&failure, what);
    };

    let explained = match api::explain(dialect, code) {
        Err(e) => {
            refused(&e, "explain's refusal");
            None
        }
        Ok(out) => {
            assert!(h.dialect_is_valid(), "explain accepted dialect {dialect:?}");
            let v = parse_one(&out, "explain's output");
            let kinds: Vec<String> = v["kinds"]
                .as_array()
                .unwrap_or_else(|| panic!("no kinds in {out}"))
                .iter()
                .map(|k| {
                    assert_eq!(k["code"], Value::from(code), "explain {code} lists a kind with another code: {out}");
                    k["kind"].as_str().expect("a kind's name").to_string()
                })
                .collect();
            let expected: Vec<&str> = taxonomy().kinds_with_code(dialect, code).iter().map(|k| k.name.as_str()).collect();
            assert_eq!(kinds, expected, "explain lists exactly the kinds with that code");
            Some(kinds)
        }
    };

    let data_is_json = data_text.as_deref().is_none_or(|d| serde_json::from_str::<Value>(d).is_ok());
    match api::lookup_kind(dialect, code, message.as_deref(), data_text.as_deref()) {
        Err(e) => {
            assert!(!h.dialect_is_valid() || !data_is_json, "lookup refused: {}", api::error_json(&e));
            refused(&e, "lookup's refusal");
        }
        Ok(found) => {
            assert!(h.dialect_is_valid() && data_is_json, "lookup accepted dialect {dialect:?} / data {data_text:?}");
            match found {
                Some(kind) => {
                    let k = taxonomy().kind(&kind).unwrap_or_else(|| panic!("lookup found unknown kind {kind}"));
                    assert_eq!(k.dialect(dialect).and_then(|e| e.code).map(i64::from), Some(code), "{kind} has another code");
                    assert!(explained.is_some_and(|ks| ks.contains(&kind)), "explain {code} does not list {kind}");
                }
                None => assert!(explained.is_none(), "no kind for {code}, yet explain lists {explained:?}"),
            }
        }
    }
});
