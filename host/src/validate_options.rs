// Generated from wit/world.wit (interface `types`: `validate-options`) by `cargo xtask gen`; do not edit.

use crate::bindings::exports::jsonrpc_errors::core::kinds::Dialect;
use crate::bindings::exports::jsonrpc_errors::core::types as wit;

/// What `validate` checks a request's bytes against. Every shell's mirror is generated from this record
/// (`cargo xtask gen`); a field that is not an `option` states its default.
///
/// A shell that builds one names every field or takes the rest from `Default` (each field's default as the
/// WIT states it).
#[derive(Debug, Clone)]
pub struct ValidateOptions {
    /// Default: 10 MiB.
    pub max_bytes: Option<u64>,
    /// Default: `reject`.
    pub batch: wit::BatchPolicy,
    /// The transport's Content-Type header, checked when present.
    pub content_type: Option<String>,
    /// The transport's declared length: lets an oversize body be refused unread.
    pub content_length: Option<u64>,
    /// Default: `canonical`.
    pub dialect: String,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions {
            max_bytes: None,
            batch: wit::BatchPolicy::Reject,
            content_type: None,
            content_length: None,
            dialect: "canonical".into(),
        }
    }
}

impl ValidateOptions {
    /// The WIT record, the dialect's name read by `dialect`: the runtime's check, which refuses a name outside
    /// the dialect enum with the guest's own error (the record cannot carry it).
    pub(crate) fn to_wit<E>(
        &self,
        dialect: impl FnOnce(&str) -> Result<Dialect, E>,
    ) -> Result<wit::ValidateOptions, E> {
        Ok(wit::ValidateOptions {
            max_bytes: self.max_bytes,
            batch: self.batch,
            content_type: self.content_type.clone(),
            content_length: self.content_length,
            dialect: dialect(&self.dialect)?,
        })
    }

    /// The WIT record for a body of `len` bytes, and whether the body is withheld: one over
    /// `max_bytes` (else `DEFAULT_MAX_BYTES`) or over `max_input` never enters wasm;
    /// `content_length` tells the component its length instead, so that it answers it unread.
    pub(crate) fn to_wit_for_body<E>(
        &self,
        dialect: impl FnOnce(&str) -> Result<Dialect, E>,
        len: usize,
        max_input: usize,
    ) -> Result<(wit::ValidateOptions, bool), E> {
        let limit = self.max_bytes.unwrap_or(crate::taxonomy::DEFAULT_MAX_BYTES);
        let withhold = len as u64 > limit || len > max_input;
        let mut record = self.to_wit(dialect)?;
        if withhold {
            record.content_length = Some(len as u64);
        }
        Ok((record, withhold))
    }
}
