//! `validate-options` as JSON text (what the npm module's glue passes, read by the generated
//! `ValidateArgs::from_json`): each field is read as the typed record gives it, null is "not given", and what
//! the record does not hold is refused rather than ignored.

use jsonrpc_errors_guest::api::{self, ValidateArgs};
use jsonrpc_errors_guest::context::CallContext;

const CTX: CallContext = CallContext {
    unix_millis: 1_700_000_000_000,
    entropy: 7,
};

#[test]
fn each_field_as_json_answers_as_the_typed_record() {
    let batch = br#"[{"jsonrpc":"2.0","method":"a","id":1}]"#;
    let cases: [(&str, ValidateArgs); 5] = [
        (
            r#"{"max_bytes":4}"#,
            ValidateArgs {
                max_bytes: Some(4),
                ..Default::default()
            },
        ),
        (
            r#"{"batch":"allow"}"#,
            ValidateArgs {
                batch: "allow",
                ..Default::default()
            },
        ),
        (
            r#"{"content_type":"text/plain"}"#,
            ValidateArgs {
                content_type: Some("text/plain"),
                ..Default::default()
            },
        ),
        (
            r#"{"content_length":99999999999}"#,
            ValidateArgs {
                content_length: Some(99_999_999_999),
                ..Default::default()
            },
        ),
        (
            r#"{"dialect":"mcp","batch":"bogus"}"#,
            ValidateArgs {
                dialect: "mcp",
                batch: "bogus",
                ..Default::default()
            },
        ),
    ];
    let default = api::validate(batch, &ValidateArgs::default(), &CTX);
    for (json, typed) in cases {
        let from_json = api::validate_with_json(batch, json, &CTX);
        assert_eq!(from_json, api::validate(batch, &typed, &CTX), "{json}");
        assert_ne!(
            from_json, default,
            "{json} changes nothing: the field is not read"
        );
    }
    for not_given in ["{}", r#"{"max_bytes":null,"batch":null,"dialect":null}"#] {
        assert_eq!(
            api::validate_with_json(batch, not_given, &CTX),
            default,
            "{not_given}"
        );
    }
}

#[test]
fn an_unknown_or_ill_typed_option_is_refused() {
    for bad in [
        r#"{"allow_batch":true}"#,
        r#"{"max_bytes":"4"}"#,
        r#"{"batch":1}"#,
        "[]",
        "not json",
    ] {
        let e = api::validate_with_json(b"{}", bad, &CTX).unwrap_err();
        assert_eq!(e.code, -32602, "{bad}");
    }
}
