//! What a caller may change about redaction: the method, which rules and categories run, extra rules, an
//! allowlist and allow patterns. Options arrive as JSON (`redaction-options` in the WIT, read by the generated
//! `options.rs`) and are validated here; a bad option is a clear error, never a panic.

pub use super::options::RedactionOptions;
use super::rules::WindowKind;
use super::ruleset::{anchored_pattern, RuleSet};
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Caller-supplied rules are bounded so no input can make the guest compile something huge.
pub const MAX_EXTRA_RULES: usize = 64;
pub const MAX_PATTERN_LEN: usize = 2048;
const REGEX_SIZE_LIMIT: usize = 256 * 1024;
const REGEX_NEST_LIMIT: u32 = 64;

/// How a found secret is replaced: `redaction-method` in the WIT (generated).
pub use super::options::RedactionMethod as Method;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OptionsError {
    #[error("redaction options are not valid: {0}")]
    Invalid(String),
    #[error("method \"hash\" needs a \"hash_key\" of at least 16 bytes")]
    MissingHashKey,
    #[error("at most {MAX_EXTRA_RULES} extra rules are allowed")]
    TooManyRules,
    #[error("extra rule '{0}': the id must be kebab-case ASCII ([a-z0-9-], 1 to 64 characters)")]
    BadRuleId(String),
    #[error("extra rule '{id}': pattern longer than {MAX_PATTERN_LEN} characters")]
    PatternTooLong { id: String },
    #[error("extra rule '{id}': pattern does not compile: {message}")]
    BadPattern { id: String, message: String },
    #[error("extra rule '{id}': secret group {group} does not exist in the pattern")]
    BadGroup { id: String, group: usize },
    #[error(
        "extra rule '{id}': a keyword must not be empty (a rule that needs no keyword lists none)"
    )]
    EmptyKeyword { id: String },
    #[error("allow pattern {index} does not compile: {message}")]
    BadAllowPattern { index: usize, message: String },
}

#[derive(Default)]
pub struct Redactor {
    pub method: Method,
    hash_key: Vec<u8>,
    /// How `Method::Hash` tags a secret: set by [`Redactor::from_options`], the only way to choose that method.
    tagger: Option<fn(&[u8], &str) -> String>,
    pub disabled: Vec<String>,
    pub extra: Option<RuleSet>,
    pub allowlist: Vec<String>,
    /// Values matching one of these (anchored at both ends) are never redacted.
    pub allow_patterns: Vec<regex_lite::Regex>,
    pub sensitive_keys: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the hash key; the extra rules by count.
        f.debug_struct("Redactor")
            .field("method", &self.method)
            .field("disabled", &self.disabled)
            .field(
                "extra_rules",
                &self.extra.as_ref().map_or(0, |r| r.rules.len()),
            )
            .field("allowlist", &self.allowlist.len())
            .field("allow_patterns", &self.allow_patterns.len())
            .finish()
    }
}

fn valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

impl Redactor {
    /// Parses and validates options JSON (`{}` or empty text = the defaults).
    pub fn from_json(text: &str) -> Result<Redactor, OptionsError> {
        let options: RedactionOptions = if text.trim().is_empty() {
            RedactionOptions::default()
        } else {
            serde_json::from_str(text).map_err(|e| OptionsError::Invalid(e.to_string()))?
        };
        Redactor::from_options(options)
    }

    /// Validates typed options (a policy file's, which never pass through JSON) and compiles their rules and
    /// patterns, each once.
    pub fn from_options(options: RedactionOptions) -> Result<Redactor, OptionsError> {
        if options.method == Method::Hash && options.hash_key.as_ref().is_none_or(|k| k.len() < 16)
        {
            return Err(OptionsError::MissingHashKey);
        }
        if options.extra_rules.len() > MAX_EXTRA_RULES {
            return Err(OptionsError::TooManyRules);
        }
        let mut regexes = Vec::with_capacity(options.extra_rules.len());
        for rule in &options.extra_rules {
            if !valid_id(&rule.id) || !valid_id(&rule.category) {
                return Err(OptionsError::BadRuleId(rule.id.chars().take(64).collect()));
            }
            // An empty keyword would be found between every two bytes, inside characters too.
            if rule.keywords.iter().any(String::is_empty) {
                return Err(OptionsError::EmptyKeyword {
                    id: rule.id.clone(),
                });
            }
            if rule.pattern.len() > MAX_PATTERN_LEN {
                return Err(OptionsError::PatternTooLong {
                    id: rule.id.clone(),
                });
            }
            let compile = |pattern: &str, wrapped: u32| {
                regex_lite::RegexBuilder::new(pattern)
                    .size_limit(REGEX_SIZE_LIMIT + 1024 * wrapped as usize)
                    .nest_limit(REGEX_NEST_LIMIT + wrapped)
                    .build()
                    .map_err(|e| OptionsError::BadPattern {
                        id: rule.id.clone(),
                        message: e.to_string(),
                    })
            };
            let regex = compile(&rule.pattern, 0)?;
            if let Some(g) = rule
                .secret_groups
                .iter()
                .find(|g| **g >= regex.captures_len())
            {
                return Err(OptionsError::BadGroup {
                    id: rule.id.clone(),
                    group: *g,
                });
            }
            // Every regex the rule will run is compiled now, under the same limits (plus the wrapper's own
            // group and prefix): an assignment window's anchored form was compiled on first use with
            // regex-lite's defaults, whose nesting limit is lower, and a pattern nested 51 deep panicked
            // there (found by cargo-fuzz).
            let anchored = if rule.window == WindowKind::Assignment {
                Some(compile(&anchored_pattern(&rule.pattern), 1)?)
            } else {
                None
            };
            regexes.push((regex, anchored));
        }
        let extra = (!options.extra_rules.is_empty())
            .then(|| RuleSet::with_regexes(options.extra_rules, regexes));
        if options.allow_patterns.len() > MAX_EXTRA_RULES {
            return Err(OptionsError::TooManyRules);
        }
        let mut allow_patterns = Vec::with_capacity(options.allow_patterns.len());
        for (index, pattern) in options.allow_patterns.iter().enumerate() {
            if pattern.len() > MAX_PATTERN_LEN {
                return Err(OptionsError::BadAllowPattern {
                    index,
                    message: format!("longer than {MAX_PATTERN_LEN} characters"),
                });
            }
            let compiled = regex_lite::RegexBuilder::new(&format!("^(?:{pattern})$"))
                .size_limit(REGEX_SIZE_LIMIT)
                .nest_limit(REGEX_NEST_LIMIT)
                .build()
                .map_err(|e| OptionsError::BadAllowPattern {
                    index,
                    message: e.to_string(),
                })?;
            allow_patterns.push(compiled);
        }
        Ok(Redactor {
            method: options.method,
            hash_key: options.hash_key.map(String::into_bytes).unwrap_or_default(),
            tagger: Some(hmac_tag),
            disabled: options.disable,
            extra,
            allowlist: options.allowlist,
            allow_patterns,
            sensitive_keys: options.sensitive_keys,
        })
    }

    /// The defaults with some rules or categories switched off.
    pub fn disabling(names: &[&str]) -> Redactor {
        Redactor {
            disabled: names.iter().map(|n| n.to_string()).collect(),
            ..Redactor::default()
        }
    }

    /// Whether `value` is allowed by value or by pattern (never redacted).
    pub fn allows(&self, value: &str) -> bool {
        self.allowlist.iter().any(|a| a == value)
            || self.allow_patterns.iter().any(|p| p.is_match(value))
    }

    pub fn enabled(&self, rule: &str, category: &str) -> bool {
        !self.disabled.iter().any(|d| d == rule || d == category)
    }

    /// What replaces `secret`, found by `rule`.
    pub fn replacement(&self, rule: &str, secret: &str) -> String {
        let mut out = String::new();
        self.write_replacement(&mut out, rule, secret);
        out
    }

    /// [`Redactor::replacement`] written at the end of `out`: redacting a text writes each marker in place
    /// (a `format!` per finding was 3% of redaction time on a secret-dense log).
    pub fn write_replacement(&self, out: &mut String, rule: &str, secret: &str) {
        match self.method {
            Method::Mask => out.push_str(&"*".repeat(secret.chars().count())),
            Method::Remove => {}
            Method::Replace | Method::Hash => {
                out.push_str("[REDACTED:");
                out.push_str(rule);
                if let (Method::Hash, Some(tag)) = (self.method, self.tagger) {
                    out.push(':');
                    out.push_str(&tag(&self.hash_key, secret));
                }
                out.push(']');
            }
        }
    }

    /// The markers as they were written before [`Redactor::write_replacement`]: the property test's reference.
    #[cfg(test)]
    fn replacement_formatted(&self, rule: &str, secret: &str) -> String {
        match self.method {
            Method::Replace => format!("[REDACTED:{rule}]"),
            Method::Mask => "*".repeat(secret.chars().count()),
            Method::Remove => String::new(),
            Method::Hash => match self.tagger {
                Some(tag) => format!("[REDACTED:{rule}:{}]", tag(&self.hash_key, secret)),
                None => format!("[REDACTED:{rule}]"),
            },
        }
    }
}

/// The first 6 bytes of HMAC-SHA256(key, secret) in hex. Reached only through a Redactor that `from_options` made,
/// so a build that never parses options (the npm base module) links no SHA-256 (4.6 KB of code).
fn hmac_tag(key: &[u8], secret: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(secret.as_bytes());
    let digest = mac.finalize().into_bytes();
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The markers written in place are the ones `format!` wrote, for every method (a hashing Redactor with and
        /// without its tagger), rule name and secret.
        #[test]
        fn markers_written_in_place_are_the_formatted_ones(
            method in proptest::sample::select(vec![Method::Replace, Method::Mask, Method::Remove, Method::Hash]),
            tagged in proptest::bool::ANY,
            rule in "[a-z0-9-]{0,12}",
            secret in "\\PC{0,12}",
            before in "\\PC{0,4}",
        ) {
            let redactor = Redactor {
                method,
                hash_key: b"0123456789abcdef".to_vec(),
                tagger: tagged.then_some(hmac_tag as fn(&[u8], &str) -> String),
                ..Redactor::default()
            };
            let mut out = before.clone();
            redactor.write_replacement(&mut out, &rule, &secret);
            proptest::prop_assert_eq!(out, before + &redactor.replacement_formatted(&rule, &secret));
        }
    }
}
