//! The redactor: applies the rule catalogue (`redaction/rules.toml`) and caller-supplied environment values.
//!
//! Design: one ASCII-case-insensitive Aho-Corasick automaton over every rule's keywords decides which rules can
//! possibly match; only those rules' regexes run. The regex crate has no SIMD literal search inside wasm, so the
//! prefilter — one linear pass — is what keeps the common case (no secret at all) cheap. Regexes compile lazily,
//! on the first input that triggers their rule, so a fresh instance starts fast.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

const RULES_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/redaction_rules.json"));

/// The rule id used for caller-supplied environment values.
pub const ENV_RULE: &str = "env-value";
pub const ENV_CATEGORY: &str = "environment";

#[derive(Debug, Deserialize)]
pub struct Catalogue {
    pub allowlist: Allowlist,
    pub environment: EnvironmentPolicy,
    #[serde(rename = "rule")]
    pub rules: Vec<Rule>,
}

#[derive(Debug, Deserialize)]
pub struct Allowlist {
    pub values: Vec<String>,
    pub markers: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct EnvironmentPolicy {
    pub name_pattern: String,
    pub min_value_len: usize,
}

#[derive(Debug, Deserialize)]
pub struct Rule {
    pub id: String,
    pub category: String,
    pub description: String,
    #[serde(default)]
    pub keywords: Vec<String>,
    pub pattern: String,
    #[serde(default)]
    pub secret_groups: Vec<usize>,
    #[serde(default)]
    pub validator: Option<Validator>,
    #[serde(default)]
    pub examples: Vec<String>,
    #[serde(default)]
    pub negative_examples: Vec<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Validator {
    /// The value of a `name = value` assignment: not a placeholder, template or variable reference; for
    /// non-password names also long and varied enough to be a credential rather than a word.
    Assignment,
    /// A Basic credential: base64 that decodes to `user:password`.
    BasicAuth,
}

/// One redacted span. Offsets are byte offsets into the input; the secret itself is never kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: String,
    pub category: String,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redacted {
    pub text: String,
    pub findings: Vec<Finding>,
}

struct Engine {
    catalogue: Catalogue,
    regexes: Vec<OnceLock<Regex>>,
    prefilter: AhoCorasick,
    /// keyword pattern index → rule index
    keyword_rule: Vec<usize>,
    /// rules with no keyword: always run
    unconditional: Vec<usize>,
    env_name: Regex,
}

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let catalogue: Catalogue =
            serde_json::from_str(RULES_JSON).expect("redaction/rules.toml matches the Catalogue schema");
        let mut keywords = Vec::new();
        let mut keyword_rule = Vec::new();
        let mut unconditional = Vec::new();
        for (i, rule) in catalogue.rules.iter().enumerate() {
            if rule.keywords.is_empty() {
                unconditional.push(i);
            }
            for k in &rule.keywords {
                keywords.push(k.as_str());
                keyword_rule.push(i);
            }
        }
        let prefilter = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&keywords)
            .expect("keywords build an automaton");
        let env_name = Regex::new(&catalogue.environment.name_pattern).expect("environment.name_pattern compiles");
        let regexes = catalogue.rules.iter().map(|_| OnceLock::new()).collect();
        Engine { catalogue, regexes, prefilter, keyword_rule, unconditional, env_name }
    })
}

impl Engine {
    fn regex(&self, i: usize) -> &Regex {
        self.regexes[i].get_or_init(|| {
            // Every pattern is compiled by the catalogue test on the native build before anything ships.
            Regex::new(&self.catalogue.rules[i].pattern).expect("rule pattern compiles")
        })
    }

    fn triggered_rules(&self, text: &str) -> Vec<bool> {
        let mut hit = vec![false; self.catalogue.rules.len()];
        for &i in &self.unconditional {
            hit[i] = true;
        }
        let mut remaining = hit.iter().filter(|h| !**h).count();
        for m in self.prefilter.find_overlapping_iter(text) {
            let rule = self.keyword_rule[m.pattern().as_usize()];
            if !hit[rule] {
                hit[rule] = true;
                remaining -= 1;
                if remaining == 0 {
                    break;
                }
            }
        }
        hit
    }

    fn allowlisted(&self, secret: &str) -> bool {
        let allow = &self.catalogue.allowlist;
        allow.values.iter().any(|v| v == secret)
            || (!secret.contains(char::is_whitespace) && allow.markers.iter().any(|m| secret.contains(m.as_str())))
    }
}

/// Placeholder values that mean "no secret here": templates, variable references, masks, literals.
fn is_placeholder(value: &str) -> bool {
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
    v.starts_with('$')
        || v.starts_with('%') && v.ends_with('%')
        || v.starts_with('<') && v.ends_with('>')
        || v.starts_with("{{")
        || v.starts_with("[REDACTED")
        || lower.starts_with("process.env")
        || lower.starts_with("os.environ")
        || lower.starts_with("os.getenv")
        || lower.starts_with("env.")
        || lower.starts_with("secrets.")
}

fn char_classes(v: &str) -> usize {
    let lower = v.bytes().any(|b| b.is_ascii_lowercase());
    let upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let digit = v.bytes().any(|b| b.is_ascii_digit());
    let other = v.bytes().any(|b| !b.is_ascii_alphanumeric());
    [lower, upper, digit, other].iter().filter(|x| **x).count()
}

fn assignment_value_is_secret(name: Option<&str>, value: &str) -> bool {
    // "Bearer ${API_TOKEN}": the credential is the last word, after any auth scheme.
    let value = value.rsplit(char::is_whitespace).next().unwrap_or(value);
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
    decode_base64(value).is_some_and(|bytes| bytes.contains(&b':'))
}

fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in s.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

struct Candidate {
    start: usize,
    end: usize,
    priority: usize,
    rule: String,
    category: String,
}

/// Which of these environment variables look secret (by name) and are long enough to redact safely.
pub fn secret_env_values(env: &[(String, String)]) -> Vec<(String, String)> {
    let e = engine();
    env.iter()
        .filter(|(name, value)| e.env_name.is_match(name) && value.len() >= e.catalogue.environment.min_value_len)
        .cloned()
        .collect()
}

/// Redacts `text`: every catalogue rule, plus the values of the secret-looking variables in `env`.
pub fn redact(text: &str, env: &[(String, String)]) -> Redacted {
    let e = engine();
    let mut candidates = Vec::new();
    let hit = e.triggered_rules(text);
    for (i, rule) in e.catalogue.rules.iter().enumerate() {
        if !hit[i] {
            continue;
        }
        for caps in e.regex(i).captures_iter(text) {
            let whole = caps.get(0).expect("group 0 always participates");
            let secret = if rule.secret_groups.is_empty() {
                Some(whole)
            } else {
                rule.secret_groups.iter().find_map(|g| caps.get(*g))
            };
            let Some(secret) = secret else { continue };
            if secret.as_str().is_empty() || e.allowlisted(secret.as_str()) {
                continue;
            }
            let valid = match rule.validator {
                None => true,
                Some(Validator::Assignment) => {
                    assignment_value_is_secret(caps.get(1).map(|m| m.as_str()), secret.as_str())
                }
                Some(Validator::BasicAuth) => basic_auth_is_credential(secret.as_str()),
            };
            if valid {
                candidates.push(Candidate {
                    start: secret.start(),
                    end: secret.end(),
                    priority: i,
                    rule: rule.id.clone(),
                    category: rule.category.clone(),
                });
            }
        }
    }
    let secrets = secret_env_values(env);
    if !secrets.is_empty() {
        let values: Vec<&str> = secrets.iter().map(|(_, v)| v.as_str()).collect();
        // Leftmost-longest: a value that contains another secret value is redacted whole.
        if let Ok(ac) = AhoCorasickBuilder::new().match_kind(MatchKind::LeftmostLongest).build(&values) {
            for m in ac.find_iter(text) {
                candidates.push(Candidate {
                    start: m.start(),
                    end: m.end(),
                    priority: usize::MAX,
                    rule: ENV_RULE.to_string(),
                    category: ENV_CATEGORY.to_string(),
                });
            }
        }
    }
    apply(text, candidates)
}

/// Resolves overlaps (earliest start, then catalogue order, then longest) and writes the placeholders.
fn apply(text: &str, mut candidates: Vec<Candidate>) -> Redacted {
    candidates.sort_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(a.priority.cmp(&b.priority))
            .then(b.end.cmp(&a.end))
    });
    let mut out = String::with_capacity(text.len());
    let mut findings: Vec<Finding> = Vec::new();
    let mut cursor = 0;
    let mut cursor_priority = usize::MAX;
    for c in candidates {
        if c.start < cursor {
            // Overlaps a span already redacted. A rule listed earlier (more specific) that reaches further
            // extends the span, so no tail of its secret leaks; a later, looser rule (an assignment value
            // running into a URL's host, an e-mail-shaped userinfo) is dropped, so the host and path survive.
            if c.end > cursor && c.priority < cursor_priority {
                if let Some(last) = findings.last_mut() {
                    last.end = c.end;
                }
                cursor = c.end;
                cursor_priority = c.priority;
            }
            continue;
        }
        cursor_priority = c.priority;
        out.push_str(&text[cursor..c.start]);
        out.push_str("[REDACTED:");
        out.push_str(&c.rule);
        out.push(']');
        cursor = c.end;
        findings.push(Finding { rule: c.rule, category: c.category, start: c.start, end: c.end });
    }
    out.push_str(&text[cursor..]);
    Redacted { text: out, findings }
}

/// The catalogue, for docs and the catalogue test.
pub fn catalogue() -> &'static Catalogue {
    &engine().catalogue
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles_and_its_examples_hold() {
        let cat = catalogue();
        let mut failures = Vec::new();
        for rule in &cat.rules {
            assert!(rule.examples.len() >= 2, "{} needs two examples", rule.id);
            assert!(rule.negative_examples.len() >= 2, "{} needs two negative examples", rule.id);
            Regex::new(&rule.pattern).unwrap_or_else(|e| panic!("{}: {e}", rule.id));
            for ex in &rule.examples {
                let r = redact(ex, &[]);
                if !r.findings.iter().any(|f| f.rule == rule.id) {
                    failures.push(format!("{}: missed {ex:?} -> {:?}", rule.id, r.text));
                }
            }
            for ex in &rule.negative_examples {
                let r = redact(ex, &[]);
                if r.text != *ex {
                    failures.push(format!("{}: changed {ex:?} -> {:?}", rule.id, r.text));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn env_values_are_redacted_only_for_secret_looking_names() {
        let env = vec![
            ("GITHUB_TOKEN".to_string(), "s3cr3t-value-123".to_string()),
            ("HOME".to_string(), "/home/alice".to_string()),
            ("API_KEY".to_string(), "short".to_string()),
        ];
        let r = redact("got s3cr3t-value-123 at short", &env);
        assert_eq!(r.text, "got [REDACTED:env-value] at short");
        assert_eq!(r.findings[0].start, 4);
    }

    #[test]
    fn ordinary_text_is_untouched() {
        for text in [
            "request 123e4567-e89b-12d3-a456-426614174000 failed",
            "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "version 1.2.3-beta.4+build.5",
            "the key_count and token_budget were exceeded",
            "set $GITHUB_TOKEN and ${AWS_SECRET_ACCESS_KEY}",
        ] {
            assert_eq!(redact(text, &[]).text, text);
        }
    }

    #[test]
    fn looser_overlapping_rules_do_not_swallow_hosts() {
        let r = redact("clone https://x-access-token:ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d@github.com/acme/infra.git", &[]);
        assert_eq!(r.text, "clone https://[REDACTED:url-credentials]@github.com/acme/infra.git");
        let r = redact("db postgres://app:s3cr3t-Pa55@db.internal:5432/app", &[]);
        assert_eq!(r.text, "db postgres://[REDACTED:url-credentials]@db.internal:5432/app");
    }

    #[test]
    fn overlapping_matches_do_not_leak_a_tail() {
        let r = redact("token=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d", &[]);
        assert_eq!(r.text, "token=[REDACTED:github-token]");
    }
}
