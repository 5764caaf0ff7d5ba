//! What the guest cannot know by itself (it imports nothing, so it has no clock and no randomness):
//! the caller passes the current time and a random number, and the guest formats them.

use std::fmt::Write;

#[derive(Debug, Clone, Copy, Default)]
pub struct CallContext {
    pub unix_millis: u64,
    pub entropy: u64,
}

/// SplitMix64: the next value of a sequence seeded by `state` (advanced).
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
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
        for (i, nibble) in (0..32)
            .map(|i| {
                if i < 16 {
                    (hi >> (60 - 4 * i)) & 0xF
                } else {
                    (lo >> (60 - 4 * (i - 16))) & 0xF
                }
            })
            .enumerate()
        {
            if matches!(i, 8 | 12 | 16 | 20) {
                out[at] = b'-';
                at += 1;
            }
            out[at] = HEX[nibble as usize];
            at += 1;
        }
        out.iter().map(|&b| b as char).collect()
    }

    /// The context for the `n`th of several errors answered in one call: the same clock, and entropy drawn
    /// from the caller's so that each gets its own correlation id (`n = 0` is the context itself).
    pub fn nth(&self, n: u64) -> CallContext {
        if n == 0 {
            return *self;
        }
        let mut state = self.entropy ^ n.wrapping_mul(0xA076_1D64_78BD_642F);
        CallContext {
            unix_millis: self.unix_millis,
            entropy: splitmix64(&mut state),
        }
    }

    /// The context for the `k`th of several lines taken in one call (`lines-outcome`): the same clock, and
    /// entropy drawn from the caller's apart from [`CallContext::nth`]'s, so that each line's answers get
    /// correlation ids (and upstream names) of their own, as lines taken one call each do (`k = 0` is the
    /// context itself).
    pub fn line(&self, k: u64) -> CallContext {
        if k == 0 {
            return *self;
        }
        let mut state =
            self.entropy ^ k.wrapping_mul(0xE703_7ED1_A0B4_28DB) ^ 0x8EBC_6AF0_9C88_C6E3;
        CallContext {
            unix_millis: self.unix_millis,
            entropy: splitmix64(&mut state),
        }
    }

    /// RFC 3339 UTC timestamp with second precision ("YYYY-MM-DDTHH:MM:SSZ"), Watchgate's format.
    /// Past year 9999, which RFC 3339 cannot write, it is the epoch.
    pub fn timestamp(&self) -> String {
        let secs = self.unix_millis / 1000;
        if secs > LAST_RFC3339_SECOND {
            return "1970-01-01T00:00:00Z".to_string();
        }
        let (year, month, day) = civil_from_days(secs / 86_400);
        let second_of_day = secs % 86_400;
        let (hour, minute, second) = (
            second_of_day / 3600,
            second_of_day / 60 % 60,
            second_of_day % 60,
        );
        let mut out = String::with_capacity(20);
        let _ = write!(
            out,
            "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z"
        );
        out
    }
}

/// 9999-12-31T23:59:59Z.
const LAST_RFC3339_SECOND: u64 = 253_402_300_799;

/// The proleptic Gregorian (year, month, day) of a day count since 1970-01-01, by Howard Hinnant's
/// `civil_from_days` (eras of 400 years starting on March 1st, so the leap day ends a year). A few lines
/// here instead of the `time` crate, which cost the npm wasm 2.3 KB for this one conversion. Unsigned:
/// the caller's clock is a u64, so there are no days before 1970.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correlation_ids_are_uuid_v4_shaped_and_vary() {
        let a = CallContext {
            unix_millis: 0,
            entropy: 1,
        }
        .correlation_id();
        let b = CallContext {
            unix_millis: 0,
            entropy: 2,
        }
        .correlation_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
    }

    #[test]
    fn timestamp_is_rfc3339_utc() {
        let c = CallContext {
            unix_millis: 1_700_000_000_123,
            entropy: 0,
        };
        assert_eq!(c.timestamp(), "2023-11-14T22:13:20Z");
    }

    fn at(unix_seconds: u64) -> String {
        CallContext {
            unix_millis: unix_seconds * 1000,
            entropy: 0,
        }
        .timestamp()
    }

    #[test]
    fn timestamp_handles_leap_days_and_century_years() {
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(1_709_208_000), "2024-02-29T12:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(4_107_542_399), "2100-02-28T23:59:59Z");
        assert_eq!(at(4_107_542_400), "2100-03-01T00:00:00Z");
    }

    #[test]
    fn timestamp_past_year_9999_is_the_epoch() {
        assert_eq!(at(LAST_RFC3339_SECOND), "9999-12-31T23:59:59Z");
        assert_eq!(at(LAST_RFC3339_SECOND + 1), "1970-01-01T00:00:00Z");
        assert_eq!(
            CallContext {
                unix_millis: u64::MAX,
                entropy: 0
            }
            .timestamp(),
            "1970-01-01T00:00:00Z"
        );
    }

    /// The `time` crate (a dev-dependency) formatted these before; the two must agree everywhere.
    #[test]
    fn timestamp_matches_the_time_crate() {
        use time::format_description::well_known::Rfc3339;
        let reference = |secs: u64| {
            time::OffsetDateTime::from_unix_timestamp(secs as i64)
                .ok()
                .and_then(|t| t.format(&Rfc3339).ok())
                .unwrap_or_else(|| "1970-01-01T00:00:00Z".to_string())
        };
        let mut secs = 0u64;
        while secs <= LAST_RFC3339_SECOND + 86_400 * 800 {
            assert_eq!(at(secs), reference(secs), "{secs}");
            secs += 86_399 * 7 + 12_345; // walks through every month, weekday and time of day
        }
    }
}
