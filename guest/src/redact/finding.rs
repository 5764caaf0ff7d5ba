//! What redaction reports: the findings (rule, category, byte span) and the redacted text.

use serde::Serialize;

/// The rule id used for caller-supplied environment values.
pub const ENV_RULE: &str = "env-value";
pub const ENV_CATEGORY: &str = "environment";

/// One redacted span. Offsets are byte offsets into the input; the secret itself is never kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: String,
    pub category: String,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redacted {
    pub text: String,
    pub findings: Vec<Finding>,
    /// Where each finding's replacement sits in `text` (byte range), in the findings' order.
    #[serde(skip)]
    pub written: Vec<(usize, usize)>,
    /// The findings (indexes, ascending) that end where a delimiting rule's match ended (URL userinfo at its
    /// `@`), also when that match was merged into a span another rule's match began (a token in the
    /// userinfo), whose name the span carries.
    #[serde(skip)]
    pub ends_at_delimiter: Vec<usize>,
}
