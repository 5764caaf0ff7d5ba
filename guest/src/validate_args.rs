// Generated from wit/world.wit (interface `types`: `validate-options`) by `cargo xtask gen`; do not edit.

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
