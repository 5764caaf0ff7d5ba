//! The operator's log policy: what of a peer's text the operator's log may show (secrets redacted, stack
//! traces and paths kept), and how much of it.

use crate::redact::{self, Redactor, Secrets};
use crate::scrub;

/// Longest internal detail kept in an event.
const DETAIL_BYTES: usize = 2048;

/// The operator's log keeps stack traces and paths (they are what an operator debugs with) but never a
/// secret: tokens, credentials, personal data and the environment's secret values are redacted.
pub fn operator_redactor() -> Redactor {
    Redactor::disabling(&["stacktrace", "path"])
}

/// Text for the operator's log: redacted under [`operator_redactor`], cut to a bounded size.
pub fn for_operator(text: &str, env: &Secrets) -> String {
    scrub::truncate(
        &redact::redact_with(text, env, &operator_redactor()).text,
        DETAIL_BYTES,
    )
}

/// How much of an unreadable line the operator's log shows.
pub(super) const LINE_EXCERPT_BYTES: usize = 512;

/// A bounded, operator-redacted excerpt of a line that could not be relayed: redacted whole, then cut. Cut
/// first, a secret across the cut lost the part its rule needs to see it, and the rest stayed in clear
/// (found by cargo-fuzz: `sk_live_83RZJzzzzgEOz…[truncated]` in the operator's log).
pub(super) fn excerpt(text: &str, env: &Secrets) -> String {
    scrub::truncate(&for_operator(text, env), LINE_EXCERPT_BYTES)
}
