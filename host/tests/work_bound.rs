//! Redaction's work is linear in its input whatever the input holds: measured in wasmtime fuel (instructions
//! executed by the component, deterministic), not in wall time. For every rule, text made of nothing but
//! that rule's keyword lines (the shape that opens the most windows: repeated PEM headers, stack-trace
//! headers, assignment keys) must cost at most a bounded amount per byte, and twice the text at most about
//! twice the fuel.

use jsonrpc_errors_host::JsonrpcErrors;
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, Store};

struct Metered {
    store: Store<()>,
    api: JsonrpcErrors,
}

impl Metered {
    fn new() -> Self {
        let mut config = Config::new();
        config.wasm_component_model(true);
        config.consume_fuel(true);
        let engine = Engine::new(&config).unwrap();
        let component = Component::new(&engine, jsonrpc_errors_host::COMPONENT).unwrap();
        let mut store = Store::new(&engine, ());
        store.set_fuel(u64::MAX).unwrap();
        let api =
            JsonrpcErrors::instantiate(&mut store, &component, &Linker::new(&engine)).unwrap();
        let mut m = Metered { store, api };
        m.fuel("warm up: compile every rule's regex -----BEGIN RSA PRIVATE KEY----- Traceback password=x");
        m
    }

    /// Fuel one `redact` call consumes.
    fn fuel(&mut self, text: &str) -> u64 {
        let before = self.store.get_fuel().unwrap();
        self.api
            .jsonrpc_errors_core_api()
            .call_redact(&mut self.store, text)
            .unwrap();
        before - self.store.get_fuel().unwrap()
    }
}

/// Text of about `bytes` bytes made of `unit` repeated.
fn repeated(unit: &str, bytes: usize) -> String {
    unit.repeat(bytes / unit.len() + 1)
}

/// Adversarial units: keyword-dense lines for the multi-line rules and a few line-based ones.
const UNITS: &[(&str, &str)] = &[
    (
        "pem: repeated BEGIN lines",
        "-----BEGIN RSA PRIVATE KEY-----\n",
    ),
    (
        "pem: BEGIN lines with a body line",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n",
    ),
    (
        "pem: BEGIN lines on one line",
        "-----BEGIN RSA PRIVATE KEY----- ",
    ),
    (
        "pem: escaped BEGIN lines",
        "-----BEGIN PRIVATE KEY-----\\nMIIE\\n",
    ),
    (
        "python: repeated headers",
        "Traceback (most recent call last):\n",
    ),
    (
        "python: headers with a frame",
        "Traceback (most recent call last):\n  File \"a.py\", line 1\n",
    ),
    ("java: frames", "\tat com.acme.Foo.bar(Foo.java:12)\n"),
    ("js: frames", "    at handler (/srv/app/index.js:10:5)\n"),
    ("rust: repeated headers", "stack backtrace:\n"),
    ("go: repeated headers", "goroutine 1 [running]:\n"),
    ("assignments on one line", "password=x token=y "),
    ("urls", "https://u:p@h/ "),
    ("e-mail: one word of dotted parts and @", "a.b@c.d1-"),
];

/// A text of about `n` bytes in some shape.
type Shape = fn(usize) -> String;

/// Fails unless each shape costs the same fuel per byte at 50,000 bytes as at 25,000 (within 30%): a scan
/// that reads bytes again as the text grows costs more per byte each time the text doubles.
fn assert_linear_in_length(m: &mut Metered, shapes: &[(&str, Shape)]) {
    let mut failures = Vec::new();
    for &(name, text) in shapes {
        let (small, large) = (text(25_000), text(50_000));
        let (f_small, f_large) = (m.fuel(&small), m.fuel(&large));
        let growth = (f_large as f64 / large.len() as f64) / (f_small as f64 / small.len() as f64);
        println!(
            "{name}: {:.0} fuel/byte, growth x{growth:.2} per byte when doubled",
            f_large as f64 / large.len() as f64
        );
        if growth > 1.3 {
            failures.push(format!(
                "{name}: cost per byte grew {growth:.2}x when the text doubled"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One e-mail-shaped word as long as the text: the e-mail rule's step program backtracks over a domain's
/// labels, and its opening run could start again at every word boundary of a dotted local part (without
/// the skip past a run already read, `a.a.a.…@` cost grew with the square of its length).
#[test]
fn one_long_address_shaped_word_costs_linear_fuel() {
    let mut m = Metered::new();
    let shapes: [(&str, Shape); 3] = [
        ("a dotted local part", |n| format!("{}@b", "a.".repeat(n))),
        ("a domain of many labels and no top level", |n| {
            format!("x@{}1", "b.".repeat(n))
        }),
        ("labels too long for a top level", |n| {
            format!("x@{}", "abcdefghijklmnopqrstuvwxyz.".repeat(n / 13))
        }),
    ];
    assert_linear_in_length(&mut m, &shapes);
}

/// One assignment whose key or value is as long as the text, in the shapes where the assignment rule's step
/// program could read the same bytes again and again: a key's identifier tried from each of its starts (a
/// run of letters, of dotted parts), a value's `${` or `{{` opened at every byte and never closed, escapes
/// in a quoted value. Linear only because the program remembers runs, lazy runs and failed repetitions.
#[test]
fn one_long_assignment_costs_linear_fuel() {
    let mut m = Metered::new();
    let shapes: [(&str, Shape); 7] = [
        ("a key of one run of letters", |n| {
            format!("{}password=hunter2", "a".repeat(n))
        }),
        ("a key of dotted parts", |n| {
            format!("{}apassword=hunter2", "a_".repeat(n / 2))
        }),
        ("a key of parts and no secret key", |n| {
            format!("{}_token=x", "a_b.".repeat(n / 4))
        }),
        ("a value of unclosed ${", |n| {
            format!("password={}", "${".repeat(n / 2))
        }),
        ("a value of unclosed {{", |n| {
            format!("password={}", "{{".repeat(n / 2))
        }),
        ("a value of ${ and spaces", |n| {
            format!("password=x{}", "${a ".repeat(n / 4))
        }),
        ("a quoted value of escapes", |n| {
            format!("password=\"{}", "\\\"".repeat(n / 3))
        }),
    ];
    assert_linear_in_length(&mut m, &shapes);
}

#[test]
fn keyword_dense_text_costs_linear_fuel_for_every_rule() {
    let mut m = Metered::new();
    let benign = repeated(
        "2026-11-21T10:02:14Z INFO request 42 took 12ms (ok)\n",
        200_000,
    );
    let benign_per_byte = m.fuel(&benign) as f64 / benign.len() as f64;
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for (name, unit) in UNITS {
        let small = repeated(unit, 100_000);
        let large = repeated(unit, 200_000);
        let (f_small, f_large) = (m.fuel(&small), m.fuel(&large));
        let per_byte = f_large as f64 / large.len() as f64;
        let growth = (f_large as f64 / large.len() as f64) / (f_small as f64 / small.len() as f64);
        report.push(format!("{name}: {per_byte:.0} fuel/byte ({:.1}x benign), growth x{growth:.2} per byte when doubled", per_byte / benign_per_byte));
        // Linear: doubling the text must not raise the cost per byte (a quadratic scan doubles it).
        if growth > 1.3 {
            failures.push(format!(
                "{name}: cost per byte grew {growth:.2}x when the text doubled"
            ));
        }
        // Bounded constant: no shape may cost more than a fixed multiple of ordinary log text per byte.
        if per_byte > 400.0 * benign_per_byte {
            failures.push(format!(
                "{name}: {per_byte:.0} fuel per byte, {:.0}x ordinary text",
                per_byte / benign_per_byte
            ));
        }
    }
    println!(
        "benign: {benign_per_byte:.0} fuel/byte\n{}",
        report.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{}\n\n{}",
        failures.join("\n"),
        report.join("\n")
    );
}

/// One long word with no space in it, made of a rule's keyword glued again and again: every hit lies in the
/// same word or identifier, the shape where a look back from each hit to its word's or identifier's start
/// made `authorization_authorization_…` quadratic (0.2 s for 100 KB natively).
#[test]
fn one_long_word_of_repeated_keywords_costs_linear_fuel_for_every_rule() {
    let mut m = Metered::new();
    let mut failures = Vec::new();
    let mut worst = (0.0f64, String::new());
    for rule in jsonrpc_errors_guest::redact::catalogue_rules() {
        let Some(keyword) = rule.keywords.first() else {
            continue;
        };
        for glue in ["_", "-a.", "=a&"] {
            let unit = format!("{keyword}{glue}");
            let small = repeated(&unit, 50_000);
            let large = repeated(&unit, 100_000);
            let (f_small, f_large) = (m.fuel(&small), m.fuel(&large));
            let growth =
                (f_large as f64 / large.len() as f64) / (f_small as f64 / small.len() as f64);
            if growth > worst.0 {
                worst = (growth, format!("{} {unit:?}", rule.id));
            }
            if growth > 1.3 {
                failures.push(format!(
                    "{} {unit:?}: cost per byte grew {growth:.2}x when the text doubled",
                    rule.id
                ));
            }
        }
    }
    println!(
        "worst growth per byte when doubled: x{:.2} ({})",
        worst.0, worst.1
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One word as long as the text, made of one printable character (or a character and a separator a rule's
/// classes take) over and over: where a pattern repeats a class and then a wider one (`A{20,}[A-Za-z0-9%]{50,}`),
/// a run the two share can be split between them at any byte, and regex-lite's PikeVM carries one thread per
/// possible split through every byte. Linear still, but with a constant no rule may have: a run of `A`s cost
/// 19,000 fuel per byte (186x ordinary text, the next worst character 10x) before that pattern was written
/// `A{20}[…]{50,}`.
#[test]
fn a_long_run_of_one_character_costs_a_bounded_amount_per_byte() {
    let mut m = Metered::new();
    let benign = repeated(
        "2026-11-21T10:02:14Z INFO request 42 took 12ms (ok)\n",
        100_000,
    );
    let benign_per_byte = m.fuel(&benign) as f64 / benign.len() as f64;
    let mut units: Vec<String> = (0x21u8..0x7f).map(|c| (c as char).to_string()).collect();
    for separator in ["-", ".", "_", "/", "%", "=", "+"] {
        units.extend(["A", "a", "1"].map(|c| format!("{c}{separator}")));
    }
    let mut costs: Vec<(f64, String)> = Vec::new();
    let mut failures = Vec::new();
    for unit in &units {
        let (small, large) = (repeated(unit, 25_000), repeated(unit, 50_000));
        let (f_small, f_large) = (m.fuel(&small), m.fuel(&large));
        let per_byte = f_large as f64 / large.len() as f64;
        let growth = per_byte / (f_small as f64 / small.len() as f64);
        if growth > 1.3 {
            failures.push(format!(
                "{unit:?}: cost per byte grew {growth:.2}x when the text doubled"
            ));
        }
        // The worst single characters cost about 10x ordinary text (runs of digits and letters every
        // token rule's class takes); a shared run split at every byte cost 186x.
        if per_byte > 25.0 * benign_per_byte {
            failures.push(format!(
                "{unit:?}: {per_byte:.0} fuel per byte, {:.0}x ordinary text",
                per_byte / benign_per_byte
            ));
        }
        costs.push((per_byte / benign_per_byte, unit.clone()));
    }
    costs.sort_by(|a, b| b.0.total_cmp(&a.0));
    let worst: Vec<String> = costs
        .iter()
        .take(6)
        .map(|(x, u)| format!("{u:?} {x:.1}x"))
        .collect();
    println!(
        "benign: {benign_per_byte:.0} fuel/byte; worst runs: {}",
        worst.join(", ")
    );
    assert!(
        failures.is_empty(),
        "{}\nworst runs: {}",
        failures.join("\n"),
        worst.join(", ")
    );
}

/// The decoders (rule `encoded-secret`): text that is all base64, base64url or hex runs, percent escapes
/// (once or twice) or character references, of ordinary log text and of keyword-dense text, costs a bounded
/// amount per byte and stays linear. Every run is decoded once per level and each level scans at most what
/// the one above decoded (a fixed depth), so encoded ordinary text costs a few times ordinary text: at most
/// 25x per byte, the bound no input class may pass; encoded keyword-dense text at most what keyword-dense
/// text itself may cost (400x).
#[test]
fn encoded_text_costs_a_bounded_amount_per_byte() {
    let mut m = Metered::new();
    let line = "2026-11-21T10:02:14Z INFO request 42 took 12ms (ok)\n";
    let benign = repeated(line, 100_000);
    let benign_per_byte = m.fuel(&benign) as f64 / benign.len() as f64;
    let b64 = |s: &str| base64(s.as_bytes(), b"+/", true);
    let b64url = |s: &str| base64(s.as_bytes(), b"-_", false);
    let hex = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    let percent = |s: &str| s.bytes().map(|b| format!("%{b:02X}")).collect::<String>();
    let entities = |s: &str| s.bytes().map(|b| format!("&#{b};")).collect::<String>();
    let dense = "password=hunter2 token=Zq8vR2mXw4LkP0aB ";
    // (name, unit, bound in multiples of ordinary text per byte)
    let units: Vec<(String, String, f64)> = vec![
        (
            "one base64 line per log line".into(),
            format!("data: {}\n", b64(line)),
            25.0,
        ),
        (
            "one base64url line per log line".into(),
            format!("{}\n", b64url(line)),
            25.0,
        ),
        (
            "one hex line per log line".into(),
            format!("{}\n", hex(line)),
            25.0,
        ),
        (
            "a log line percent-encoded".into(),
            format!("{}\n", percent(line)),
            25.0,
        ),
        (
            "a log line percent-encoded twice".into(),
            format!("{}\n", percent(&percent(line))),
            25.0,
        ),
        (
            "a log line as character references".into(),
            format!("{}\n", entities(line)),
            25.0,
        ),
        (
            "short base64 runs".into(),
            "aGVsbG8gd29ybGQgaGk= ".into(),
            25.0,
        ),
        (
            "random base64 runs".into(),
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ".into(),
            25.0,
        ),
        ("lone escapes".into(), "100% of %zz &x; &#; ".into(), 25.0),
        (
            "keyword-dense text as base64".into(),
            format!("{}\n", b64(dense)),
            400.0,
        ),
        (
            "keyword-dense text percent-encoded".into(),
            format!("{}\n", percent(dense)),
            400.0,
        ),
    ];
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for (name, unit, bound) in &units {
        let (small, large) = (repeated(unit, 100_000), repeated(unit, 200_000));
        let (f_small, f_large) = (m.fuel(&small), m.fuel(&large));
        let per_byte = f_large as f64 / large.len() as f64;
        let growth = per_byte / (f_small as f64 / small.len() as f64);
        report.push(format!(
            "{name}: {per_byte:.0} fuel/byte ({:.1}x ordinary text), growth x{growth:.2} per byte when doubled",
            per_byte / benign_per_byte
        ));
        if growth > 1.3 {
            failures.push(format!(
                "{name}: cost per byte grew {growth:.2}x when the text doubled"
            ));
        }
        if per_byte > bound * benign_per_byte {
            failures.push(format!(
                "{name}: {:.1}x ordinary text per byte (bound {bound}x)",
                per_byte / benign_per_byte
            ));
        }
    }
    println!(
        "benign: {benign_per_byte:.0} fuel/byte\n{}",
        report.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{}\n\n{}",
        failures.join("\n"),
        report.join("\n")
    );
}

/// Base64 with the two last characters of its alphabet given (`+/` or `-_`), padded or not.
fn base64(bytes: &[u8], last: &[u8; 2], pad: bool) -> String {
    let alphabet: Vec<u8> = (b'A'..=b'Z')
        .chain(b'a'..=b'z')
        .chain(b'0'..=b'9')
        .chain(last.iter().copied())
        .collect();
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
