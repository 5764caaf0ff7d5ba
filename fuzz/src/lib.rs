//! What the fuzz targets share: the fixed-size header every input starts with ([`header`]), the secrets
//! they plant ([`secrets`]), JSON built by `arbitrary` and the response checks ([`json`]), redaction
//! options built by `arbitrary` ([`options`]), and the guard target's script and model of a session
//! ([`guard`]).
//!
//! Every target states the properties the API promises and panics (a libFuzzer crash) when one fails, so
//! a finding is a minimized input plus the message of the assertion it broke.

pub mod guard;
pub mod header;
pub mod json;
pub mod options;
pub mod secrets;

use std::sync::OnceLock;

/// Whether the finding `name` is listed in `FUZZ_KNOWN` (comma-separated). A check for a finding already
/// reported can be skipped this way, so a long run goes on past it instead of stopping at the first input
/// that hits it again; nothing is skipped unless asked.
pub fn known(name: &str) -> bool {
    static KNOWN: OnceLock<Vec<String>> = OnceLock::new();
    KNOWN
        .get_or_init(|| {
            std::env::var("FUZZ_KNOWN")
                .unwrap_or_default()
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .iter()
        .any(|k| k == name)
}

/// The bytes as text the way every runtime hands text to the guest: invalid UTF-8 never reaches it (the
/// runtimes refuse or repair it first), so the fuzzer's invalid sequences become U+FFFD.
pub fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// Splits off the first line (up to a `\n`) of `bytes`: how several targets take a short option (a content
/// type, a message, options JSON) from the front of their payload.
pub fn first_line(bytes: &[u8]) -> (&[u8], &[u8]) {
    match bytes.iter().position(|&b| b == b'\n') {
        Some(i) => (&bytes[..i], &bytes[i + 1..]),
        None => (bytes, &[]),
    }
}
