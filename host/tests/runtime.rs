//! The host's own promises: no imports, precompiled start, trap recovery, threads, size caps, the CLI.

use jsonrpc_errors_host::guard::{Call, SessionCalls};
use jsonrpc_errors_host::{Context, Runtime, ValidateOptions};
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;

#[test]
fn the_component_imports_nothing() {
    let rt = Runtime::new(vec![]).unwrap();
    assert_eq!(rt.component_imports(), Vec::<String>::new());
}

#[test]
fn the_embedded_component_is_precompiled() {
    assert!(Runtime::new(vec![]).unwrap().is_precompiled(), "the .cwasm built by `cargo xtask component` was not embedded or did not load: it is embedded only when \
         target/component/jsonrpc-errors.wasm is the component this build made from the guest (run `cargo xtask component` \
         after changing the guest)");
}

#[test]
fn the_compile_fallback_produces_the_same_answers() {
    let compiled = Runtime::from_bytes(jsonrpc_errors_host::COMPONENT, vec![]).unwrap();
    let pre = Runtime::new(vec![]).unwrap();
    let input = r#"{"kind":"rate-limited","retry_after_secs":3,"correlation_id":"c"}"#;
    assert_eq!(
        compiled.map_error(input, "canonical", Context::default()),
        pre.map_error(input, "canonical", Context::default())
    );
}

#[test]
fn a_trap_answers_internal_error_and_the_next_call_gets_a_fresh_instance() {
    // 16 MiB of linear memory cannot hold the copies a 12 MiB redaction needs: the guest's allocation fails,
    // which aborts (traps) inside wasm.
    let rt = Runtime::new(vec![])
        .unwrap()
        .with_memory_limit(16 * 1024 * 1024);
    let warm = rt.redact("warm up").unwrap();
    assert_eq!(warm.text, "warm up");
    assert_eq!(rt.idle_instances(), 1);
    let big = "password=hunter2 ".repeat(12 * 1024 * 1024 / 17);
    let err = rt.redact(&big).unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str(), err.data.as_deref()),
        (-32603, "Internal error", None)
    );
    assert_eq!(rt.idle_instances(), 0, "the trapped instance was discarded");
    assert_eq!(
        rt.redact("token=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d")
            .unwrap()
            .text,
        "token=[REDACTED:github-token]"
    );
}

#[test]
fn one_runtime_serves_many_threads_with_identical_results() {
    let rt = Arc::new(Runtime::new(vec![]).unwrap());
    let input =
        r#"{"kind":"upstream-error","message":"at /home/alice/x","correlation_id":"c","id":1}"#;
    let expected = rt
        .map_error(input, "thoughtgate", Context::default())
        .unwrap();
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let rt = Arc::clone(&rt);
            std::thread::spawn(move || {
                (0..500)
                    .map(|_| {
                        rt.map_error(input, "thoughtgate", Context::default())
                            .unwrap()
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap().iter().all(|r| *r == expected));
    }
    assert!(rt.idle_instances() <= 8);
}

#[test]
fn oversize_input_never_enters_wasm() {
    let rt = Runtime::new(vec![]).unwrap();
    let body = vec![b' '; 2048];
    let options = ValidateOptions {
        max_bytes: Some(1024),
        ..Default::default()
    };
    let out = rt.validate(&body, &options, Context::default()).unwrap();
    assert!(out.contains(r#""reason":"oversize""#), "{out}");
    // The limit is the guest's (the taxonomy's max_input_bytes), and so is the refusal's wording.
    let limit = jsonrpc_errors_guest::taxonomy::taxonomy()
        .meta
        .max_input_bytes as usize;
    assert_eq!(rt.max_input_bytes(), limit);
    let huge = "a".repeat(limit + 1);
    let err = rt.redact(&huge).unwrap_err();
    assert_eq!(err.code, -32600);
    let want = jsonrpc_errors_guest::api::refusal(jsonrpc_errors_guest::api::Refusal::TooLarge(
        limit as u64 + 1,
    ));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(err.data.as_deref().unwrap()).unwrap(),
        want.data.unwrap()
    );
}

/// A guard session refuses an oversize line, stderr piece or log text as every other call does (the guest's
/// own refusal), before it is copied in; the session goes on.
#[test]
fn a_guard_session_refuses_oversize_input_as_every_call_does() {
    let rt = Runtime::new(vec![]).unwrap();
    let mut session = rt
        .guard_session(&jsonrpc_errors_host::guard::Options::default())
        .unwrap();
    let limit = rt.max_input_bytes();
    let want = jsonrpc_errors_guest::api::refusal(jsonrpc_errors_guest::api::Refusal::TooLarge(
        limit as u64 + 1,
    ));
    let huge = vec![b' '; limit + 1];
    let text = " ".repeat(limit + 1);
    let refusals = [
        session
            .outcome_json(Call::ClientLine(&huge), Context::default())
            .unwrap_err(),
        session
            .outcome_json(Call::UpstreamLine(&huge), Context::default())
            .unwrap_err(),
        session.upstream_stderr(&huge).unwrap_err(),
        session.upstream_log(&text).unwrap_err(),
    ];
    for err in refusals {
        assert_eq!(err.code, -32600);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(err.data.as_deref().unwrap()).unwrap(),
            *want.data.as_ref().unwrap()
        );
    }
    let request = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    assert!(session
        .outcome_json(Call::ClientLine(request), Context::default())
        .unwrap()
        .contains(r#""pending":1"#));
}

#[test]
fn the_host_default_size_limit_is_the_taxonomy_default() {
    let rt = Runtime::new(vec![]).unwrap();
    let limit = jsonrpc_errors_guest::taxonomy::taxonomy()
        .meta
        .default_max_bytes as usize;
    let at = vec![b' '; limit];
    let over = vec![b' '; limit + 1];
    assert!(!rt
        .validate(&at, &ValidateOptions::default(), Context::default())
        .unwrap()
        .contains("oversize"));
    assert!(rt
        .validate(&over, &ValidateOptions::default(), Context::default())
        .unwrap()
        .contains("oversize"));
}

fn cli(args: &[&str], stdin: &str, env: &[(&str, &str)]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_jsonrpc-errors"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn cli_redact_passes_allow_patterns_and_sensitive_keys() {
    let text = "mail bob@example.com and alice@example.com";
    let (code, out, err) = cli(
        &["redact", "--no-env", "--allow-pattern", r"bob@example\.com"],
        text,
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "mail bob@example.com and [REDACTED:email]");
    let (code, out, err) = cli(
        &[
            "redact",
            "--no-env",
            "--json-doc",
            "--sensitive-key",
            "ticket",
        ],
        r#"{"ticket":"plain words","note":"fine"}"#,
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_ne!(doc["value"]["ticket"], "plain words", "{out}");
    assert_eq!(doc["value"]["note"], "fine", "{out}");
    let (code, _, err) = cli(&["redact", "--allow-pattern", "[unclosed"], "x", &[]);
    assert_eq!(code, 1);
    assert!(err.contains("allow pattern 0 does not compile"), "{err}");
}

#[test]
fn cli_map_renders_the_dialect() {
    let (code, out, _) = cli(
        &["map", "--dialect", "thoughtgate"],
        r#"{"kind":"tool-not-exposed","tool":"admin_delete","id":1,"correlation_id":"abc-123"}"#,
        &[],
    );
    assert_eq!(code, 0);
    assert_eq!(out, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32015,\"message\":\"Tool 'admin_delete' is not available\",\"data\":{\"correlation_id\":\"abc-123\",\"gate\":\"visibility\",\"tool\":\"admin_delete\"}},\"id\":1}\n");
}

#[test]
fn cli_bad_input_is_a_message_and_a_nonzero_exit() {
    let (code, out, err) = cli(&["map"], "{not json", &[]);
    assert_eq!(code, 1);
    assert!(err.contains("not valid JSON"), "{err}");
    assert!(out.contains("\"code\":-32602"), "{out}");
    let (code, _, err) = cli(
        &["map", "--dialect", "klingon"],
        r#"{"kind":"timeout"}"#,
        &[],
    );
    assert_eq!(code, 1);
    assert!(err.contains("unknown dialect"), "{err}");
}

#[test]
fn cli_usage_errors_exit_2() {
    let (code, _, err) = cli(&["frobnicate"], "", &[]);
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = cli(&["validate", "--batch", "sometimes"], "", &[]);
    assert_eq!(code, 2);
}

#[test]
fn cli_redact_scrubs_its_own_secret_environment_unless_told_not_to() {
    let env = [("DEPLOY_TOKEN", "dpl-7c1e9b2a44f0")];
    let (_, out, _) = cli(&["redact"], "sent dpl-7c1e9b2a44f0 upstream", &env);
    assert_eq!(out, "sent [REDACTED:env-value] upstream");
    let (_, out, _) = cli(
        &["redact", "--no-env"],
        "sent dpl-7c1e9b2a44f0 upstream",
        &env,
    );
    assert_eq!(out, "sent dpl-7c1e9b2a44f0 upstream");
    let (_, out, _) = cli(&["redact", "--json"], "mail bob@corp.example", &[]);
    assert_eq!(out, "{\"text\":\"mail [REDACTED:email]\",\"findings\":[{\"rule\":\"email\",\"category\":\"pii\",\"start\":5,\"end\":21}]}\n");
}

#[test]
fn cli_validate_and_sanitize() {
    let (code, out, _) = cli(
        &["validate"],
        r#"{"jsonrpc":"2.0","method":"ping","id":"a"}"#,
        &[],
    );
    assert_eq!(
        (code, out.as_str()),
        (0, "{\"valid\":true,\"id\":\"a\",\"method\":\"ping\"}\n")
    );
    let (_, out, _) = cli(
        &["validate", "--max-bytes", "8"],
        r#"{"jsonrpc":"2.0","method":"ping","id":"a"}"#,
        &[],
    );
    assert!(
        out.contains("\"reason\":\"oversize\"") && out.contains("\"id\":null"),
        "{out}"
    );
    let (_, out, _) = cli(&["validate", "--content-type", "text/html"], "{}", &[]);
    assert!(out.contains("unsupported-content-type"), "{out}");
    let (_, out, _) = cli(
        &["sanitize", "--dialect", "thoughtgate"],
        r#"{"jsonrpc":"2.0","error":{"code":-32005,"message":"failed for ann@corp.example"},"id":4}"#,
        &[],
    );
    assert!(
        out.contains("-32002") && out.contains("[REDACTED:email]") && !out.contains("ann@"),
        "{out}"
    );
}

#[test]
fn cli_explain_lookup_and_codes() {
    let (code, out, _) = cli(&["explain", "-32001", "--dialect", "a2a"], "", &[]);
    assert_eq!(code, 0);
    assert!(out.contains("\"kind\":\"task-not-found\""), "{out}");
    let (_, out, _) = cli(
        &[
            "lookup",
            "-32000",
            "--dialect",
            "vapora",
            "--message",
            "Unknown skill: x",
        ],
        "",
        &[],
    );
    assert!(out.contains("\"kind\":\"unknown-skill\""), "{out}");
    let (_, out, _) = cli(&["codes", "--dialect", "watchgate"], "", &[]);
    assert!(out.contains("| -32000 | `security-violation` |"), "{out}");
    let (code, _, _) = cli(&["explain", "-32015", "--dialect", "duet"], "", &[]);
    assert_eq!(code, 1);
}

#[test]
fn cli_redact_methods_options_and_json_documents() {
    let token = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
    let (_, out, _) = cli(&["redact", "--method", "mask"], &format!("t={token}"), &[]);
    assert_eq!(out, format!("t={}", "*".repeat(token.len())));
    let (code, _, err) = cli(&["redact", "--method", "hash"], token, &[]);
    assert_eq!(code, 1, "hash without a key is refused");
    assert!(err.contains("hash_key"), "{err}");
    let (_, out, _) = cli(
        &["redact", "--method", "hash", "--hash-key-env", "K"],
        token,
        &[("K", "0123456789abcdef0123")],
    );
    assert!(
        out.starts_with("[REDACTED:github-token:") && !out.contains(token),
        "{out}"
    );
    let (_, out, _) = cli(
        &["redact", "--disable", "pii"],
        "mail bob@corp.example",
        &[],
    );
    assert_eq!(out, "mail bob@corp.example");
    let (_, out, _) = cli(
        &["redact", "--json-doc"],
        r#"{"password":"hunter2","note":"mail bob@corp.example"}"#,
        &[],
    );
    assert_eq!(
        out,
        "{\"value\":{\"password\":\"[REDACTED:sensitive-key]\",\"note\":\"mail [REDACTED:email]\"},\"findings\":[{\"rule\":\"sensitive-key\",\"category\":\"credential\",\"path\":\"/password\",\"start\":0,\"end\":7},{\"rule\":\"email\",\"category\":\"pii\",\"path\":\"/note\",\"start\":5,\"end\":21}]}\n"
    );
    let dir = std::env::temp_dir().join(format!("jre-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = dir.join("rules.json");
    std::fs::write(&rules, r#"[{"id":"acme-key","category":"token","keywords":["acme_"],"pattern":"acme_[a-z0-9]{16}"}]"#).unwrap();
    let (_, out, _) = cli(
        &["redact", "--rules", rules.to_str().unwrap()],
        "k=acme_0123456789abcdef",
        &[],
    );
    assert_eq!(out, "k=[REDACTED:acme-key]");
    std::fs::write(&rules, r#"[{"id":"bad","category":"token","pattern":"("}]"#).unwrap();
    let (code, _, err) = cli(&["redact", "--rules", rules.to_str().unwrap()], "x", &[]);
    assert_eq!(code, 1);
    assert!(err.contains("does not compile"), "{err}");
}

/// Whatever the caller typed comes back scrubbed, from every subcommand and from the argument parser itself:
/// a secret given as a dialect name, an option value or a file name never reaches stdout or stderr.
#[test]
fn cli_messages_that_echo_caller_input_are_scrubbed() {
    let secret = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
    let with_dialect: [&[&str]; 6] = [
        &["map", "--dialect", secret],
        &["validate", "--dialect", secret],
        &["sanitize", "--dialect", secret],
        &["explain", "-32000", "--dialect", secret],
        &["lookup", "-32000", "--dialect", secret],
        &["codes", "--dialect", secret],
    ];
    for args in with_dialect {
        let (code, out, err) = cli(args, "{}", &[]);
        assert_eq!(code, 1, "{args:?}");
        let doc: serde_json::Value =
            serde_json::from_str(out.trim()).unwrap_or_else(|_| panic!("{args:?}: {out}"));
        assert_eq!(doc["data"]["reason"], "unknown-dialect", "{args:?}");
        assert!(
            !out.contains(secret) && !err.contains(secret),
            "{args:?}: {out} {err}"
        );
    }
    for args in [
        &["redact", "--method", secret][..],
        &["validate", "--batch", secret],
        &["codes", "--format", secret],
        &[secret],
    ] {
        let (code, out, err) = cli(args, "", &[]);
        assert_eq!(code, 2, "{args:?}");
        assert!(
            !out.contains(secret) && !err.contains(secret),
            "{args:?}: {err}"
        );
    }
    let missing = format!("/tmp/{secret}/rules.json");
    let (code, _, err) = cli(&["redact", "--rules", &missing], "x", &[]);
    assert_eq!(code, 1);
    assert!(err.contains("--rules") && !err.contains(secret), "{err}");
    let (code, _, err) = cli(&["guard", "--dialect", secret, "--", "true"], "", &[]);
    assert_eq!(code, 2);
    assert!(!err.contains(secret), "{err}");
}

/// Bytes that are not UTF-8 are bad input like any other: the guest's error object on stdout, exit 1.
#[test]
fn cli_text_subcommands_refuse_non_utf8_with_the_json_error() {
    for args in [&["map"][..], &["redact"], &["redact", "--json-doc"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_jsonrpc-errors"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"{\"kind\":\"timeout\",\"x\":\"\xff\"}")
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["data"]["reason"], "not-unicode", "{args:?}");
        assert_eq!(
            doc["data"]["details"],
            "input is not valid Unicode (at offset 23)"
        );
    }
}

#[test]
fn cli_lookup_with_data_that_is_not_json_is_refused() {
    let (code, out, _) = cli(
        &["lookup", "-32000", "--dialect", "vapora", "--data", "{bad"],
        "",
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        out.contains("\"code\":-32602") && out.contains("not-json"),
        "{out}"
    );
}

#[test]
fn the_typed_map_error_answers_as_the_json_form_does() {
    use jsonrpc_errors_host::kinds::{MethodNotFoundFields, RateLimitedFields};
    use jsonrpc_errors_host::{ErrorKind, RequestMeta};
    let rt = Runtime::new(vec![]).unwrap();
    let ctx = Context {
        unix_millis: 1_767_225_600_000,
        entropy: 7,
    };
    let meta = RequestMeta {
        id_json: Some("\"r-1\"".into()),
        correlation_id: Some("c-1".into()),
        timestamp: None,
        dialect_fields_json: None,
    };
    for dialect in ["canonical", "watchgate", "mcp", "error-model"] {
        let typed = rt.map_error_kind(
            &ErrorKind::MethodNotFound(MethodNotFoundFields {
                method: "tools/frobnicate".into(),
            }),
            &meta,
            dialect,
            ctx,
        );
        let json = rt.map_error(r#"{"kind":"method-not-found","method":"tools/frobnicate","id":"r-1","correlation_id":"c-1"}"#, dialect, ctx);
        assert_eq!(typed, json, "{dialect}");
    }
    let typed = rt
        .map_error_kind(
            &ErrorKind::RateLimited(RateLimitedFields {
                retry_after_secs: Some(3),
            }),
            &meta,
            "canonical",
            ctx,
        )
        .unwrap();
    assert!(typed.contains(r#""retry_after_secs":3"#), "{typed}");
    // The dialect's generic fields travel beside the typed record.
    let with_generic = RequestMeta {
        dialect_fields_json: Some(r#"{"suggestion":"Wait.","context":{"region":"eu"}}"#.into()),
        ..meta.clone()
    };
    let typed = rt.map_error_kind(&ErrorKind::Timeout, &with_generic, "error-model", ctx);
    let json = rt.map_error(r#"{"kind":"timeout","id":"r-1","correlation_id":"c-1","suggestion":"Wait.","context":{"region":"eu"}}"#, "error-model", ctx);
    assert_eq!(typed, json);
    assert!(typed.unwrap().contains(r#""suggestion":"Wait.""#));
    let not_object = RequestMeta {
        dialect_fields_json: Some("[1]".into()),
        ..meta.clone()
    };
    assert_eq!(
        rt.map_error_kind(&ErrorKind::Timeout, &not_object, "error-model", ctx)
            .unwrap_err()
            .code,
        -32602
    );
    let unknown = rt
        .map_error_kind(&ErrorKind::Timeout, &meta, "jsonrpc-3", ctx)
        .unwrap_err();
    assert_eq!(
        (unknown.code, unknown.message.as_str()),
        (-32602, "Invalid params")
    );
}

/// A guard session given an environment redacts its secret-looking values from what it logs; a session
/// given none keeps the runtime's (here: none).
#[test]
fn a_guard_session_redacts_the_environment_it_was_given() {
    let rt = Runtime::new(vec![]).unwrap();
    let secret = "h0st-session-env-5e1f0a93c7";
    let line = format!("upstream auth with {secret}\n");
    let mut own = rt
        .guard_session(&jsonrpc_errors_host::guard::Options {
            environment: Some(vec![("UPSTREAM_API_TOKEN".into(), secret.into())]),
            ..Default::default()
        })
        .unwrap();
    let logged = own.upstream_stderr(line.as_bytes()).unwrap();
    assert!(
        !logged.contains(secret) && logged.contains("upstream auth with"),
        "{logged}"
    );
    let mut plain = rt
        .guard_session(&jsonrpc_errors_host::guard::Options::default())
        .unwrap();
    assert!(plain
        .upstream_stderr(line.as_bytes())
        .unwrap()
        .contains(secret));
}

/// A dialect name outside the dialect enum cannot cross the typed boundary: the generated `to_wit` of the
/// guard's and of validate's options reads it through the runtime's check, which refuses it with the guest's
/// own error (`unknown-dialect`, as every runtime refuses it), and no session opens.
#[test]
fn an_unknown_dialect_name_is_refused_with_the_guests_error_before_the_boundary() {
    let rt = Runtime::new(vec![]).unwrap();
    let reason = |e: jsonrpc_errors_host::ErrorObject| {
        let data: serde_json::Value = serde_json::from_str(e.data.as_deref().unwrap()).unwrap();
        (e.code, data["reason"].as_str().unwrap().to_string())
    };
    let options = jsonrpc_errors_host::guard::Options {
        dialect: Some("klingon".into()),
        ..Default::default()
    };
    let Err(e) = rt.guard_session(&options) else {
        panic!("a session opened under an unknown dialect");
    };
    assert_eq!(reason(e), (-32602, "unknown-dialect".to_string()));
    let options = ValidateOptions {
        dialect: "klingon".into(),
        ..Default::default()
    };
    let e = rt
        .validate(b"{}", &options, Context::default())
        .unwrap_err();
    assert_eq!(reason(e), (-32602, "unknown-dialect".to_string()));
    // A known name opens the session, and the session reports it.
    let options = jsonrpc_errors_host::guard::Options {
        dialect: Some("mcp".into()),
        ..Default::default()
    };
    let mut session = rt.guard_session(&options).unwrap();
    assert_eq!(session.settings().unwrap().dialect, "mcp");
}
