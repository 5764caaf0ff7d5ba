//! Secrets the targets plant in fuzzed input, and the check that none comes back.
//!
//! A secret is planted as a word of its own (spaces around it), where every rule must find it whatever the
//! fuzzer wrote around it. Secret material the fuzzer wrote itself (libFuzzer learns the strings the harness
//! compares with) is not checked: glued to other characters a token is legitimately not one, so an input
//! already holding part of a secret is not a case for the check.

use std::collections::HashSet;
use std::sync::OnceLock;

/// Real-format tokens from the catalogue's own positive examples (`redaction/rules.toml`), then the value of
/// a secret-looking environment variable (found only where the guest's environment is consulted).
pub const SECRETS: [&str; 6] = [
    "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d",
    "sk_live_83RZJzzzzgEOzdmenCkhvMdg",
    "AKIAR6QMW4WXFOGO6MVN",
    "xoxb-127684268465-6321223307924-sajAIxNKu8iS2G8NPRVdD53X",
    "npm_fkbSh2Cde2wioVMEuUYMjPeFXsRgZzCYTHY2",
    ENV_SECRET,
];

/// The value of `FUZZ_DB_PASSWORD`, set by [`install_environment`].
pub const ENV_SECRET: &str = "Tr0ub4dor-horse-battery-9931";

/// The longest piece of a secret that may appear in an output: 15 bytes. Any 16 consecutive bytes of one
/// count as a leak (a truncated token is still most of a token).
const WINDOW: usize = 16;

/// Gives the guest a secret environment (as a runtime does from its process environment): its value must
/// be scrubbed from everything, like a catalogue token.
pub fn install_environment() {
    jsonrpc_errors_guest::set_environment(&[(
        "FUZZ_DB_PASSWORD".to_string(),
        ENV_SECRET.to_string(),
    )]);
}

/// Secret number `i`; `with_env`: whether the environment's secret may be picked (only where the call
/// consults the environment installed by [`install_environment`]).
pub fn secret(i: u8, with_env: bool) -> &'static str {
    let n = if with_env {
        SECRETS.len()
    } else {
        SECRETS.len() - 1
    };
    SECRETS[i as usize % n]
}

/// A piece of a secret (16 bytes or more) found in `text`, if any.
pub fn leak_in(text: &[u8]) -> Option<&'static str> {
    // Every 16-byte window of every secret, looked up once per position of the text (this runs on every
    // output of several targets: a search per window would cost more than the call under test).
    static WINDOWS: OnceLock<HashSet<&'static [u8]>> = OnceLock::new();
    let windows = WINDOWS.get_or_init(|| {
        SECRETS
            .iter()
            .flat_map(|s| s.as_bytes().windows(WINDOW))
            .collect()
    });
    let found = text.windows(WINDOW).find_map(|w| windows.get(w))?;
    Some(std::str::from_utf8(found).expect("secrets are ASCII"))
}

/// `bytes` with ` secret ` inserted at `at` (modulo the length + 1, moved back to a UTF-8 boundary when
/// `bytes` is text, so planting never breaks a character).
pub fn plant(bytes: &[u8], at: usize, secret: &str) -> Vec<u8> {
    let mut at = at % (bytes.len() + 1);
    if let Ok(text) = std::str::from_utf8(bytes) {
        while !text.is_char_boundary(at) {
            at -= 1;
        }
    }
    let mut out = Vec::with_capacity(bytes.len() + secret.len() + 2);
    out.extend_from_slice(&bytes[..at]);
    out.push(b' ');
    out.extend_from_slice(secret.as_bytes());
    out.push(b' ');
    out.extend_from_slice(&bytes[at..]);
    out
}

/// Panics when a planted secret (any 16 bytes of it) appears in `output`. `what` names the output.
pub fn assert_no_leak(output: &str, what: &str) {
    if let Some(piece) = leak_in(output.as_bytes()) {
        panic!("planted secret leaked ({piece:?}) in {what}: {output}");
    }
}
