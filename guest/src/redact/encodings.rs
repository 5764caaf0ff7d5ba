//! The encoded forms a secret travels in: encoders, so the environment's secrets are found in them too, and
//! decoders, so that text that travels base64-, hex-, percent- or HTML-entity-encoded is scanned as the text
//! it encodes (see `scan::encoded_candidates`). Each decoder reads its input once and allocates its output
//! once: decoding is linear.

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

/// A base64 character's six bits, in either alphabet (`+` and `-` are 62, `/` and `_` 63): a run is decoded
/// the same whichever alphabet wrote it.
fn sextet(b: u8) -> Option<u8> {
    Some(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    })
}

/// The bytes a base64 or base64url run encodes (padding optional; a lone last character, which encodes no
/// whole byte, is dropped), or None if the run holds a character of neither alphabet or a byte `keep` refuses
/// (decoding stops there).
fn decode_base64_keeping(run: &[u8], keep: fn(u8) -> bool) -> Option<Vec<u8>> {
    let run = run
        .strip_suffix(b"==")
        .or_else(|| run.strip_suffix(b"="))
        .unwrap_or(run);
    let mut out = Vec::with_capacity(run.len() / 4 * 3 + 2);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in run {
        acc = acc << 6 | u32::from(sextet(b)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            let byte = (acc >> bits) as u8;
            if !keep(byte) {
                return None;
            }
            out.push(byte);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// The bytes an even-length run of hex digits encodes, or None at a byte `keep` refuses.
fn decode_hex_keeping(run: &[u8], keep: fn(u8) -> bool) -> Option<Vec<u8>> {
    if !run.len().is_multiple_of(2) {
        return None;
    }
    let digit = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(run.len() / 2);
    for pair in run.chunks(2) {
        let byte = digit(pair[0])? << 4 | digit(pair[1])?;
        if !keep(byte) {
            return None;
        }
        out.push(byte);
    }
    Some(out)
}

#[cfg(test)]
fn decode_base64(run: &[u8]) -> Option<Vec<u8>> {
    decode_base64_keeping(run, |_| true)
}

#[cfg(test)]
fn decode_hex(run: &[u8]) -> Option<Vec<u8>> {
    decode_hex_keeping(run, |_| true)
}

/// Whether a decoded byte may be part of text: no control character but tab and line breaks.
fn may_be_text(b: u8) -> bool {
    (b >= 0x20 && b != 0x7f) || matches!(b, b'\t' | b'\n' | b'\r')
}

/// Decoded bytes that read as text: UTF-8, no control character but tab and line breaks, and mostly ASCII
/// (random bytes, a digest's or an image's, fail within the first few).
pub fn as_text(bytes: Vec<u8>) -> Option<String> {
    if !bytes.iter().all(|&b| may_be_text(b)) {
        return None;
    }
    let text = String::from_utf8(bytes).ok()?;
    let (chars, ascii) = text
        .chars()
        .fold((0, 0), |(n, a), c| (n + 1, a + usize::from(c.is_ascii())));
    (ascii * 2 >= chars).then_some(text)
}

/// The text a base64 or base64url run encodes, if it reads as text ([`as_text`]): decoding gives up at the
/// first byte that cannot be text, which for binary is one of the first few.
pub fn decode_base64_text(run: &[u8]) -> Option<String> {
    decode_base64_keeping(run, may_be_text).and_then(as_text)
}

/// The text a hex run encodes, if it reads as text (giving up as [`decode_base64_text`] does).
pub fn decode_hex_text(run: &[u8]) -> Option<String> {
    decode_hex_keeping(run, may_be_text).and_then(as_text)
}

/// HTML's named character references that write the characters of credentials and their separators.
const ENTITIES: [(&str, u8); 16] = [
    ("amp", b'&'),
    ("lt", b'<'),
    ("gt", b'>'),
    ("quot", b'"'),
    ("apos", b'\''),
    ("equals", b'='),
    ("colon", b':'),
    ("sol", b'/'),
    ("num", b'#'),
    ("percnt", b'%'),
    ("commat", b'@'),
    ("lowbar", b'_'),
    ("period", b'.'),
    ("plus", b'+'),
    ("excl", b'!'),
    ("dollar", b'$'),
];

/// One escape at the start of `s`: `%XX`, `&#NN;`, `&#xHH;` or a named reference from [`ENTITIES`]; the
/// character it stands for and its length. A numeric reference to a character beyond ASCII gives its first
/// UTF-8 byte only when it is one byte: others are left as written.
pub fn escape_at(s: &[u8]) -> Option<(u8, usize)> {
    let hex = |b: u8| (b as char).to_digit(16);
    match s.first()? {
        b'%' => {
            let (h, l) = (hex(*s.get(1)?)?, hex(*s.get(2)?)?);
            Some(((h << 4 | l) as u8, 3))
        }
        b'&' => {
            let end = s.iter().take(10).position(|&b| b == b';')?;
            let body = &s[1..end];
            let code = if let Some(num) = body.strip_prefix(b"#") {
                let (digits, radix) = match num.first() {
                    Some(b'x' | b'X') => (&num[1..], 16),
                    _ => (num, 10),
                };
                let text = std::str::from_utf8(digits).ok()?;
                (!text.is_empty())
                    .then(|| u32::from_str_radix(text, radix).ok())
                    .flatten()
                    .filter(|c| (0x20..0x7f).contains(c))? as u8
            } else {
                ENTITIES.iter().find(|(name, _)| name.as_bytes() == body)?.1
            };
            Some((code, end + 1))
        }
        _ => None,
    }
}

/// `text` with its percent escapes and character references decoded, and for every decoded byte where it
/// starts in `text` (plus `text.len()` at the end: a byte's span ends where the next one starts). None when
/// nothing is escaped or the result is not UTF-8.
pub fn decode_escapes(text: &str) -> Option<(String, Vec<usize>)> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut starts = Vec::with_capacity(bytes.len() + 1);
    let mut any = false;
    let mut at = 0;
    while at < bytes.len() {
        match escape_at(&bytes[at..]) {
            Some((b, len)) => {
                out.push(b);
                starts.push(at);
                at += len;
                any = true;
            }
            None => {
                out.push(bytes[at]);
                starts.push(at);
                at += 1;
            }
        }
    }
    starts.push(bytes.len());
    if !any {
        return None;
    }
    Some((String::from_utf8(out).ok()?, starts))
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

    proptest::proptest! {
        /// The decoders invert the encoders (and the base64 crate's encoders, padded or not).
        #[test]
        fn decoding_inverts_encoding(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            use base64::Engine as _;
            for url_safe in [false, true] {
                let encoded = base64(&bytes, url_safe);
                proptest::prop_assert_eq!(decode_base64(encoded.as_bytes()), Some(bytes.clone()));
                let unpadded = encoded.trim_end_matches('=');
                proptest::prop_assert_eq!(decode_base64(unpadded.as_bytes()), Some(bytes.clone()));
            }
            let reference = base64::engine::general_purpose::STANDARD.encode(&bytes);
            proptest::prop_assert_eq!(decode_base64(reference.as_bytes()), Some(bytes.clone()));
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            proptest::prop_assert_eq!(decode_hex(hex.as_bytes()), Some(bytes.clone()));
            proptest::prop_assert_eq!(decode_hex(hex.to_ascii_uppercase().as_bytes()), Some(bytes.clone()));
        }

        /// Percent-encoding and numeric character references decode to the text, each decoded byte mapped to
        /// the escape it came from.
        #[test]
        fn escapes_decode_to_the_text_with_their_places(text in "[ -~]{0,40}") {
            let encoded = percent(&text);
            if let Some((decoded, starts)) = decode_escapes(&encoded) {
                proptest::prop_assert_eq!(&decoded, &text);
                proptest::prop_assert_eq!(starts.len(), decoded.len() + 1);
                for (i, b) in decoded.bytes().enumerate() {
                    let span = &encoded[starts[i]..starts[i + 1]];
                    let want = if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                        (b as char).to_string()
                    } else {
                        format!("%{b:02X}")
                    };
                    proptest::prop_assert_eq!(span, want.as_str());
                }
            } else {
                proptest::prop_assert_eq!(&encoded, &text);
            }
            let entities: String = text.chars().map(|c| format!("&#{};", c as u32)).collect();
            let hex_entities: String = text.chars().map(|c| format!("&#x{:x};", c as u32)).collect();
            for form in [entities, hex_entities] {
                let decoded = decode_escapes(&form).map(|d| d.0);
                proptest::prop_assert_eq!(decoded.as_deref().unwrap_or(""), text.as_str());
            }
        }
    }

    #[test]
    fn text_is_told_from_binary() {
        assert_eq!(
            as_text(b"password=hunter2\n".to_vec()).as_deref(),
            Some("password=hunter2\n")
        );
        assert!(as_text(vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]).is_none());
        assert!(as_text(vec![0xde, 0xad, 0xbe, 0xef]).is_none());
        assert!(as_text("été à Zürich".as_bytes().to_vec()).is_some());
        assert_eq!(
            decode_escapes("pass&#61;x&amp;y%3D"),
            Some((
                "pass=x&y=".to_string(),
                vec![0, 1, 2, 3, 4, 9, 10, 15, 16, 19]
            ))
        );
    }
}
