//! Rule types and the built-in catalogue (`redaction/rules.toml`).

use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug)]
pub struct Catalogue {
    pub allowlist: Allowlist,
    pub environment: EnvironmentSecrets,
    pub json: JsonKeys,
    pub rules: Vec<Rule>,
}

#[derive(Debug)]
pub struct Allowlist {
    pub values: Vec<String>,
    pub markers: Vec<String>,
}

#[derive(Debug)]
pub struct EnvironmentSecrets {
    pub name_pattern: String,
    pub min_value_len: usize,
}

/// How JSON member names (and header names) are classified (`[json]` in rules.toml; names compared as
/// `json::normalized` makes them).
#[derive(Debug)]
pub struct JsonKeys {
    pub sensitive_keys: Vec<String>,
    pub sensitive_suffixes: Vec<String>,
    /// Ordinary words a sensitive suffix also ends.
    pub not_sensitive: Vec<String>,
    /// Keys whose value is an operator's diagnostics, dropped from what a client gets.
    pub diagnostic_keys: Vec<String>,
    /// Keys whose value goes whole when it looks machine-made.
    pub opaque_keys: Vec<String>,
    /// Keys holding stack traces (strings or arrays of frames).
    pub trace_keys: Vec<String>,
}

/// Deserializable for the caller's `extra_rules`; the catalogue's own rules come from build.rs's tables.
/// `Default`: a rule with only what it is given (a policy file's `extra_rules` entry).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: String,
    pub category: String,
    /// Empty in the catalogue's wasm builds (see build.rs): no export returns it.
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub keywords: Vec<String>,
    pub pattern: String,
    #[serde(default)]
    pub secret_groups: Vec<usize>,
    #[serde(default)]
    pub validator: Option<Validator>,
    /// Bytes after the keyword's line that a match may reach (multi-line secrets); 0 = the line only.
    #[serde(default)]
    pub span: usize,
    /// A keyword hit counts only when an assignment operator follows it (after an optional quote and
    /// spaces): `password=`, `"api_key": `. Keeps `max_tokens` and "the api_key field" from waking the regex.
    #[serde(default)]
    pub assignment_after_keyword: bool,
    /// What opens the rule's windows: its keywords (default), or a structural scan for secrets that have
    /// no literal to key on.
    #[serde(default)]
    pub trigger: Trigger,
    /// How much text around a hit the regex sees: the whole line (default), just the whitespace-delimited
    /// word holding the hit (tokens, URLs, e-mail addresses) plus `words_after` following words, or an
    /// assignment (the key holding the hit to the end of the line).
    #[serde(default)]
    pub window: WindowKind,
    #[serde(default)]
    pub words_after: usize,
    /// Literals of which every match holds at least one (case-sensitive): a window holding none of them is
    /// refused without running the regex.
    #[serde(default)]
    pub requires: Vec<String>,
    /// The match ends at a delimiter of the text's structure (URL userinfo at its `@`): a looser match that
    /// overlaps it (an assignment value or an e-mail address running on into the host) is clipped there
    /// instead of merged, so the host and path survive. Any other overlap is redacted as one span.
    #[serde(default)]
    pub delimits: bool,
    /// For `window = "column"`: the byte that separates a table's cells (`,`, `;`, a tab, or `|` for a
    /// markdown table; default `,`).
    #[serde(default)]
    pub separator: String,
    /// The match must sit in a flat JSON object (no brace between it and the literal) that holds this literal
    /// too: a JWK's `"d"` beside its `"kty"`. Empty: no such condition.
    #[serde(default)]
    pub object_holds: String,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WindowKind {
    #[default]
    Line,
    Word,
    /// From the start of the identifier holding the hit (`db_password`, `x-api-key`, a URL's scheme, a header
    /// name) to the end of the line: an assignment's key and value, and nothing before them. The pattern is
    /// matched anchored there (after any part of the identifier), once per identifier, so the match must
    /// start inside the identifier that holds the keyword.
    Assignment,
    /// A table's column under a header cell naming a secret: the hit's line is read as the header (cells split
    /// by the rule's `separator`, CSV quoting honoured), and each following line with as many cells is a row;
    /// the pattern runs on the secret column's cell, judged by the header cell's name (see `tables`).
    Column,
    /// SQL `INSERT INTO t (a, b) VALUES (…), (…)`: the column list is the header, each tuple a row.
    SqlValues,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    #[default]
    Keywords,
    /// Lines holding a run of at least 13 digits (single spaces or dashes allowed between digits):
    /// card numbers.
    DigitRun,
    /// Lines holding two capital letters, two digits and at least 11 more capitals, digits or spaces: IBANs.
    IbanShape,
    /// Runs of exactly nine digits grouped 3-2-4 by dashes: US Social Security numbers.
    SsnShape,
    /// Text that travels encoded: base64, base64url and hex runs, and lines holding percent escapes or HTML
    /// character references. Each is decoded once (to a fixed depth) and, if it reads as text, scanned as
    /// text by every other rule: a base64 or hex run holding a credential is redacted whole, a credential
    /// written with escapes exactly (see `scan::encoded_candidates`). The rule's pattern is not run.
    EncodedRun,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Validator {
    /// The value of a `name = value` assignment: not a placeholder, template or variable reference; for
    /// non-password names also long and varied enough to be a credential rather than a word.
    Assignment,
    /// A Basic credential: base64 that decodes to `user:password`.
    BasicAuth,
    /// A payment card number: 13–19 digits passing the Luhn check.
    Luhn,
    /// An IBAN: a known length and a valid ISO 7064 mod-97 check.
    Iban,
    /// An IPv4 address in a private, link-local or shared (CGNAT) range; loopback and public addresses stay.
    PrivateIpv4,
    /// High-entropy text (≥ 3.5 bits per character over ≥ 20 characters): a random secret, not a word.
    Entropy,
    /// A value named by a name (the match's first group that is no secret group): a secret when the name
    /// classifier says the name is one (`db_pass`, `adafruitIoKey`, `X-Auth-Key`; not `cache_key`) and the
    /// value fits it (any password but a placeholder or a word like `incorrect`; a key that looks
    /// machine-made). A value printed after its name with no `=` or `:` between (`rejected api_key abc…`)
    /// must look machine-made whatever the name, and a session's id there is none.
    Named,
    /// A value in the field beside its name's (`- name: DB_PASSWORD` then `value: …`, `{"name": "API_TOKEN",
    /// "value": "…"}`): judged as [`Validator::Named`] judges an assigned value, by what the name says.
    NamePair,
    /// A password with no name to judge by (`curl -u user:pw`, netrc): anything but a placeholder, a word
    /// describing one, or a number (`-u 1000:1000` is a user and group id).
    Password,
    /// An e-mail address, not an SSH target (`git@github.com:org/repo`, `ssh deploy@host.example.com`).
    Email,
    /// A home directory's owner where a path starts (not a URL's `/home/products`).
    Home,
    /// A US Social Security number (valid area, group and serial).
    Ssn,
    /// A value that looks machine-made (or a Basic credential's base64), whatever names it.
    Opaque,
    /// An Authorization header's value: a credential after a known scheme (or one ending in `Token` or `Key`)
    /// as an assignment's; after any other word (`SSWS`, `AccessKey`), one that looks machine-made.
    Authorization,
    /// A URL query parameter's value: named as an assignment is (`license_key`, `X-Amz-Security-Token`; not
    /// `page_token`), and `key`, `code`, `sig` and `auth` alone are credentials there.
    QueryParam,
    /// A Cookie or Set-Cookie header's cookies: one of them holds a machine-made value (a session).
    Cookie,
    /// A private-key block: its last line is dropped when the text goes on after it on the same line
    /// (a log line after a BEGIN line with no key under it), so no log text is taken for key material.
    PemBlock,
}

/// A rule's documented examples: texts it must redact, and texts the whole engine must leave unchanged.
#[derive(Debug, Deserialize)]
pub struct Examples {
    pub examples: Vec<String>,
    pub negative_examples: Vec<String>,
}

/// The catalogue as build.rs writes it from rules.toml: borrowed static data, which costs the binary far less
/// than the JSON text and the deserializer it replaced. [`load`] turns it into the owned types.
struct CatalogueRows {
    allowlist_values: &'static [&'static str],
    allowlist_markers: &'static [&'static str],
    environment_name_pattern: &'static str,
    environment_min_value_len: usize,
    json_sensitive_keys: &'static [&'static str],
    json_sensitive_suffixes: &'static [&'static str],
    json_opaque_keys: &'static [&'static str],
    json_trace_keys: &'static [&'static str],
    json_not_sensitive: &'static [&'static str],
    json_diagnostic_keys: &'static [&'static str],
    rules: &'static [RuleRow],
}

struct RuleRow {
    id: &'static str,
    category: &'static str,
    description: &'static str,
    keywords: &'static [&'static str],
    pattern: &'static str,
    secret_groups: &'static [usize],
    validator: Option<Validator>,
    span: usize,
    assignment_after_keyword: bool,
    trigger: Trigger,
    window: WindowKind,
    words_after: usize,
    requires: &'static [&'static str],
    delimits: bool,
    separator: &'static str,
    object_holds: &'static str,
}

static ROWS: CatalogueRows = include!(concat!(env!("OUT_DIR"), "/catalogue_rows.rs"));

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

pub fn load() -> Catalogue {
    let rows = &ROWS;
    let rules = rows
        .rules
        .iter()
        .map(|r| Rule {
            id: r.id.to_string(),
            category: r.category.to_string(),
            description: r.description.to_string(),
            keywords: strings(r.keywords),
            pattern: r.pattern.to_string(),
            secret_groups: r.secret_groups.to_vec(),
            validator: r.validator,
            span: r.span,
            assignment_after_keyword: r.assignment_after_keyword,
            trigger: r.trigger,
            window: r.window,
            words_after: r.words_after,
            requires: strings(r.requires),
            delimits: r.delimits,
            separator: r.separator.to_string(),
            object_holds: r.object_holds.to_string(),
        })
        .collect();
    Catalogue {
        allowlist: Allowlist {
            values: strings(rows.allowlist_values),
            markers: strings(rows.allowlist_markers),
        },
        environment: EnvironmentSecrets {
            name_pattern: rows.environment_name_pattern.to_string(),
            min_value_len: rows.environment_min_value_len,
        },
        json: JsonKeys {
            sensitive_keys: strings(rows.json_sensitive_keys),
            sensitive_suffixes: strings(rows.json_sensitive_suffixes),
            opaque_keys: strings(rows.json_opaque_keys),
            trace_keys: strings(rows.json_trace_keys),
            not_sensitive: strings(rows.json_not_sensitive),
            diagnostic_keys: strings(rows.json_diagnostic_keys),
        },
        rules,
    }
}

/// Every rule's examples, by rule id (test data, kept out of the runtime tables).
pub fn examples() -> BTreeMap<String, Examples> {
    serde_json::from_str(include_str!(concat!(
        env!("OUT_DIR"),
        "/redaction_examples.json"
    )))
    .expect("examples are lists of strings")
}
