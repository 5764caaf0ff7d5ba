//! Failures of the library's own entry points (bad input), reported as JSON-RPC error objects in every runtime.

use serde_json::Value;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InputError {
    #[error("input is not valid JSON: {0}")]
    NotJson(String),
    #[error("input must be a JSON object with a \"kind\" (or a non-empty array of them)")]
    NotObject,
    #[error("input has no \"kind\" string")]
    MissingKind,
    #[error("unknown kind '{0}'")]
    UnknownKind(String),
    #[error("unknown dialect '{0}' (expected one of: {names})", names = crate::taxonomy::DIALECT_LIST)]
    UnknownDialect(String),
    #[error("kind '{kind}' is not defined in dialect '{dialect}'")]
    NotInDialect { kind: String, dialect: String },
    #[error("kind '{kind}' requires field '{field}'")]
    MissingField { kind: String, field: String },
    #[error("kind '{kind}': field '{field}' must be {expected}")]
    FieldType {
        kind: String,
        field: String,
        expected: &'static str,
    },
    /// `elsewhere`: the dialects whose generic fields include it (the caller likely chose another dialect).
    #[error("kind '{kind}' has no field '{field}'{}", generic_hint(elsewhere))]
    UnknownField {
        kind: String,
        field: String,
        elsewhere: Vec<String>,
    },
    #[error("\"id\" must be a string, a number or null")]
    InvalidId,
    #[error("\"{0}\" must be a string")]
    NotAString(&'static str),
    #[error("invalid-request reason '{0}' is not a known reason")]
    UnknownReason(String),
    #[error("code {code} is not defined in dialect '{dialect}'")]
    UnknownCode { dialect: String, code: i64 },
    #[error("input is not valid Unicode (at offset {0})")]
    NotUnicode(u64),
    #[error("input of {len} bytes exceeds the limit of {limit} bytes")]
    TooLarge { len: u64, limit: u64 },
    #[error("format must be \"markdown\" or \"json\", not \"{0}\"")]
    UnknownFormat(String),
}

fn generic_hint(dialects: &[String]) -> String {
    match dialects {
        [] => String::new(),
        [one] => format!(" (dialect '{one}' accepts it on every kind)"),
        many => format!(
            " (dialects {} accept it on every kind)",
            many.iter()
                .map(|d| format!("'{d}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

impl InputError {
    /// A stable machine-readable reason, for `data.reason`.
    pub fn reason(&self) -> &'static str {
        match self {
            InputError::NotJson(_) => "not-json",
            InputError::NotObject => "not-an-object",
            InputError::MissingKind => "missing-kind",
            InputError::UnknownKind(_) => "unknown-kind",
            InputError::UnknownDialect(_) => "unknown-dialect",
            InputError::NotInDialect { .. } => "kind-not-in-dialect",
            InputError::MissingField { .. } => "missing-field",
            InputError::FieldType { .. } => "field-type",
            InputError::UnknownField { .. } => "unknown-field",
            InputError::InvalidId => "invalid-id-type",
            InputError::NotAString(_) => "field-type",
            InputError::UnknownReason(_) => "unknown-reason",
            InputError::UnknownCode { .. } => "unknown-code",
            InputError::NotUnicode(_) => "not-unicode",
            InputError::TooLarge { .. } => "oversize",
            InputError::UnknownFormat(_) => "unknown-format",
        }
    }

    /// The JSON-RPC error object describing this failure: `invalid-params` (the caller's input was wrong), or
    /// `invalid-request` with reason `oversize` for an input over the size limit (as an oversize request is
    /// answered).
    pub fn to_error_object(&self) -> ErrorObject {
        match self {
            InputError::TooLarge { .. } => {
                ErrorObject::refusal("invalid-request", self.reason(), &self.to_string())
            }
            _ => ErrorObject::invalid_params(self.reason(), &self.to_string()),
        }
    }
}

/// A JSON-RPC 2.0 error object.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorObject {
    pub code: i32,
    pub message: String,
    pub data: Option<Value>,
}

impl ErrorObject {
    /// -32602 for bad input to the library itself: `data.reason` is machine-readable, and `data.details`
    /// (which may quote the caller's input) is scrubbed like everything else that leaves.
    pub fn invalid_params(reason: &str, details: &str) -> Self {
        Self::refusal("invalid-params", reason, details)
    }

    /// A plain JSON-RPC error of taxonomy kind `kind` (one of JSON-RPC's or MCP's own, which every dialect
    /// writes alike): its code and message as the canonical dialect writes them, `data` as given. What is told
    /// in plain JSON-RPC rather than in a caller's dialect: the library's refusals of its own input, a guard's
    /// refusals to its upstream, MCP's errors with the data MCP defines. Codes are the taxonomy's, never
    /// written in code (guest/tests/codes_from_taxonomy.rs).
    pub fn of_kind(kind: &str, data: Option<Value>) -> Self {
        let kind = crate::taxonomy::taxonomy()
            .kind(kind)
            .expect("a plain error names a kind of the taxonomy");
        let code = kind
            .dialect("canonical")
            .and_then(|d| d.code)
            .expect("a plain error's kind has a canonical code");
        ErrorObject {
            code,
            message: kind.message_in("canonical").to_string(),
            data,
        }
    }

    /// A refusal of the library's own input: `data` is `{type, reason, details}`, the details scrubbed.
    fn refusal(kind: &str, reason: &str, details: &str) -> Self {
        let details = crate::scrub::truncate(
            &crate::redact::redact_with(
                details,
                &crate::environment(),
                &crate::redact::Redactor::default(),
            )
            .text,
            crate::taxonomy::taxonomy().meta.truncate_bytes,
        );
        // Built member by member (json! would route each &str through serde's to_value).
        let mut data = serde_json::Map::new();
        data.insert("type".into(), Value::String(kind.into()));
        data.insert("reason".into(), Value::String(reason.into()));
        data.insert("details".into(), Value::String(details));
        ErrorObject::of_kind(kind, Some(Value::Object(data)))
    }

    pub fn to_value(&self) -> Value {
        let mut obj = serde_json::Map::new();
        obj.insert("code".into(), Value::from(self.code));
        obj.insert("message".into(), Value::String(self.message.clone()));
        if let Some(d) = &self.data {
            obj.insert("data".into(), d.clone());
        }
        Value::Object(obj)
    }

    /// The plain internal error used when building an error itself fails: it carries nothing that could leak.
    pub fn internal() -> Self {
        ErrorObject::of_kind("internal-error", None)
    }
}

/// A full JSON-RPC error response.
pub fn error_response(error: &ErrorObject, id: Value) -> Value {
    let mut response = serde_json::Map::new();
    response.insert("jsonrpc".into(), Value::String("2.0".into()));
    response.insert("error".into(), error.to_value());
    response.insert("id".into(), id);
    Value::Object(response)
}
