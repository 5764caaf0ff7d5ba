//! What the guest cannot know by itself (it imports nothing, so it has no clock and no randomness):
//! the caller passes the current time and a random number, and the guest formats them.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

#[derive(Debug, Clone, Copy, Default)]
pub struct CallContext {
    pub unix_millis: u64,
    pub entropy: u64,
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl CallContext {
    /// A UUIDv4-formatted correlation id drawn from the caller's entropy.
    pub fn correlation_id(&self) -> String {
        let mut state = self.entropy;
        let hi = splitmix64(&mut state);
        let lo = splitmix64(&mut state);
        let hi = (hi & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000; // version 4
        let lo = (lo & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000; // RFC 4122 variant
        // 8-4-4-4-12 hex digits; written directly (this runs on every mapped error, `format!` costs more).
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 36];
        let mut at = 0;
        for (i, nibble) in (0..32).map(|i| if i < 16 { (hi >> (60 - 4 * i)) & 0xF } else { (lo >> (60 - 4 * (i - 16))) & 0xF }).enumerate() {
            if matches!(i, 8 | 12 | 16 | 20) {
                out[at] = b'-';
                at += 1;
            }
            out[at] = HEX[nibble as usize];
            at += 1;
        }
        out.iter().map(|&b| b as char).collect()
    }

    /// RFC 3339 UTC timestamp with second precision ("YYYY-MM-DDTHH:MM:SSZ"), Watchgate's format.
    pub fn timestamp(&self) -> String {
        let secs = (self.unix_millis / 1000) as i64;
        OffsetDateTime::from_unix_timestamp(secs)
            .ok()
            .and_then(|t| t.format(&Rfc3339).ok())
            .unwrap_or_else(|| "1970-01-01T00:00:00Z".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correlation_ids_are_uuid_v4_shaped_and_vary() {
        let a = CallContext { unix_millis: 0, entropy: 1 }.correlation_id();
        let b = CallContext { unix_millis: 0, entropy: 2 }.correlation_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
    }

    #[test]
    fn timestamp_is_rfc3339_utc() {
        let c = CallContext { unix_millis: 1_700_000_000_123, entropy: 0 };
        assert_eq!(c.timestamp(), "2023-11-14T22:13:20Z");
    }
}
