//! Deterministic benchmark and recall/precision corpora, built from the rule catalogue's own examples.

use jsonrpc_errors_guest::redact;

/// Error-message contexts a secret is embedded in: (prefix, suffix). Multi-line secrets get their own lines.
pub const CONTEXTS: [(&str, &str); 6] = [
    ("2026-11-21T10:00:00Z ERROR upstream call failed: ", ""),
    (
        "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32603,\"message\":\"tool failed: ",
        "\"},\"id\":17}",
    ),
    (
        "WARN retrying request (attempt 3/5), last error was: ",
        " - giving up soon",
    ),
    ("RuntimeError: adapter call failed\nCaused by: ", "\n"),
    ("<error><detail>", "</detail></error>"),
    (
        "level=error msg=\"request failed\" err=\"",
        "\" duration=12ms",
    ),
];

/// Ordinary log text that looks a bit like secrets but is not.
pub const BENIGN: [&str; 24] = [
    "request 123e4567-e89b-12d3-a456-426614174000 failed after 3 retries",
    "commit 1b1281e4c0ffee9f86d081884c7d659a2feaa0c5 built in 12.5s",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 mismatch",
    "requires jsonrpc-errors >= 1.2.3-beta.4+build.5",
    "max_tokens=4096 exceeded for model gpt-large (token_count=5120)",
    "GET https://api.example.com/v1/items?page=2&sort=desc returned 503",
    "open /var/lib/app/data/cache.db: no such file or directory",
    "tokenizer bert-base-uncased loaded in 0.42s; keyboard layout us",
    "set $GITHUB_TOKEN or ${API_KEY} before starting the server",
    "password: {{ vault.db_password }} (templated)",
    "connect to postgres://db.internal:5432/app timed out",
    "user id 4815162342 has 3 active sessions",
    "listening on 127.0.0.1:8080 and 0.0.0.0:9090",
    "public address 8.8.8.8 unreachable",
    "the api_key field is required; see docs/auth.md",
    "Basic authentication is disabled for this endpoint",
    "at least one of the bearer tokens expired",
    "base64 payload aGVsbG8gd29ybGQ= decoded to 11 bytes",
    "invoice INV-2026-000123 total 1499.00 EUR",
    "AKIAIOSFODNN7EXAMPLE is the AWS documentation key",
    "retry-after: 30s; x-request-id: req_8f3a9c",
    "@types/node and lodash@4.17.21 installed",
    "module github.com/acme/infra/v2 v2.3.1 found",
    "ValueError: invalid literal for int() with base 10: 'abc'",
];

pub struct Sample {
    pub rule: String,
    pub text: String,
    /// The secret substrings that must not survive.
    pub secrets: Vec<String>,
}

fn embed(text: &str, (prefix, suffix): (&str, &str)) -> String {
    if text.contains('\n') {
        format!("{}\n{}\n{}", prefix.trim_end(), text, suffix)
    } else {
        format!("{prefix}{text}{suffix}")
    }
}

/// Every rule's positive examples in every context, with the secrets they hold.
pub fn positives() -> Vec<Sample> {
    let examples = redact::examples();
    let mut out = Vec::new();
    for rule in redact::catalogue_rules() {
        for ex in &examples[&rule.id].examples {
            let found = redact::redact(ex, &[]);
            let secrets: Vec<String> = found
                .findings
                .iter()
                .filter(|f| f.rule == rule.id)
                .map(|f| ex[f.start..f.end].to_string())
                .collect();
            for ctx in CONTEXTS {
                out.push(Sample {
                    rule: rule.id.clone(),
                    text: embed(ex, ctx),
                    secrets: secrets.clone(),
                });
            }
        }
    }
    out
}

/// Every rule's negative examples and the benign look-alikes, in every context.
pub fn negatives() -> Vec<String> {
    let examples = redact::examples();
    let mut base: Vec<String> = BENIGN.iter().map(|s| s.to_string()).collect();
    for rule in redact::catalogue_rules() {
        base.extend(examples[&rule.id].negative_examples.iter().cloned());
    }
    base.iter()
        .flat_map(|b| CONTEXTS.iter().map(move |c| embed(b, *c)))
        .collect()
}

/// A deterministic mixed log of about `bytes` bytes: mostly ordinary lines, one line in 50 carrying a secret.
pub fn mixed_log(bytes: usize) -> String {
    log_with_secrets(bytes, 50)
}

/// Secrets that fill a failing auth loop or a dumped config: a token, an e-mail or a credential.
const DENSE_SHAPES: [&str; 8] = [
    "auth failed for {email}: token {github} rejected",
    "retrying with Authorization: Bearer {jwt}",
    "connect postgres://app:{password}@db.internal:5432/orders refused",
    "config dump: db_password={password} api_key={hex}",
    "login attempt from {ip} as {email} denied",
    "AWS_SECRET_ACCESS_KEY={aws} in environment",
    "sending to {email} via smtp://mailer:{password}@smtp.internal failed",
    "request from {ip} carried x-api-key: {hex}",
];

/// A deterministic secret-dense log of about `bytes` bytes: three lines in four carry one or two secrets (a
/// token, an e-mail, a credential, an address), the rest are ordinary.
pub fn dense_log(bytes: usize) -> String {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut word = |len: usize, alphabet: &[u8]| -> String {
        (0..len)
            .map(|_| alphabet[next() as usize % alphabet.len()] as char)
            .collect()
    };
    let mut out = String::with_capacity(bytes + 512);
    let mut line = 0u64;
    while out.len() < bytes {
        line += 1;
        let ts = format!(
            "2026-11-21T10:{:02}:{:02}.{:03}Z",
            (line / 60) % 60,
            line % 60,
            line % 1000
        );
        if line.is_multiple_of(4) {
            let b = BENIGN[(line / 4) as usize % BENIGN.len()];
            out.push_str(&format!("{ts} INFO  {b}\n"));
            continue;
        }
        let shape = DENSE_SHAPES[(line as usize * 7 + 3) % DENSE_SHAPES.len()];
        let text = shape
            .replace(
                "{email}",
                &format!(
                    "{}.{}@example.com",
                    word(6, b"abcdefghijklmnopqrstuvwxyz"),
                    word(4, b"abcdefghijklmnopqrstuvwxyz")
                ),
            )
            .replace("{github}", &format!("ghp_{}", word(36, ALNUM)))
            .replace(
                "{jwt}",
                &format!(
                    "eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}",
                    word(24, ALNUM),
                    word(43, ALNUM)
                ),
            )
            .replace("{password}", &word(14, ALNUM))
            .replace("{hex}", &word(32, b"0123456789abcdef"))
            .replace(
                "{ip}",
                &format!(
                    "10.{}.{}.{}",
                    line % 250,
                    (line / 7) % 250,
                    (line / 3) % 250 + 1
                ),
            )
            .replace("{aws}", &word(40, ALNUM));
        out.push_str(&format!("{ts} ERROR {text}\n"));
    }
    out
}

/// About `bytes` bytes of log lines, one in `every` carrying a secret from the catalogue's examples.
fn log_with_secrets(bytes: usize, every: u64) -> String {
    let examples = redact::examples();
    let secrets: Vec<&String> = redact::catalogue_rules()
        .iter()
        .flat_map(|r| examples[&r.id].examples.iter())
        .collect();
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = String::with_capacity(bytes + 512);
    let mut line = 0u64;
    while out.len() < bytes {
        line += 1;
        let r = next();
        let ts = format!(
            "2026-11-21T10:{:02}:{:02}.{:03}Z",
            (line / 60) % 60,
            line % 60,
            r % 1000
        );
        if r % every == 0 {
            let s = secrets[(r / every) as usize % secrets.len()];
            out.push_str(&format!("{ts} ERROR {}\n", s));
        } else {
            let b = BENIGN[(r >> 8) as usize % BENIGN.len()];
            out.push_str(&format!("{ts} INFO  [worker-{}] {b}\n", r % 16));
        }
    }
    out
}
