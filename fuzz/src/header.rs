//! The header: the first [`HEADER_LEN`] bytes of every fuzz input, decoded by `arbitrary` into the options of
//! the call (dialect, mode, numbers, call context); the rest of the input is the payload under test.
//!
//! A fixed size, and plain bytes as fields, so that a seed is simply a header written for the options a
//! vector uses followed by the vector's payload ([`Header::to_bytes`] is the exact inverse of the decoding,
//! which `examples/seed.rs` checks for every seed it writes), and so that the fuzzer mutates options and
//! payload independently. Each target documents what it reads from the header.

use arbitrary::{Arbitrary, Unstructured};
use jsonrpc_errors_guest::context::CallContext;
use jsonrpc_errors_guest::taxonomy::DIALECTS;

use crate::secrets::SECRETS;

#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    /// Index into [`DIALECT_CHOICES`] (modulo its length).
    pub dialect: u8,
    /// What the target does with the payload (each target defines its modes).
    pub mode: u8,
    /// Target-specific switches, one per bit.
    pub flags: u8,
    /// Which planted secret (index into [`SECRETS`]).
    pub secret: u8,
    /// Index into [`BATCH_CHOICES`].
    pub batch: u8,
    /// Where in the payload to plant the secret (little-endian u16).
    pub position: [u8; 2],
    /// Two target-specific numbers (little-endian u64): a size limit, a code, a timeout.
    pub numbers: [[u8; 8]; 2],
    /// The call context (little-endian u64 each).
    pub unix_millis: [u8; 8],
    pub entropy: [u8; 8],
}

pub const HEADER_LEN: usize = 5 + 2 + 16 + 8 + 8;

/// The eight dialects, then names the guest must refuse: an empty one, a wrong case, a control character,
/// and a secret typed as a dialect (which the refusal must not echo).
pub const DIALECT_CHOICES: [&str; 12] = [
    DIALECTS[0],
    DIALECTS[1],
    DIALECTS[2],
    DIALECTS[3],
    DIALECTS[4],
    DIALECTS[5],
    DIALECTS[6],
    DIALECTS[7],
    "",
    "Canonical",
    "mcp\n",
    SECRETS[0],
];

/// The two batch policies, then names the guest must refuse.
pub const BATCH_CHOICES: [&str; 4] = ["reject", "allow", "", "Allow"];

impl Header {
    /// The header and the payload. A short input decodes as if padded with zeros (`arbitrary` fills what is
    /// missing with zeros), so the all-zero header means: canonical, mode 0, no flags, reject.
    pub fn split(data: &[u8]) -> (Header, &[u8]) {
        let n = data.len().min(HEADER_LEN);
        let header = Header::arbitrary(&mut Unstructured::new(&data[..n])).unwrap_or_default();
        (header, &data[n..])
    }

    /// The bytes [`Header::split`] decodes into `self` (fields in declaration order; `examples/seed.rs`
    /// checks the round trip).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![self.dialect, self.mode, self.flags, self.secret, self.batch];
        out.extend_from_slice(&self.position);
        out.extend_from_slice(&self.numbers[0]);
        out.extend_from_slice(&self.numbers[1]);
        out.extend_from_slice(&self.unix_millis);
        out.extend_from_slice(&self.entropy);
        out
    }

    pub fn dialect(&self) -> &'static str {
        DIALECT_CHOICES[self.dialect as usize % DIALECT_CHOICES.len()]
    }

    /// Whether the dialect is one of the eight (the guest must accept it) rather than a name to refuse.
    pub fn dialect_is_valid(&self) -> bool {
        DIALECTS.contains(&self.dialect())
    }

    pub fn batch(&self) -> &'static str {
        BATCH_CHOICES[self.batch as usize % BATCH_CHOICES.len()]
    }

    pub fn flag(&self, bit: u8) -> bool {
        self.flags & (1 << bit) != 0
    }

    pub fn number(&self, i: usize) -> u64 {
        u64::from_le_bytes(self.numbers[i])
    }

    pub fn position(&self) -> usize {
        u16::from_le_bytes(self.position) as usize
    }

    pub fn ctx(&self) -> CallContext {
        CallContext {
            unix_millis: u64::from_le_bytes(self.unix_millis),
            entropy: u64::from_le_bytes(self.entropy),
        }
    }

    // ── for the seeder ──

    pub fn with_dialect(mut self, name: &str) -> Self {
        self.dialect = DIALECT_CHOICES.iter().position(|d| *d == name).unwrap_or(0) as u8;
        self
    }

    pub fn with_batch(mut self, name: &str) -> Self {
        self.batch = BATCH_CHOICES.iter().position(|b| *b == name).unwrap_or(0) as u8;
        self
    }

    pub fn with_number(mut self, i: usize, n: u64) -> Self {
        self.numbers[i] = n.to_le_bytes();
        self
    }

    pub fn with_ctx(mut self, ctx: CallContext) -> Self {
        self.unix_millis = ctx.unix_millis.to_le_bytes();
        self.entropy = ctx.entropy.to_le_bytes();
        self
    }
}
