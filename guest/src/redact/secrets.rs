//! The caller's environment secrets: the values of secret-looking variables (by name), matched in the forms
//! they travel in, with their matcher built once.

use super::encodings;
use super::ruleset::engine;
use aho_corasick::dfa::DFA;
use aho_corasick::MatchKind;

/// The values of the caller's secret-looking environment variables, with their matcher built once.
#[derive(Default)]
pub struct Secrets {
    count: usize,
    /// Leftmost-longest: a value that contains another secret value is redacted whole.
    pub(super) matcher: Option<DFA>,
}

impl Secrets {
    /// Keeps the variables whose NAME looks secret and whose value is long enough to redact safely.
    pub fn from_env(env: &[(String, String)]) -> Secrets {
        let e = engine();
        let kept: Vec<&str> = env
            .iter()
            .filter(|(name, value)| e.env_name.is_match(name) && value.len() >= e.catalogue.environment.min_value_len)
            .map(|(_, v)| v.as_str())
            .collect();
        // Each value is also matched in the forms it travels in: base64 (standard and URL-safe; a Kubernetes
        // secret, a Basic credential) and percent-encoded (a query string).
        let mut values: Vec<String> = Vec::with_capacity(kept.len() * 4);
        for v in &kept {
            values.push(v.to_string());
            for form in [encodings::base64(v.as_bytes(), false), encodings::base64(v.as_bytes(), true), encodings::percent(v)] {
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
        Secrets { count: kept.len(), matcher }
    }

    pub fn none() -> &'static Secrets {
        static NONE: Secrets = Secrets { count: 0, matcher: None };
        &NONE
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

