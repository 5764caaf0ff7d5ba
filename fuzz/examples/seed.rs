//! Seeds every target's corpus (`fuzz/corpus/<target>/seed-*`) from the conformance vectors
//! (`tests/vectors/*.json`): each case becomes a header written for the options it uses (see `header.rs`)
//! followed by its payload, in the layout of the target for its op. Run by `scripts/fuzz.sh`; rerunning it
//! rewrites the same files. Payloads over 64 KiB are left out: libFuzzer would raise every input's size
//! limit to the largest seed, and slow the whole run for one case.

use jsonrpc_errors_fuzz::header::Header;
use jsonrpc_errors_guest::context::CallContext;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const MAX_SEED: usize = 64 * 1024;

/// Options JSON for the redaction targets' "options as text" mode (the vectors have none).
const REDACT_OPTIONS: &[&str] = &[
    r#"{"method":"mask"}"#,
    r#"{"method":"hash","hash_key":"0123456789abcdef0123"}"#,
    r#"{"method":"remove","disable":["pii","stack-trace"],"allowlist":["alice@example.com"]}"#,
    r#"{"extra_rules":[{"id":"acme-key","category":"token","keywords":["acme_"],"pattern":"acme_[0-9a-f]{16}","window":"word"}]}"#,
    r#"{"extra_rules":[{"id":"order","category":"pii","pattern":"order-(\\d+)","secret_groups":[1]}],"sensitive_keys":["order"]}"#,
];

struct Seeds {
    dir: PathBuf,
    files: BTreeMap<String, Vec<u8>>,
}

impl Seeds {
    fn add(&mut self, target: &str, name: &str, h: Header, payload: &[u8]) {
        let bytes = [h.to_bytes(), payload.to_vec()].concat();
        assert_eq!(
            Header::split(&bytes).0,
            h,
            "Header::to_bytes is not the inverse of Header::split"
        );
        self.add_bytes(target, name, bytes, payload.len());
    }

    /// A seed for a target that reads no header (`programs`: a selector byte, then the text).
    fn add_bytes(&mut self, target: &str, name: &str, bytes: Vec<u8>, payload_len: usize) {
        if payload_len > MAX_SEED {
            return;
        }
        let clean: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.files.insert(format!("{target}/seed-{clean}"), bytes);
    }

    fn write(self) {
        let mut per_target: BTreeMap<&str, usize> = BTreeMap::new();
        for (name, bytes) in &self.files {
            let path = self.dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
            *per_target
                .entry(name.split('/').next().unwrap())
                .or_default() += 1;
        }
        for (target, n) in per_target {
            println!("seeded {n:4} inputs into corpus/{target}");
        }
    }
}

fn hex(h: &str) -> Vec<u8> {
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
        .collect()
}

fn ctx(case: &Value) -> CallContext {
    case.get("ctx")
        .map(|c| CallContext {
            unix_millis: c["unix_millis"].as_u64().unwrap(),
            entropy: c["entropy"].as_u64().unwrap(),
        })
        .unwrap_or_default()
}

fn raw(case: &Value) -> Vec<u8> {
    match (case["raw"].as_str(), case["raw_hex"].as_str()) {
        (Some(t), _) => t.as_bytes().to_vec(),
        (_, Some(h)) => hex(h),
        _ => Vec::new(),
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seeds = Seeds {
        dir: root.join("corpus"),
        files: BTreeMap::new(),
    };
    let mut vectors: Vec<PathBuf> = std::fs::read_dir(root.join("../tests/vectors"))
        .expect("tests/vectors")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    vectors.sort();
    let mut redact_texts = Vec::new();
    for file in vectors {
        let doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        for case in doc["cases"].as_array().unwrap() {
            let name = case["name"].as_str().unwrap();
            let dialect = case["dialect"].as_str().unwrap_or("canonical");
            let h = Header::default().with_dialect(dialect).with_ctx(ctx(case));
            match case["op"].as_str().unwrap() {
                "validate" => validate(&mut seeds, name, case),
                "map" => {
                    let input = case["input_text"]
                        .as_str()
                        .map_or_else(|| case["input"].to_string(), str::to_string);
                    seeds.add("map", name, h, input.as_bytes());
                    seeds.add(
                        "redact_json",
                        &format!("map-{name}"),
                        Header::default(),
                        input.as_bytes(),
                    );
                }
                "sanitize" => {
                    let raw = raw(case);
                    seeds.add("sanitize", name, h, &raw);
                    // The same with a secret planted at the start of the message.
                    if let Some(at) = raw.windows(11).position(|w| w == b"\"message\":\"") {
                        let planted = Header {
                            mode: 1,
                            position: ((at + 11) as u16).to_le_bytes(),
                            ..h
                        };
                        seeds.add("sanitize", &format!("{name}-planted"), planted, &raw);
                    }
                    seeds.add(
                        "redact_json",
                        &format!("sanitize-{name}"),
                        Header::default(),
                        &raw,
                    );
                }
                "redact" => {
                    let text = case["text"].as_str().unwrap();
                    seeds.add("redact", name, Header::default(), text.as_bytes());
                    seeds.add_bytes(
                        "programs",
                        name,
                        [&[PROGRAMS_ALL_RULES][..], text.as_bytes()].concat(),
                        text.len(),
                    );
                    redact_texts.push((name.to_string(), text.to_string()));
                }
                "lookup" | "explain" | "codes" => lookup(&mut seeds, name, case, h),
                "guard" => guard(&mut seeds, name, case),
                // The contract's other ops: redaction under caller options (redact's mode 2 takes the options
                // JSON as the first line), JSON-aware redaction of the document as text; the rest take no input.
                "redact_with" => {
                    let options = case
                        .get("options")
                        .map_or_else(|| "{}".to_string(), |o| o.to_string());
                    let text = case["text"].as_str().unwrap();
                    let h = Header {
                        mode: 2,
                        ..Header::default()
                    };
                    seeds.add("redact", name, h, format!("{options}\n{text}").as_bytes());
                }
                "redact_json_value" => {
                    let value = case
                        .get("value_text")
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_else(|| case["value"].to_string());
                    seeds.add("redact_json", name, Header::default(), value.as_bytes());
                }
                "kinds" | "max_input_bytes" | "refusal" => {}
                other => panic!("unknown op {other} in {}", file.display()),
            }
        }
    }
    // Redaction under the other modes: a secret planted, options as text, and the texts inside JSON.
    for (i, (name, text)) in redact_texts.iter().enumerate() {
        if i % 8 == 0 {
            let h = Header {
                flags: 1,
                secret: i as u8,
                position: (text.len() as u16 / 2).to_le_bytes(),
                ..Header::default()
            };
            seeds.add("redact", &format!("{name}-planted"), h, text.as_bytes());
        }
        if i % 4 == 0 {
            let options = REDACT_OPTIONS[i / 4 % REDACT_OPTIONS.len()];
            let payload = format!("{options}\n{text}");
            seeds.add(
                "redact",
                &format!("{name}-options"),
                Header {
                    mode: 2,
                    ..Header::default()
                },
                payload.as_bytes(),
            );
            let doc = serde_json::json!({"message": text, "password": "hunter2", "nested": [{"token": text}]}).to_string();
            seeds.add(
                "redact_json",
                &format!("{name}-doc"),
                Header::default(),
                doc.as_bytes(),
            );
            let payload = format!("{options}\n{doc}");
            seeds.add(
                "redact_json",
                &format!("{name}-doc-options"),
                Header {
                    mode: 2 << 1,
                    ..Header::default()
                },
                payload.as_bytes(),
            );
        }
    }
    // Every rule's examples, for the rule alone (selector = the rule's place among the rules with programs,
    // as the target counts them) and for all rules at once.
    use jsonrpc_errors_guest::redact::{catalogue_rules, examples, programs};
    let all_examples = examples();
    let with_programs = (0..catalogue_rules().len()).filter(|&i| programs::for_rule(i).is_some());
    for (place, i) in with_programs.enumerate() {
        let rule = &catalogue_rules()[i];
        let Some(e) = all_examples.get(&rule.id) else {
            continue;
        };
        for (k, text) in e.examples.iter().chain(&e.negative_examples).enumerate() {
            let selector = (place % 0x80) as u8;
            seeds.add_bytes(
                "programs",
                &format!("{}-{k}", rule.id),
                [&[selector][..], text.as_bytes()].concat(),
                text.len(),
            );
        }
    }
    seeds.write();
}

/// The `programs` target's selector byte that checks every rule (high bit set).
const PROGRAMS_ALL_RULES: u8 = 0x80;

/// validate: flags bit 0 max_bytes (number 0), bit 2 content type (the payload's first line), bit 3
/// content length (number 1).
fn validate(seeds: &mut Seeds, name: &str, case: &Value) {
    let o = &case["options"];
    let mut h = Header::default()
        .with_dialect(o["dialect"].as_str().unwrap_or("canonical"))
        .with_batch(o["batch"].as_str().unwrap_or("reject"))
        .with_ctx(ctx(case));
    let mut payload = Vec::new();
    if let Some(n) = o["max_bytes"].as_u64() {
        h.flags |= 1;
        h = h.with_number(0, n);
    }
    if let Some(ct) = o["content_type"].as_str() {
        h.flags |= 1 << 2;
        payload.extend_from_slice(ct.as_bytes());
        payload.push(b'\n');
    }
    if let Some(n) = o["content_length"].as_u64() {
        h.flags |= 1 << 3;
        h = h.with_number(1, n);
    }
    payload.extend_from_slice(&raw(case));
    seeds.add("validate", name, h, &payload);
}

/// lookup: number 0 the code, flags bit 0 a message (first line), bit 1 data (the rest). (`codes` cases add
/// nothing: the target checks every argument pair of `codes` when it starts.)
fn lookup(seeds: &mut Seeds, name: &str, case: &Value, h: Header) {
    let mut h = h.with_number(0, case["code"].as_i64().unwrap_or(-32600) as u64);
    let mut payload = Vec::new();
    if let Some(m) = case["message"].as_str() {
        h.flags |= 1;
        payload.extend_from_slice(m.as_bytes());
        payload.push(b'\n');
    }
    if let Some(d) = case.get("data") {
        h.flags |= 1 << 1;
        payload.extend_from_slice(d.to_string().as_bytes());
    }
    seeds.add("lookup", name, h, &payload);
}

/// guard: flags bit 0 a timeout (number 0), bit 2 max_bytes (number 1, bit 3: as it is); the script one
/// line per step (see `src/guard/mod.rs`).
fn guard(seeds: &mut Seeds, name: &str, case: &Value) {
    let o = &case["options"];
    let mut h = Header::default()
        .with_dialect(o["dialect"].as_str().unwrap_or("canonical"))
        .with_batch(o["batch"].as_str().unwrap_or("reject"))
        .with_ctx(ctx(case));
    if let Some(t) = o["timeout_ms"].as_u64() {
        h.flags |= 1 | if t >= 120_000 { 1 << 1 } else { 0 };
        h = h.with_number(0, t);
    }
    if let Some(n) = o["max_bytes"].as_u64() {
        h.flags |= 1 << 2 | if n >= 8192 { 1 << 3 } else { 0 };
        h = h.with_number(1, n);
    }
    let mut script: Vec<u8> = Vec::new();
    let mut line = |op: &[u8], rest: &[u8]| {
        // The shell splits what it reads on newlines: a step's bytes never hold one.
        for part in rest.split(|&b| b == b'\n') {
            script.extend_from_slice(op);
            script.extend_from_slice(part);
            script.push(b'\n');
        }
    };
    let mut clock = 0;
    for step in case["script"].as_array().unwrap() {
        let at = step["at"].as_u64().unwrap_or(0);
        if at != clock {
            line(b"t", at.to_string().as_bytes());
            clock = at;
        }
        let s = |k: &str| step[k].as_str();
        if let Some(l) = s("client") {
            line(b"c", l.as_bytes());
        } else if let Some(l) = s("client_hex") {
            line(b"c", &hex(l));
        } else if let Some(n) = step["client_oversize"].as_u64() {
            line(b"o", n.to_string().as_bytes());
        } else if let Some(l) = s("upstream") {
            line(b"u", l.as_bytes());
        } else if let Some(l) = s("upstream_hex") {
            line(b"u", &hex(l));
        } else if let Some(n) = step["upstream_oversize"].as_u64() {
            line(b"O", n.to_string().as_bytes());
        } else if let Some(f) = step.get("upstream_failed") {
            let spec = match (f.get("exited"), f.get("killed"), f.get("spawn_failed")) {
                (Some(n), _, _) => format!("e{n}"),
                (_, Some(n), _) => format!("k{n}"),
                (_, _, Some(r)) => format!("s{}", r.as_str().unwrap()),
                _ => "c".to_string(),
            };
            line(b"f", spec.as_bytes());
        } else if step.get("expire").is_some() {
            line(b"e", b"");
        } else if let Some(t) = s("upstream_log") {
            line(b"l", t.as_bytes());
        } else if let Some(t) = s("upstream_stderr") {
            line(b"E", t.replace('\n', "~").as_bytes());
        } else if let Some(h) = s("upstream_stderr_hex") {
            let bytes: Vec<u8> = hex(h)
                .into_iter()
                .map(|b| if b == b'\n' { b'~' } else { b })
                .collect();
            line(b"E", &bytes);
        } else if step.get("upstream_stderr_end").is_some() {
            line(b"Z", b"");
        }
    }
    seeds.add("guard", name, h, &script);
}
