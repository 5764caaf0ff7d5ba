//! Checks a regex candidate must also pass before it is redacted (checksums, entropy, placeholders).

use super::rules::Validator;

/// Does the candidate `secret` (with the assignment's name, for assignment rules) pass `validator`?
pub fn passes(validator: Validator, name: Option<&str>, secret: &str) -> bool {
    match validator {
        Validator::Assignment => assignment_value_is_secret(name, secret),
        Validator::BasicAuth => basic_auth_is_credential(secret),
        Validator::Luhn => luhn(secret),
        Validator::Iban => iban(secret),
        Validator::PrivateIpv4 => private_ipv4(secret),
        Validator::Entropy => !is_placeholder(secret) && secret.chars().count() >= 20 && shannon_entropy(secret) >= 3.5,
    }
}

/// Placeholder values that mean "no secret here": templates, variable references, masks, literals.
pub fn is_placeholder(value: &str) -> bool {
    let v = value.trim();
    if v.is_empty() {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    const WORDS: [&str; 12] = [
        "null", "none", "nil", "true", "false", "undefined", "redacted", "hidden", "changeme", "placeholder",
        "required", "optional",
    ];
    if WORDS.contains(&lower.as_str()) {
        return true;
    }
    let first = v.chars().next().unwrap_or(' ');
    if v.chars().all(|c| c == first) {
        return true; // "****", "xxxx"
    }
    is_template(v)
        || v.starts_with('<') && v.ends_with('>')
        || v.starts_with("[REDACTED")
        || lower.starts_with("process.env")
        || lower.starts_with("os.environ")
        || lower.starts_with("os.getenv")
        || lower.starts_with("env.")
        || lower.starts_with("secrets.")
}

/// The whole value is made of variable references and templates (`${DB_PASSWORD}`, `$API_KEY`, `%TOKEN%`,
/// `{{ secrets.KEY }}`, or several of them): it names a secret kept elsewhere. A marker inside a value
/// (`pa${ss`, `hunter2{{`) does not make it one.
pub fn is_template(value: &str) -> bool {
    let v = value.trim();
    let is_name = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
    if let Some(name) = v.strip_prefix('$').filter(|n| !n.starts_with('{')) {
        return is_name(name) && !name.as_bytes()[0].is_ascii_digit();
    }
    if let Some(name) = v.strip_prefix('%').and_then(|r| r.strip_suffix('%')) {
        return is_name(name);
    }
    let mut rest = v;
    let mut any = false;
    while !rest.is_empty() {
        let (open, close) = if rest.starts_with("${") {
            ("${", "}")
        } else if rest.starts_with("{{") {
            ("{{", "}}")
        } else {
            return false;
        };
        let Some(end) = rest[open.len()..].find(close) else { return false };
        // What a template holds is a variable's name or a short expression: `${VAR}`, `${VAR:-x}`,
        // `{{ vault.key }}`. Text with line breaks, or (inside `${…}`) spaces, quotes or another `$`, is
        // not one, however it starts and ends (found by cargo-fuzz: a value running from `${` to a `}` at the
        // line's end was taken for a placeholder, then redacted once the secrets inside it were markers).
        let inner = &rest[open.len()..open.len() + end];
        let foreign: &[char] = if open == "${" { &[' ', '\t', '\n', '\r', '"', '\'', '$'] } else { &['\n', '\r'] };
        if inner.contains(foreign) || inner.contains(open) {
            return false;
        }
        rest = rest[open.len() + end + close.len()..].trim_start();
        any = true;
    }
    any
}

/// A value that looks machine-made (a key, a signature), not a word: 16+ characters of two or more classes,
/// not a placeholder.
pub fn machine_made(v: &str) -> bool {
    v.len() >= 16 && char_classes(v) >= 2 && !is_placeholder(v)
}

fn char_classes(v: &str) -> usize {
    let lower = v.bytes().any(|b| b.is_ascii_lowercase());
    let upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let digit = v.bytes().any(|b| b.is_ascii_digit());
    let other = v.bytes().any(|b| !b.is_ascii_alphanumeric());
    [lower, upper, digit, other].iter().filter(|x| **x).count()
}

fn assignment_value_is_secret(name: Option<&str>, value: &str) -> bool {
    // "Bearer ${API_TOKEN}": after an auth scheme, the credential is what follows it. Any other value is
    // judged whole: its last word alone would make `'hunter2 x'` a placeholder ("x", one repeated character)
    // and leave the password in clear (found by cargo-fuzz).
    const SCHEMES: [&str; 6] = ["bearer", "basic", "token", "digest", "negotiate", "apikey"];
    let value = match value.trim().split_once(char::is_whitespace) {
        Some((scheme, rest)) if SCHEMES.iter().any(|s| scheme.eq_ignore_ascii_case(s)) => rest.trim(),
        _ => value,
    };
    if is_placeholder(value) {
        return false;
    }
    let name = name.unwrap_or("").to_ascii_lowercase();
    let password_like = ["password", "passwd", "passphrase", "pwd"].iter().any(|p| name.ends_with(p));
    if password_like {
        return true;
    }
    // Tokens, keys and secrets are machine-made: long and drawn from several character classes.
    // A plain word or number ("token: expired", "key=42") is not one.
    value.len() >= 8 && char_classes(value) >= 2
}

fn basic_auth_is_credential(value: &str) -> bool {
    decodes_with_colon(value.trim_end_matches('='))
}

/// Whether `text` is canonical standard base64 without padding (as the base64 crate's `STANDARD_NO_PAD`
/// decodes it: no stray characters, no length ≡ 1 mod 4, zero trailing bits) whose bytes hold a `:`.
/// Decoded in place, a few lines instead of the crate's generic engine (3.4 KB of the npm module; a test
/// checks the two agree).
fn decodes_with_colon(text: &str) -> bool {
    fn sextet(b: u8) -> Option<u32> {
        Some(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let bytes = text.as_bytes();
    if bytes.len() % 4 == 1 {
        return false;
    }
    let mut colon = false;
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for &b in chunk {
            let Some(v) = sextet(b) else { return false };
            acc = acc << 6 | v;
        }
        // A short last chunk of n sextets carries n*6 bits: (n-1) whole bytes and trailing bits that must be 0.
        let bits = 6 * chunk.len() as u32;
        let whole = bits / 8;
        let spare = bits - whole * 8;
        if acc & ((1 << spare) - 1) != 0 {
            return false;
        }
        let acc = acc >> spare;
        colon |= (0..whole).any(|i| (acc >> (8 * (whole - 1 - i))) & 0xff == u32::from(b':'));
    }
    colon
}

fn luhn(candidate: &str) -> bool {
    let digits: Vec<u32> = candidate.chars().filter_map(|c| c.to_digit(10)).collect();
    if !(13..=19).contains(&digits.len()) || digits.iter().all(|d| *d == digits[0]) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, d)| if i % 2 == 1 { if d * 2 > 9 { d * 2 - 9 } else { d * 2 } } else { *d })
        .sum();
    sum.is_multiple_of(10)
}

/// IBAN lengths by country (ISO 13616 registry, the common ones).
const IBAN_LENGTHS: [(&str, usize); 36] = [
    ("AD", 24), ("AT", 20), ("BE", 16), ("BG", 22), ("CH", 21), ("CY", 28), ("CZ", 24), ("DE", 22), ("DK", 18),
    ("EE", 20), ("ES", 24), ("FI", 18), ("FR", 27), ("GB", 22), ("GR", 27), ("HR", 21), ("HU", 28), ("IE", 22),
    ("IS", 26), ("IT", 27), ("LI", 21), ("LT", 20), ("LU", 20), ("LV", 21), ("MC", 27), ("MT", 31), ("NL", 18),
    ("NO", 15), ("PL", 28), ("PT", 25), ("RO", 24), ("SE", 24), ("SI", 19), ("SK", 24), ("SM", 27), ("TR", 26),
];

fn iban(candidate: &str) -> bool {
    let compact: String = candidate.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_uppercase();
    let Some(expected) = IBAN_LENGTHS.iter().find(|(cc, _)| compact.starts_with(cc)).map(|(_, n)| *n) else {
        return false;
    };
    if compact.len() != expected || !compact.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return false;
    }
    let rearranged = compact[4..].bytes().chain(compact[..4].bytes());
    let mut remainder: u32 = 0;
    for b in rearranged {
        let value = if b.is_ascii_digit() { u32::from(b - b'0') } else { u32::from(b - b'A') + 10 };
        remainder = if value >= 10 { (remainder * 100 + value) % 97 } else { (remainder * 10 + value) % 97 };
    }
    remainder == 1
}

fn private_ipv4(candidate: &str) -> bool {
    let octets: Vec<u32> = candidate.split('.').filter_map(|p| p.parse().ok()).collect();
    if octets.len() != 4 || octets.iter().any(|o| *o > 255) {
        return false;
    }
    matches!(
        (octets[0], octets[1]),
        (10, _) | (172, 16..=31) | (192, 168) | (169, 254) | (100, 64..=127)
    )
}

fn shannon_entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    let mut n = 0u32;
    for b in s.bytes() {
        counts[b as usize] += 1;
        n += 1;
    }
    let n = f64::from(n);
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = f64::from(*c) / n;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hand_written_base64_check_agrees_with_the_base64_crate() {
        use base64::Engine as _;
        let reference = |t: &str| base64::engine::general_purpose::STANDARD_NO_PAD.decode(t).is_ok_and(|b| b.contains(&b':'));
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        // Mostly base64 characters (so that many inputs decode), some strays.
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/6Oo-_ .";
        let mut decoded_with_colon = 0;
        for _ in 0..200_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 24) as usize;
            let t: String = (0..len).map(|i| alphabet[((seed >> (i % 8 * 8)) as usize + i * 7) % alphabet.len()] as char).collect();
            assert_eq!(decodes_with_colon(&t), reference(&t), "{t:?}");
            decoded_with_colon += usize::from(reference(&t));
        }
        assert!(decoded_with_colon > 100, "the generator must reach the interesting case ({decoded_with_colon})");
        for t in ["YWxpY2U6aHVudGVyMg", "YWxpY2U6aHVudGVyMg==", "dXNlcjpwYXNz", "QUJD", "QQ", "QR", "Q"] {
            assert_eq!(decodes_with_colon(t.trim_end_matches('=')), reference(t.trim_end_matches('=')), "{t}");
        }
    }

    #[test]
    fn checksums() {
        assert!(luhn("4111 1111 1111 1111"));
        assert!(!luhn("4111 1111 1111 1112"));
        assert!(iban("GB82 WEST 1234 5698 7654 32"));
        assert!(!iban("GB82 WEST 1234 5698 7654 33"));
        assert!(private_ipv4("10.1.2.3") && private_ipv4("172.20.0.1") && private_ipv4("169.254.0.9"));
        assert!(!private_ipv4("127.0.0.1") && !private_ipv4("8.8.8.8") && !private_ipv4("10.300.1.1"));
        assert!(basic_auth_is_credential("YWxhZGRpbjpvcGVuc2VzYW1l"));
        assert!(!basic_auth_is_credential("authentication"));
    }
}
