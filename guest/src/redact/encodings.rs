//! The encoded forms a secret value travels in, so the environment's secrets are found in them too.

/// Base64 with padding (`url_safe`: the `-`/`_` alphabet).
pub fn base64(bytes: &[u8], url_safe: bool) -> String {
    let alphabet: &[u8; 64] = if url_safe {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(alphabet[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Percent-encoding of everything but RFC 3986's unreserved characters (as `encodeURIComponent` does, bar
/// its few extra marks).
pub fn percent(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_match_the_reference_implementations() {
        use base64::Engine as _;
        for text in ["", "a", "ab", "abc", "hunter2-hunter2", "p@ss word/+?=é"] {
            assert_eq!(
                base64(text.as_bytes(), false),
                base64::engine::general_purpose::STANDARD.encode(text)
            );
            assert_eq!(
                base64(text.as_bytes(), true),
                base64::engine::general_purpose::URL_SAFE.encode(text)
            );
        }
        assert_eq!(percent("p@ss word/+?=é"), "p%40ss%20word%2F%2B%3F%3D%C3%A9");
    }
}
