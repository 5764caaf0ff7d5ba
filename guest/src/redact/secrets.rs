//! The caller's environment secrets: the values of secret-looking variables (by name), matched in the forms
//! they travel in, with their matcher built once.

use super::encodings;
use super::engine::engine;
use super::validators;
use aho_corasick::dfa::DFA;
use aho_corasick::MatchKind;

/// The values of the caller's secret-looking environment variables, with their matcher built once.
#[derive(Default)]
pub struct Secrets {
    count: usize,
    /// The values kept, as given (their encoded forms are only in the matcher).
    kept: Vec<String>,
    /// Leftmost-longest: a value that contains another secret value is redacted whole.
    pub(super) matcher: Option<DFA>,
}

impl Secrets {
    /// Keeps the variables whose NAME looks secret and whose value could be a secret (see
    /// [`could_be_secret`]): the value is then redacted wherever it appears, so an ordinary one
    /// (`PGPASSWORD=postgres`, `REDIS_PASSWORD=localhost`) would take that word out of every message.
    pub fn from_env(env: &[(String, String)]) -> Secrets {
        Secrets::from_env_and_values(env, &[])
    }

    /// The secret-looking variables among `env` (as [`Secrets::from_env`] keeps them) and `values`, whatever
    /// they are named (credentials a shell knows it sends): each kept if it could be a secret.
    pub fn from_env_and_values(env: &[(String, String)], values: &[String]) -> Secrets {
        let e = engine();
        let named = env
            .iter()
            .filter(|(name, _)| e.env_name.is_match(name))
            .map(|(_, v)| v.trim());
        Secrets::of(named.chain(values.iter().map(|v| v.trim())))
    }

    /// These secrets and `values` too (each kept if it could be a secret).
    pub fn with_values(&self, values: &[String]) -> Secrets {
        Secrets::of(self.kept.iter().chain(values).map(|v| v.trim()))
    }

    fn of<'a>(candidates: impl Iterator<Item = &'a str>) -> Secrets {
        let min_len = engine().catalogue.environment.min_value_len;
        let mut kept: Vec<String> = Vec::new();
        for v in candidates {
            if could_be_secret(v, min_len) {
                kept.push(v.to_string());
            }
        }
        // Each value is also matched in the forms it travels in: base64 (standard and URL-safe; a Kubernetes
        // secret, a Basic credential) and percent-encoded (a query string).
        let mut values: Vec<String> = Vec::with_capacity(kept.len() * 4);
        for v in &kept {
            values.push(v.to_string());
            for form in [
                encodings::base64(v.as_bytes(), false),
                encodings::base64(v.as_bytes(), true),
                encodings::percent(v),
            ] {
                if !values.contains(&form) {
                    values.push(form);
                }
            }
        }
        let matcher = (!values.is_empty())
            .then(|| {
                DFA::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&values)
                    .ok()
            })
            .flatten();
        Secrets {
            count: kept.len(),
            kept,
            matcher,
        }
    }

    pub fn none() -> &'static Secrets {
        static NONE: Secrets = Secrets {
            count: 0,
            kept: Vec::new(),
            matcher: None,
        };
        &NONE
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// Whether an environment value could be a secret: long enough (`min_len`), not a placeholder, and not
/// something every log says anyway: a word (`postgres`, `development`), a host name or address
/// (`localhost`, `db.internal:5432`, `10.0.0.5`), a number, a path, or text of too little variety to be
/// chosen (`aaaaaaaa1`).
pub fn could_be_secret(value: &str, min_len: usize) -> bool {
    let v = value.trim();
    if v.len() < min_len || validators::is_placeholder(v) {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    // A word: letters only, in one case or capitalised, short enough to be one (a passphrase of several is
    // longer, or spaced).
    let letters = v.bytes().all(|b| b.is_ascii_alphabetic());
    if letters
        && v.len() < 16
        && (v[1..].bytes().all(|b| b.is_ascii_lowercase())
            || v.bytes().all(|b| b.is_ascii_uppercase()))
    {
        return false;
    }
    // A host (name or address, with a port): labels of letters, digits and `-`, split by dots.
    let host = lower.split_once(':').map_or(lower.as_str(), |(h, port)| {
        if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) {
            h
        } else {
            ""
        }
    });
    let labels: Vec<&str> = host.split('.').collect();
    let is_host = !host.is_empty()
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
        && (labels.len() >= 2 || host == "localhost")
        && labels
            .last()
            .is_some_and(|l| l.bytes().any(|b| b.is_ascii_lowercase()) || labels.len() == 4);
    if is_host || v.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return false;
    }
    // A path (no spaces; a passphrase may start with a slash).
    if (v.starts_with('/')
        || v.starts_with("./")
        || v.starts_with("~/")
        || v.as_bytes().get(1..3) == Some(&b":\\"[..]))
        && !v.contains(' ')
    {
        return false;
    }
    validators::shannon_entropy(v) >= 2.5
}
