// Generated from wit/world.wit (interface `types`: `validate-options`) by `cargo xtask gen`; do not edit.

use crate::error::ErrorObject;
use serde_json::Value;

/// What `validate` checks a request's bytes against. Every shell's mirror is generated from this record
/// (`cargo xtask gen`); a field that is not an `option` states its default.
///
/// As every runtime hands it to `api::validate`: an enum by its case's name (the guest checks it).
#[derive(Debug, Clone, Copy)]
pub struct ValidateArgs<'a> {
    /// Default: 10 MiB.
    pub max_bytes: Option<u64>,
    /// Default: `reject`.
    pub batch: &'a str,
    /// The transport's Content-Type header, checked when present.
    pub content_type: Option<&'a str>,
    /// The transport's declared length: lets an oversize body be refused unread.
    pub content_length: Option<u64>,
    /// Default: `canonical`.
    pub dialect: &'a str,
}

impl Default for ValidateArgs<'_> {
    fn default() -> Self {
        ValidateArgs {
            max_bytes: None,
            batch: "reject",
            content_type: None,
            content_length: None,
            dialect: "canonical",
        }
    }
}

impl<'a> ValidateArgs<'a> {
    /// The record as JSON (snake_case keys: the npm module's glue): a member not given, or null, keeps its
    /// default; an unknown or ill-typed member is refused with -32602 (`data.reason` "invalid-options",
    /// `data.details` naming it, never its value).
    pub fn from_json(json: &'a Value) -> Result<Self, ErrorObject> {
        let refuse = |details: String| ErrorObject::invalid_params("invalid-options", &details);
        let Value::Object(members) = json else {
            return Err(refuse(
                "options must be validate-options as a JSON object".into(),
            ));
        };
        let mut args = ValidateArgs::default();
        for (name, value) in members {
            if value.is_null() {
                continue;
            }
            let read = match name.as_str() {
                "max_bytes" => value.as_u64().map(|v| args.max_bytes = Some(v)),
                "batch" => value.as_str().map(|v| args.batch = v),
                "content_type" => value.as_str().map(|v| args.content_type = Some(v)),
                "content_length" => value.as_u64().map(|v| args.content_length = Some(v)),
                "dialect" => value.as_str().map(|v| args.dialect = v),
                _ => return Err(refuse(format!("unknown option `{name}`"))),
            };
            if read.is_none() {
                return Err(refuse(format!("option `{name}` has the wrong type")));
            }
        }
        Ok(args)
    }
}
