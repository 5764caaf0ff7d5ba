//! The redactor measured on the corpora of tests/corpora/ (see its README): recall over credentials of every
//! provider gitleaks's default configuration covers, in the texts real programs print, and the share of real
//! benign error and log lines left untouched. Shared, by `#[path]`, between the test that asserts the goals
//! (guest/tests/corpora.rs) and the bench that prints the figures (bench/rust/bench.rs).

#![allow(dead_code)]

use jsonrpc_errors_guest::redact::{self, Finding, Redactor, Secrets};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Share of the providers planted in a context whose every secret must be gone, in every context.
pub const RECALL_GOAL: f64 = 0.95;
/// Share of the benign lines the redactor must return unchanged.
pub const BENIGN_GOAL: f64 = 0.995;
/// Share of the encoded variants that must be caught, in every encoding (issue 36).
pub const ENCODED_GOAL: f64 = 0.95;
/// A secret leaks when it survives whole, or when any run of this many of its characters does (a token cut
/// short at a `-` or a `.` leaks the rest).
pub const FRAGMENT: usize = 16;

/// tests/corpora, looked for upward from the including crate: the guest's test includes this file from
/// guest/, the bench from bench/rust/.
pub fn corpora_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .map(|dir| dir.join("tests/corpora"))
        .find(|dir| dir.join("recall.jsonl").is_file())
        .unwrap_or_else(|| manifest.join("../tests/corpora"))
}

pub struct Provider {
    pub id: String,
    pub vendor: String,
    pub shape: String,
    pub distinct: bool,
}

pub struct Sample {
    pub provider: String,
    pub context: String,
    pub variant: u64,
    pub text: String,
    pub secrets: Vec<String>,
}

pub struct Recall {
    pub header: Value,
    pub providers: Vec<Provider>,
    pub contexts: Vec<String>,
    pub samples: Vec<Sample>,
}

fn string(v: &Value, key: &str) -> String {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("recall.jsonl: {key} missing in {v}"))
        .to_string()
}

pub fn load_recall(dir: &Path) -> Recall {
    let path = dir.join("recall.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (python3 tests/corpora/generate.py)",
            path.display()
        )
    });
    let mut lines = text.lines().map(|l| {
        serde_json::from_str::<Value>(l).expect("recall.jsonl: one JSON document per line")
    });
    let header = lines.next().expect("recall.jsonl: a header line");
    assert_eq!(
        header["type"], "header",
        "recall.jsonl starts with its header"
    );
    let contexts = header["contexts"]
        .as_array()
        .expect("header.contexts")
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    let (mut providers, mut samples) = (Vec::new(), Vec::new());
    for v in lines {
        match v["type"].as_str() {
            Some("provider") => providers.push(Provider {
                id: string(&v, "id"),
                vendor: string(&v, "vendor"),
                shape: string(&v, "shape"),
                distinct: v["distinct"].as_bool().unwrap_or(false),
            }),
            Some("sample") => samples.push(Sample {
                provider: string(&v, "provider"),
                context: string(&v, "context"),
                variant: v["variant"].as_u64().unwrap_or(0),
                text: string(&v, "text"),
                secrets: v["secrets"]
                    .as_array()
                    .expect("secrets")
                    .iter()
                    .map(|s| s.as_str().unwrap().to_string())
                    .collect(),
            }),
            other => panic!("recall.jsonl: unknown line type {other:?}"),
        }
    }
    assert_eq!(
        header["samples"].as_u64(),
        Some(samples.len() as u64),
        "recall.jsonl: header.samples"
    );
    Recall {
        header,
        providers,
        contexts,
        samples,
    }
}

pub struct Benign {
    /// (group, where its lines came from), in file order.
    pub groups: Vec<(String, String)>,
    /// (group, line)
    pub lines: Vec<(String, String)>,
}

/// benign.txt: `#### group NAME: SOURCE` opens a group; other `####` lines are notes; blank lines are skipped;
/// every other line is one benign text.
pub fn load_benign(dir: &Path) -> Benign {
    load_grouped(&dir.join("benign.txt"))
}

/// A file in benign.txt's format.
fn load_grouped(path: &Path) -> Benign {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut groups, mut lines) = (Vec::new(), Vec::new());
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("#### group ") {
            let (name, source) = rest.split_once(": ").unwrap_or((rest, ""));
            groups.push((name.to_string(), source.to_string()));
            current = Some(name.to_string());
        } else if line.starts_with("####") || line.is_empty() {
            continue;
        } else {
            let group = current.clone().unwrap_or_else(|| {
                panic!(
                    "{}: a line before the first group: {line:?}",
                    path.display()
                )
            });
            lines.push((group, line.to_string()));
        }
    }
    Benign { groups, lines }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Outcome {
    Caught,
    /// Part of a secret survives: a finding covered some of it.
    Partial,
    /// A secret survives whole.
    Missed,
}

pub struct SampleResult<'a> {
    pub sample: &'a Sample,
    pub outcome: Outcome,
    pub output: String,
    /// For each leaked secret, each of its occurrences in the input: the rules whose findings overlap it
    /// (empty: nothing touched that occurrence).
    pub occurrences: Vec<Vec<BTreeSet<String>>>,
    /// Rules with findings elsewhere in the sample.
    pub elsewhere: BTreeSet<String>,
    /// Rules whose findings cover some occurrence of a secret (where the provider is caught, what caught it).
    pub covering: BTreeSet<String>,
    /// What survived of each leaked secret.
    pub leaked: Vec<String>,
}

/// The longest run of `secret` (at least FRAGMENT characters, or all of a shorter secret) found in `output`.
pub fn leak(secret: &str, output: &str) -> Option<String> {
    if output.contains(secret) {
        return Some(secret.to_string());
    }
    let chars: Vec<(usize, char)> = secret.char_indices().collect();
    if chars.len() <= FRAGMENT {
        return None;
    }
    let mut best: Option<&str> = None;
    let mut i = 0;
    while i + FRAGMENT <= chars.len() {
        let start = chars[i].0;
        let end = chars.get(i + FRAGMENT).map_or(secret.len(), |c| c.0);
        if output.contains(&secret[start..end]) {
            let mut j = i + FRAGMENT;
            while j < chars.len() {
                let e = chars.get(j + 1).map_or(secret.len(), |c| c.0);
                if !output.contains(&secret[start..e]) {
                    break;
                }
                j += 1;
            }
            let e = chars.get(j).map_or(secret.len(), |c| c.0);
            if best.is_none_or(|b| e - start > b.len()) {
                best = Some(&secret[start..e]);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    best.map(str::to_string)
}

/// How much of `sample`'s secrets survive in `output` (any redactor's): none, some, or one whole.
pub fn outcome_of(sample: &Sample, output: &str) -> Outcome {
    sample
        .secrets
        .iter()
        .filter_map(|secret| leak(secret, output).map(|l| l.len() == secret.len()))
        .map(|whole| {
            if whole {
                Outcome::Missed
            } else {
                Outcome::Partial
            }
        })
        .max()
        .unwrap_or(Outcome::Caught)
}

fn spans(text: &str, needle: &str) -> Vec<(usize, usize)> {
    text.match_indices(needle)
        .map(|(i, s)| (i, i + s.len()))
        .collect()
}

pub fn check_sample<'a>(sample: &'a Sample, redactor: &Redactor) -> SampleResult<'a> {
    let out = redact::redact_with(&sample.text, Secrets::none(), redactor);
    let mut outcome = Outcome::Caught;
    let (mut occurrences, mut elsewhere, mut leaked) = (Vec::new(), BTreeSet::new(), Vec::new());
    let secret_spans: Vec<(usize, usize)> = sample
        .secrets
        .iter()
        .flat_map(|s| spans(&sample.text, s))
        .collect();
    let touches = |f: &Finding| secret_spans.iter().any(|&(s, e)| f.start < e && s < f.end);
    let mut covering = BTreeSet::new();
    for f in &out.findings {
        if touches(f) {
            covering.insert(f.rule.clone());
        } else {
            elsewhere.insert(f.rule.clone());
        }
    }
    for secret in &sample.secrets {
        if let Some(survived) = leak(secret, &out.text) {
            let whole = survived.len() == secret.len();
            outcome = outcome.max(if whole {
                Outcome::Missed
            } else {
                Outcome::Partial
            });
            occurrences.push(
                spans(&sample.text, secret)
                    .iter()
                    .map(|&(s, e)| {
                        out.findings
                            .iter()
                            .filter(|f| f.start < e && s < f.end)
                            .map(|f| f.rule.clone())
                            .collect()
                    })
                    .collect(),
            );
            leaked.push(survived);
        }
    }
    SampleResult {
        sample,
        outcome,
        output: out.text,
        occurrences,
        elsewhere,
        covering,
        leaked,
    }
}

pub struct RecallReport<'a> {
    pub redactor: String,
    pub recall: &'a Recall,
    pub results: Vec<SampleResult<'a>>,
}

pub struct ContextFigure {
    pub context: String,
    pub providers_caught: usize,
    pub providers: usize,
    pub samples_caught: usize,
    pub samples: usize,
}

impl ContextFigure {
    pub fn rate(&self) -> f64 {
        if self.providers == 0 {
            1.0
        } else {
            self.providers_caught as f64 / self.providers as f64
        }
    }
}

pub fn evaluate_recall<'a>(
    recall: &'a Recall,
    policy_name: &str,
    redactor: &Redactor,
) -> RecallReport<'a> {
    RecallReport {
        redactor: policy_name.to_string(),
        recall,
        results: recall
            .samples
            .iter()
            .map(|s| check_sample(s, redactor))
            .collect(),
    }
}

impl RecallReport<'_> {
    /// (provider, context) → worst outcome over its samples.
    pub fn grid(&self) -> BTreeMap<(&str, &str), Outcome> {
        let mut grid: BTreeMap<(&str, &str), Outcome> = BTreeMap::new();
        for r in &self.results {
            let cell = grid
                .entry((r.sample.provider.as_str(), r.sample.context.as_str()))
                .or_insert(Outcome::Caught);
            *cell = (*cell).max(r.outcome);
        }
        grid
    }

    pub fn per_context(&self) -> Vec<ContextFigure> {
        let grid = self.grid();
        self.recall
            .contexts
            .iter()
            .map(|c| {
                let cells: Vec<Outcome> = grid
                    .iter()
                    .filter(|((_, ctx), _)| ctx == c)
                    .map(|(_, o)| *o)
                    .collect();
                let samples: Vec<&SampleResult> = self
                    .results
                    .iter()
                    .filter(|r| &r.sample.context == c)
                    .collect();
                ContextFigure {
                    context: c.clone(),
                    providers_caught: cells.iter().filter(|o| **o == Outcome::Caught).count(),
                    providers: cells.len(),
                    samples_caught: samples
                        .iter()
                        .filter(|r| r.outcome == Outcome::Caught)
                        .count(),
                    samples: samples.len(),
                }
            })
            .collect()
    }

    pub fn samples_caught(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.outcome == Outcome::Caught)
            .count()
    }

    /// Providers caught in every context they are planted in.
    pub fn providers_everywhere(&self) -> (usize, usize) {
        let grid = self.grid();
        let ok = self
            .recall
            .providers
            .iter()
            .filter(|p| {
                grid.iter()
                    .all(|((id, _), o)| *id != p.id || *o == Outcome::Caught)
            })
            .count();
        (ok, self.recall.providers.len())
    }

    pub fn meets_goal(&self) -> bool {
        self.per_context().iter().all(|c| c.rate() >= RECALL_GOAL)
    }

    pub fn summary(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "recall, redactor {}: providers caught per context (goal >= {:.0}% in every context)",
            self.redactor,
            RECALL_GOAL * 100.0
        );
        let _ = writeln!(
            s,
            "  {:<17} {:>9} {:>7}   {:>9}",
            "context", "providers", "", "samples"
        );
        for c in self.per_context() {
            let _ = writeln!(
                s,
                "  {:<17} {:>4}/{:<4} {:>6.1}%   {:>4}/{:<4} {}",
                c.context,
                c.providers_caught,
                c.providers,
                c.rate() * 100.0,
                c.samples_caught,
                c.samples,
                if c.rate() >= RECALL_GOAL {
                    ""
                } else {
                    "  BELOW GOAL"
                }
            );
        }
        let (ok, all) = self.providers_everywhere();
        let _ = writeln!(s, "  all samples: {}/{} secrets-in-context redacted ({:.1}%); providers caught in every context: {ok}/{all}",
            self.samples_caught(), self.results.len(), 100.0 * self.samples_caught() as f64 / self.results.len() as f64);
        s
    }

    /// One row per provider, one column per context: `.` caught, `X` a secret survives whole, `p` part of it
    /// survives, blank: not planted there.
    pub fn table(&self) -> String {
        let grid = self.grid();
        let mut s = String::new();
        let width = self
            .recall
            .providers
            .iter()
            .map(|p| p.id.len())
            .max()
            .unwrap_or(8);
        let _ = writeln!(s, "per provider (. caught, X survives whole, p survives in part, blank: not planted), redactor {}:", self.redactor);
        for (i, c) in self.recall.contexts.iter().enumerate() {
            let _ = writeln!(s, "  {:>2} = {c}", i + 1);
        }
        let _ = write!(s, "  {:<width$} ", "provider");
        for i in 0..self.recall.contexts.len() {
            let _ = write!(s, "{:>3}", i + 1);
        }
        let _ = writeln!(s, "   caught  (rules that caught it)");
        for p in &self.recall.providers {
            let rules: BTreeSet<&str> = self
                .results
                .iter()
                .filter(|r| r.sample.provider == p.id && r.outcome == Outcome::Caught)
                .flat_map(|r| r.covering.iter().map(String::as_str))
                .collect();
            let _ = write!(s, "  {:<width$} ", p.id);
            let (mut ok, mut all) = (0, 0);
            for c in &self.recall.contexts {
                let cell = match grid.get(&(p.id.as_str(), c.as_str())) {
                    None => " ",
                    Some(Outcome::Caught) => {
                        ok += 1;
                        "."
                    }
                    Some(Outcome::Partial) => "p",
                    Some(Outcome::Missed) => "X",
                };
                if cell != " " {
                    all += 1;
                }
                let _ = write!(s, "{cell:>3}");
            }
            let _ = writeln!(
                s,
                "   {ok:>2}/{all:<2} {} {}",
                if ok == all { " " } else { "<" },
                rules.into_iter().collect::<Vec<_>>().join(" ")
            );
        }
        s
    }

    /// Every sample a secret survived in: what survived, the rules that cut it short, the line it is on.
    pub fn misses(&self) -> String {
        let mut s = String::new();
        for r in self.results.iter().filter(|r| r.outcome != Outcome::Caught) {
            let _ = writeln!(
                s,
                "  {} in {} (variant {}): {:?}{}",
                r.sample.provider,
                r.sample.context,
                r.sample.variant,
                r.outcome,
                if r.elsewhere.is_empty() {
                    String::new()
                } else {
                    format!("; findings elsewhere in the text: {:?}", r.elsewhere)
                }
            );
            for (leaked, occurrences) in r.leaked.iter().zip(&r.occurrences) {
                let line = r
                    .output
                    .lines()
                    .find(|l| l.contains(leaked.as_str()))
                    .unwrap_or("");
                let touched: Vec<String> = occurrences
                    .iter()
                    .map(|rules| {
                        if rules.is_empty() {
                            "untouched".to_string()
                        } else {
                            rules.iter().cloned().collect::<Vec<_>>().join("+")
                        }
                    })
                    .collect();
                let _ = writeln!(
                    s,
                    "      survives {:?} (occurrences: {}) on: {}",
                    clip(leaked, 60),
                    touched.join(", "),
                    clip(line, 220)
                );
            }
        }
        s
    }
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n).collect::<String>() + "…"
    }
}

pub struct Changed<'a> {
    pub group: &'a str,
    pub line: &'a str,
    pub output: String,
    /// (rule, the text it matched)
    pub findings: Vec<(String, String)>,
}

pub struct BenignReport<'a> {
    pub benign: &'a Benign,
    pub changed: Vec<Changed<'a>>,
}

pub fn evaluate_benign(benign: &Benign) -> BenignReport<'_> {
    let redactor = Redactor::default();
    let changed = benign
        .lines
        .iter()
        .filter_map(|(group, line)| {
            let out = redact::redact_with(line, Secrets::none(), &redactor);
            (out.text != *line).then(|| Changed {
                group,
                line,
                findings: out
                    .findings
                    .iter()
                    .map(|f| (f.rule.clone(), line[f.start..f.end].to_string()))
                    .collect(),
                output: out.text,
            })
        })
        .collect();
    BenignReport { benign, changed }
}

impl BenignReport<'_> {
    pub fn rate(&self) -> f64 {
        1.0 - self.changed.len() as f64 / self.benign.lines.len() as f64
    }

    pub fn meets_goal(&self) -> bool {
        self.rate() >= BENIGN_GOAL
    }

    pub fn summary(&self) -> String {
        let mut s = String::new();
        let total = self.benign.lines.len();
        let _ = writeln!(
            s,
            "benign lines untouched: {}/{} ({:.2}%; goal >= {:.1}%)",
            total - self.changed.len(),
            total,
            self.rate() * 100.0,
            BENIGN_GOAL * 100.0
        );
        let mut by_rule: BTreeMap<&str, usize> = BTreeMap::new();
        for c in &self.changed {
            let rules: BTreeSet<&str> = c.findings.iter().map(|(r, _)| r.as_str()).collect();
            for r in rules {
                *by_rule.entry(r).or_default() += 1;
            }
        }
        if !by_rule.is_empty() {
            let _ = writeln!(
                s,
                "  lines changed, by rule: {}",
                by_rule
                    .iter()
                    .map(|(r, n)| format!("{r} {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        for (group, _) in &self.benign.groups {
            let n = self.benign.lines.iter().filter(|(g, _)| g == group).count();
            let c = self.changed.iter().filter(|c| c.group == group).count();
            let _ = writeln!(s, "  {group:<28} {:>4}/{:<4} untouched", n - c, n);
        }
        s
    }

    pub fn details(&self) -> String {
        let mut s = String::new();
        for c in &self.changed {
            let _ = writeln!(s, "  [{}] {}", c.group, clip(c.line, 240));
            for (rule, text) in &c.findings {
                let _ = writeln!(s, "      {rule}: {:?}", clip(text, 120));
            }
        }
        s
    }
}

// --- encoded variants (issue 36) ----------------------------------------------------------------------------

/// The encodings a credential travels in, each with the line that carries it (`{}`: the encoded text).
pub const ENCODINGS: [(&str, &str); 6] = [
    (
        "base64",
        "tool result: {\"content\": \"{}\", \"encoding\": \"base64\"}",
    ),
    ("base64url", "config_b64={} (from the secrets API)"),
    ("hex", "request dump: {}"),
    ("percent", "GET /callback?data={} HTTP/1.1"),
    ("percent-twice", "Location: /login?next={}"),
    ("html-entities", "<pre class=\"error\">{}</pre>"),
];

/// The recall corpus's contexts whose samples are encoded: one line or a document, config, HTTP and logs.
pub const ENCODED_CONTEXTS: [&str; 4] = ["dotenv", "log-logfmt", "http-client", "json-config"];

fn base64_of(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(alphabet[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
        if pad {
            out.push_str(&"=".repeat(3 - chunk.len()));
        }
    }
    out
}

fn percent_of(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// `text` in `encoding` (written here, apart from the redactor's own code, so that a bug in one is not
/// hidden by the same bug in the other). HTML entities as an escaper for attributes writes them: every
/// character but letters, digits and spaces as `&#xHH;`, the five markup characters by name.
pub fn encode(encoding: &str, text: &str) -> String {
    const STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    match encoding {
        "base64" => base64_of(text.as_bytes(), STD, true),
        "base64url" => base64_of(text.as_bytes(), URL, false),
        "hex" => text.bytes().map(|b| format!("{b:02x}")).collect(),
        "percent" => percent_of(text),
        "percent-twice" => percent_of(&percent_of(text)),
        "html-entities" => text
            .chars()
            .map(|c| match c {
                '&' => "&amp;".to_string(),
                '<' => "&lt;".to_string(),
                '>' => "&gt;".to_string(),
                '"' => "&quot;".to_string(),
                c if c.is_alphanumeric() || c == ' ' || c == '\n' => c.to_string(),
                c => format!("&#x{:x};", c as u32),
            })
            .collect(),
        other => panic!("unknown encoding {other}"),
    }
}

/// Whether an encoding writes a text as one run that stands for all of it (base64, hex), rather than
/// character by character (a secret's encoded form is then a part of the encoded text).
pub fn is_block(encoding: &str) -> bool {
    matches!(encoding, "base64" | "base64url" | "hex")
}

/// `encoded` in the line that carries `encoding`.
pub fn carried(encoding: &str, encoded: &str) -> String {
    let (_, carrier) = ENCODINGS
        .iter()
        .find(|(e, _)| *e == encoding)
        .expect("a known encoding");
    carrier.replacen("{}", encoded, 1)
}

/// Every sample of the `ENCODED_CONTEXTS`, whole, in every encoding: the context is the encoding's name. The
/// secrets that must not survive: a block encoding's whole run (none of its pieces may survive either), or
/// each secret's own encoded form.
pub fn encoded_samples(recall: &Recall) -> Vec<Sample> {
    let mut out = Vec::new();
    for s in recall
        .samples
        .iter()
        .filter(|s| ENCODED_CONTEXTS.contains(&s.context.as_str()))
    {
        for (encoding, _) in ENCODINGS {
            let encoded = encode(encoding, &s.text);
            let secrets = if is_block(encoding) {
                vec![encoded.clone()]
            } else {
                s.secrets.iter().map(|x| encode(encoding, x)).collect()
            };
            out.push(Sample {
                provider: s.provider.clone(),
                context: encoding.to_string(),
                variant: s.variant,
                text: carried(encoding, &encoded),
                secrets,
            });
        }
    }
    out
}

/// One encoding's figures: (encoding, caught, in part, missed).
pub type EncodedFigure = (String, usize, usize, usize);

/// Per encoding its figures, and every sample not caught.
pub fn evaluate_encoded<'a>(
    samples: &'a [Sample],
    redactor: &Redactor,
) -> (Vec<EncodedFigure>, Vec<SampleResult<'a>>) {
    let mut figures: Vec<EncodedFigure> = ENCODINGS
        .iter()
        .map(|(e, _)| (e.to_string(), 0, 0, 0))
        .collect();
    let mut misses = Vec::new();
    for s in samples {
        let r = check_sample(s, redactor);
        let f = figures
            .iter_mut()
            .find(|f| f.0 == s.context)
            .expect("a known encoding");
        match r.outcome {
            Outcome::Caught => f.1 += 1,
            Outcome::Partial => f.2 += 1,
            Outcome::Missed => f.3 += 1,
        }
        if r.outcome != Outcome::Caught {
            misses.push(r);
        }
    }
    (figures, misses)
}

/// shapes.txt (tests/corpora/collect_shapes.py): lines that look encoded and hold no secret, grouped as
/// benign.txt is.
pub fn load_shapes(dir: &Path) -> Benign {
    load_grouped(&dir.join("shapes.txt"))
}

/// The benign texts the decoding must leave alone: every shapes.txt line as it is, and every benign.txt line
/// the plain scan leaves alone in every encoding: (what it is, the text).
pub fn encoded_benign(benign: &Benign, shapes: &Benign) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = shapes
        .lines
        .iter()
        .map(|(g, l)| (format!("shapes/{g}"), l.clone()))
        .collect();
    for (_, line) in &benign.lines {
        if redact::redact(line, &[]).text != *line {
            continue;
        }
        for (encoding, _) in ENCODINGS {
            out.push((
                format!("benign/{encoding}"),
                carried(encoding, &encode(encoding, line)),
            ));
        }
    }
    out
}
