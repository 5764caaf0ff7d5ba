//! The host library calls every function the WIT exports: a function added to wit/world.wit without a
//! `Runtime` method (or a guard `Session` method) fails here, as the Python and npm parity tests fail.

use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// The text between `header {` and its matching `}`.
fn block<'a>(text: &'a str, header: &str) -> &'a str {
    let start = text
        .find(&format!("{header} {{"))
        .unwrap_or_else(|| panic!("{header} not found"));
    let mut depth = 0;
    for (i, c) in text[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[start..start + i];
                }
            }
            _ => {}
        }
    }
    panic!("{header} is not closed")
}

/// `name: func(` at the start of a line.
fn functions(body: &str) -> Vec<String> {
    body.lines()
        .filter_map(|l| l.trim_start().split_once(": func("))
        .map(|(name, _)| name.to_string())
        .filter(|n| {
            n.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
        .collect()
}

#[test]
fn every_export_has_a_caller_in_the_host() {
    let wit = read("../wit/world.wit");
    let lib = read("src/lib.rs");
    let guard = read("src/guard.rs");
    let api = functions(block(&wit, "interface api"));
    assert!(
        api.len() >= 15,
        "only {} functions parsed: the parser is broken",
        api.len()
    );
    let mut missing: Vec<String> = api
        .iter()
        .map(|n| format!("call_{}(", n.replace('-', "_")))
        .filter(|call| !lib.contains(call.as_str()))
        .collect();
    let session = block(block(&wit, "interface guard"), "resource session");
    let methods = functions(session);
    assert!(
        session.contains("constructor(") && methods.len() >= 7,
        "parsed {methods:?}"
    );
    missing.extend(
        methods
            .iter()
            .map(|n| format!("call_{}(", n.replace('-', "_")))
            .chain(std::iter::once("call_constructor(".to_string()))
            .filter(|call| !guard.contains(call.as_str())),
    );
    assert!(
        missing.is_empty(),
        "WIT exports the host never calls: {missing:?}"
    );
}

/// The CLI's flag for each field of the WIT's `redaction-options`. A field added to the WIT fails here until
/// it is given one (and `host/src/main.rs` does not compile until it passes it: the generated
/// `RedactionOptions` has no `Default`).
const REDACT_FLAGS: &[(&str, &str)] = &[
    ("method", "--method"),
    // The key is read from an environment variable, never from the command line (where `ps` shows it).
    ("hash-key", "--hash-key-env"),
    ("disable", "--disable"),
    // A JSON file of rules.
    ("extra-rules", "--rules"),
    ("allowlist", "--allow"),
    ("allow-patterns", "--allow-pattern"),
    ("sensitive-keys", "--sensitive-key"),
];

/// `name: type,` fields of a record's body.
fn fields(body: &str) -> Vec<String> {
    body.lines()
        .skip(1)
        .filter_map(|l| l.trim().split_once(": "))
        .map(|(name, _)| name.to_string())
        .filter(|n| !n.starts_with("//"))
        .collect()
}

#[test]
fn every_redaction_option_has_a_cli_flag() {
    let wit = read("../wit/world.wit");
    let declared = fields(block(
        block(&wit, "interface types"),
        "record redaction-options",
    ));
    assert!(
        declared.len() >= 7 && declared.iter().any(|f| f == "allow-patterns"),
        "parsed {declared:?}: the parser is broken"
    );
    let mapped: Vec<&str> = REDACT_FLAGS.iter().map(|(f, _)| *f).collect();
    assert_eq!(
        declared, mapped,
        "redaction-options fields without a CLI flag (or flags for fields the WIT lost)"
    );
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_jsonrpc-errors"))
        .args(["redact", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let missing: Vec<&str> = REDACT_FLAGS
        .iter()
        .map(|(_, flag)| *flag)
        .filter(|flag| !help.contains(&format!("{flag} ")))
        .collect();
    assert!(missing.is_empty(), "`redact` lacks {missing:?}:\n{help}");
}

/// The CLI's flag for each field of the WIT's `validate-options`. A field added to the WIT fails here until
/// `validate` is given a flag for it (and `host/src/main.rs` names every field of the generated
/// `ValidateOptions`, so it does not compile until it passes it).
const VALIDATE_FLAGS: &[(&str, &str)] = &[
    ("max-bytes", "--max-bytes"),
    ("batch", "--batch"),
    ("content-type", "--content-type"),
    ("content-length", "--content-length"),
    ("dialect", "--dialect"),
];

#[test]
fn every_validate_option_has_a_cli_flag() {
    let wit = read("../wit/world.wit");
    let declared = fields(block(
        block(&wit, "interface types"),
        "record validate-options",
    ));
    assert!(
        declared.len() >= 5 && declared.iter().any(|f| f == "content-length"),
        "parsed {declared:?}: the parser is broken"
    );
    let mapped: Vec<&str> = VALIDATE_FLAGS.iter().map(|(f, _)| *f).collect();
    assert_eq!(
        declared, mapped,
        "validate-options fields without a CLI flag (or flags for fields the WIT lost)"
    );
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_jsonrpc-errors"))
        .args(["validate", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let missing: Vec<&str> = VALIDATE_FLAGS
        .iter()
        .map(|(_, flag)| *flag)
        .filter(|flag| !help.contains(&format!("{flag} ")))
        .collect();
    assert!(missing.is_empty(), "`validate` lacks {missing:?}:\n{help}");
}

/// A policy file that sets every `[defaults]` key (one per field of the WIT's `policy-defaults`).
const EVERY_DEFAULT: &str = "[defaults]\ndialect = \"mcp\"\ntimeout = 20\nmax_wait = 120\nmax_bytes = 1048576\nmax_upstream_bytes = 8388608\nbatch = \"reject\"\nfailed_result_bytes = 4096\n";

/// `check-policy`'s answer names every field of the WIT's `policy-defaults`, in its order, and the host's
/// generated `PolicyDefaults` reads each (a member it lacks is refused: `deny_unknown_fields`) and writes them
/// back byte for byte (a field it keeps that the WIT lost would show). A field a shell does not read is the
/// class pinned, as for the options above.
#[test]
fn every_policy_default_reaches_the_host() {
    let wit = read("../wit/world.wit");
    let declared: Vec<String> = fields(block(
        block(&wit, "interface guard"),
        "record policy-defaults",
    ))
    .iter()
    .map(|f| f.replace('-', "_"))
    .collect();
    assert!(
        declared.len() >= 7 && declared.iter().any(|f| f == "max_wait_ms"),
        "parsed {declared:?}: the parser is broken"
    );
    let runtime = jsonrpc_errors_host::Runtime::new(Vec::new()).unwrap();
    let answer = runtime.check_policy(EVERY_DEFAULT, &[]).unwrap();
    let members: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&answer).unwrap();
    assert_eq!(
        members.keys().collect::<Vec<_>>(),
        declared.iter().collect::<Vec<_>>(),
        "check-policy's answer is not the WIT's policy-defaults"
    );
    let unset: Vec<&String> = members
        .iter()
        .filter(|(_, v)| v.is_null())
        .map(|(k, _)| k)
        .collect();
    assert!(
        unset.is_empty(),
        "EVERY_DEFAULT does not set {unset:?}: give the new field its key"
    );
    let read = jsonrpc_errors_host::guard::PolicyDefaults::from_json(&answer)
        .unwrap_or_else(|e| panic!("the host's PolicyDefaults cannot read {answer}: {e}"));
    assert_eq!(
        serde_json::to_string(&read).unwrap(),
        answer,
        "the host's PolicyDefaults does not hold every field"
    );
}

/// The cases of the WIT variant `name` in `interface guard`, in order.
fn variant_cases(wit: &str, name: &str) -> Vec<String> {
    block(block(wit, "interface guard"), &format!("variant {name}"))
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .map(|l| l.split(['(', ',']).next().unwrap().to_string())
        .collect()
}

/// A session with request 1 pending: what `call` makes of it, as JSON text.
fn answer_with_one_pending(
    rt: &jsonrpc_errors_host::Runtime,
    call: jsonrpc_errors_host::guard::Call<'_>,
) -> String {
    use jsonrpc_errors_host::guard::{Call, Options, SessionCalls};
    use jsonrpc_errors_host::Context;
    let ctx = Context {
        unix_millis: 1_767_225_600_000,
        entropy: 42,
    };
    let mut session = rt
        .guard_session(&Options {
            dialect: Some("canonical".into()),
            upstream: "http://upstream/mcp".into(),
            ..Options::default()
        })
        .unwrap();
    let request = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#;
    session
        .outcome_json(Call::ClientLine(request), ctx)
        .unwrap();
    session.outcome_json(call, ctx).unwrap()
}

/// Every case of `upstream-failure` and `request-failure` (and every field of the `http-refusal` a case
/// carries) reaches the component from the host, and changes its answer: the host passes wasmtime's bindings
/// of them (`guard::UpstreamFailure`, `guard::RequestFailure`, `guard::HttpRefusal`), not a copy that could
/// lose a case. The matches below are exhaustive: a case added to the WIT does not compile until it is here.
#[test]
fn every_failure_case_the_wit_declares_reaches_the_component() {
    use jsonrpc_errors_host::guard::{Call, HttpRefusal, RequestFailure, UpstreamFailure};
    fn upstream_case(f: &UpstreamFailure) -> &'static str {
        match f {
            UpstreamFailure::SpawnFailed(_) => "spawn-failed",
            UpstreamFailure::Exited(_) => "exited",
            UpstreamFailure::Killed(_) => "killed",
            UpstreamFailure::ClosedOutput => "closed-output",
        }
    }
    fn request_case(f: &RequestFailure) -> &'static str {
        match f {
            RequestFailure::Unreachable(_) => "unreachable",
            RequestFailure::Refused(HttpRefusal {
                status: _,
                retry_after_secs: _,
            }) => "refused",
            RequestFailure::SessionGone => "session-gone",
        }
    }
    let wit = read("../wit/world.wit");
    let rt = jsonrpc_errors_host::Runtime::new(Vec::new()).unwrap();

    // Exited and killed with the same number: a shell that told one as the other would answer the same.
    let upstream = [
        UpstreamFailure::SpawnFailed("no such file".into()),
        UpstreamFailure::Exited(9),
        UpstreamFailure::Killed(9),
        UpstreamFailure::ClosedOutput,
    ];
    let cases: Vec<&str> = upstream.iter().map(upstream_case).collect();
    assert_eq!(cases, variant_cases(&wit, "upstream-failure"));
    let mut answers: Vec<String> = upstream
        .iter()
        .map(|f| answer_with_one_pending(&rt, Call::UpstreamFailed(f)))
        .collect();
    answers.sort();
    answers.dedup();
    assert_eq!(
        answers.len(),
        upstream.len(),
        "cases answered alike: {answers:#?}"
    );

    // Each field of the record a case carries changes the answer too (`retry_after_secs` given or not).
    let request = [
        RequestFailure::Unreachable("connection reset".into()),
        RequestFailure::Refused(HttpRefusal {
            status: 429,
            retry_after_secs: None,
        }),
        RequestFailure::Refused(HttpRefusal {
            status: 429,
            retry_after_secs: Some(7),
        }),
        RequestFailure::Refused(HttpRefusal {
            status: 503,
            retry_after_secs: Some(7),
        }),
        RequestFailure::SessionGone,
    ];
    let mut cases: Vec<&str> = request.iter().map(request_case).collect();
    cases.dedup();
    assert_eq!(cases, variant_cases(&wit, "request-failure"));
    let mut answers: Vec<String> = request
        .iter()
        .map(|f| {
            answer_with_one_pending(
                &rt,
                Call::UpstreamRequestFailed {
                    id: "1",
                    failure: f,
                },
            )
        })
        .collect();
    answers.sort();
    answers.dedup();
    assert_eq!(
        answers.len(),
        request.len(),
        "cases answered alike: {answers:#?}"
    );
}
