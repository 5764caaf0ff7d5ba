//! A guard session (`api::guard_session`) driven by a fuzzed script of calls (see `jsonrpc_errors_fuzz::guard`
//! for the script's lines).
//!
//! Header: dialect, batch policy, the call context (time and entropy; step i gets entropy + i), and flags:
//!   bit 0  a timeout: number 0 modulo 120 s (bit 1: number 0 as it is)
//!   bit 2  max_bytes: number 1 modulo 8192 (bit 3: number 1 as it is)
//!
//! Properties, after every call (the model in `jsonrpc_errors_fuzz::guard`): every request forwarded gets at
//! most one answer, and one exactly when the upstream answers it, fails, or its deadline passes (nothing is
//! dropped unanswered, nothing answered that is not owed); a request id in flight is never forwarded again;
//! no line written holds a newline, every line written is JSON, every outcome is JSON; `pending` never
//! exceeds the requests forwarded nor the answers owed; after `upstream_failed` nothing is pending, every
//! request has its answer, and nothing more goes upstream; after `expire` no deadline has passed; a
//! deadline is reported exactly when a timeout is set and something is pending; a secret planted in an
//! upstream answer or log reaches neither the client nor the operator's log, also when the upstream's stderr
//! brings it in two pieces cut anywhere.

#![no_main]

use jsonrpc_errors_fuzz::guard::{batch_line, key, script, Call, Model, Origin};
use jsonrpc_errors_fuzz::header::Header;
use jsonrpc_errors_fuzz::{secrets, text};
use jsonrpc_errors_guest::api;
use jsonrpc_errors_guest::context::CallContext;
use jsonrpc_errors_guest::guard::{Outcome, Peer, Session, Step};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: secrets::install_environment(), |data: &[u8]| {
    let (h, payload) = Header::split(data);
    let timeout = h.flag(0).then(|| if h.flag(1) { h.number(0) } else { h.number(0) % 120_000 });
    let max_bytes = h.flag(2).then(|| if h.flag(3) { h.number(1) } else { h.number(1) % 8192 });
    let args = api::SessionArgs { dialect: Some(h.dialect().into()), max_bytes, batch: Some(h.batch().into()), timeout_ms: timeout, upstream: "stdio:server".into(), ..Default::default() };
    let mut session = match api::guard_session(args) {
        Ok(s) => s,
        Err(e) => {
            let valid = h.dialect_is_valid() && (h.batch() == "reject" || h.batch() == "allow");
            assert!(!valid, "guard_session refused valid options: {}", api::error_json(&e));
            secrets::assert_no_leak(&api::error_json(&e), "guard_session's refusal");
            return;
        }
    };
    let base = h.ctx();
    let mut now = base.unix_millis;
    let mut model = Model::new(timeout.is_some());
    // Whether the fuzzer wrote secret material into a client line: events may quote the client (a request's
    // method and id), so from then on a planted secret is no case for the leak check (see `secrets`).
    let mut client_wrote_secret = false;
    // The same for upstream lines: a batch's answer array holds the answers of earlier upstream lines, so once
    // the fuzzer wrote secret material into one, a later call's output can carry it with no leak.
    let mut upstream_wrote_secret = false;
    for (i, call) in script(payload).enumerate() {
        let ctx = CallContext { unix_millis: now, entropy: base.entropy.wrapping_add(i as u64) };
        match call {
            Call::Client(line) => client(&mut session, &mut model, &mut client_wrote_secret, line, ctx),
            Call::Request(t) => client(&mut session, &mut model, &mut client_wrote_secret, t.line().as_bytes(), ctx),
            Call::Batch(members) => client(&mut session, &mut model, &mut client_wrote_secret, batch_line(&members).as_bytes(), ctx),
            Call::Cancel(n) => {
                let Some(id) = pick(&model.ids, n) else { continue };
                let line = format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"user"}}}}"#);
                client(&mut session, &mut model, &mut client_wrote_secret, line.as_bytes(), ctx);
            }
            Call::ClientAnswer(n) => {
                let Some(id) = pick(&model.server_ids, n) else { continue };
                let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
                client(&mut session, &mut model, &mut client_wrote_secret, line.as_bytes(), ctx);
            }
            Call::ClientOversize(n) => {
                let out = session.client_oversize(n, b"", b"", ctx);
                model.check(&Origin::ClientOversize, &out, None);
            }
            Call::Upstream(line) => {
                upstream_wrote_secret |= secrets::leak_in(line).is_some();
                upstream(&mut session, &mut model, line, ctx, None, None)
            }
            Call::Answer(t) => {
                let id = pick(&model.ids, t.pick).unwrap_or_else(|| (t.pick % 8).to_string());
                let secret = t.plant.map(|s| secrets::secret(s, true));
                let line = t.line(&id, secret);
                // The answer is owed to the client when its request is waiting, whatever the spelling of its id
                // (`"é"` and `"\u00e9"` are one id). Not for an id
                // null: a response with a null id answers no request (JSON-RPC reserves it for requests whose
                // id could not be read), so the guard cannot match it.
                let k = key(&id);
                let expect = (t.answers() && k != "null")
                    .then(|| model.expectation(&k).map(|alone| (k, alone)))
                    .flatten();
                let fuzzer_wrote_secret = match secret {
                    Some(s) => secrets::leak_in(line.replacen(&format!(" {s} "), "", 1).as_bytes()).is_some(),
                    None => secrets::leak_in(line.as_bytes()).is_some(),
                };
                upstream_wrote_secret |= fuzzer_wrote_secret;
                let planted = secret.filter(|_| !client_wrote_secret && !upstream_wrote_secret);
                upstream(&mut session, &mut model, line.as_bytes(), ctx, expect, planted);
            }
            Call::Progress(n) => {
                let Some(token) = pick(&model.tokens, n) else { continue };
                let line = format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1,"total":2}}}}"#);
                upstream(&mut session, &mut model, line.as_bytes(), ctx, None, None);
            }
            Call::ServerRequest(id) => {
                let line = format!(r#"{{"jsonrpc":"2.0","id":{},"method":"sampling/createMessage","params":{{}}}}"#, id.text());
                upstream(&mut session, &mut model, line.as_bytes(), ctx, None, None);
            }
            Call::UpstreamOversize(n) => {
                let out = session.upstream_oversize(n, b"", b"", ctx);
                model.check(&Origin::UpstreamOversize, &out, None);
            }
            Call::Failed(f) => {
                let out = session.upstream_failed(f, ctx);
                model.check(&Origin::Failed, &out, None);
            }
            Call::Expire => {
                let out = session.expire(ctx);
                model.check(&Origin::Expire(now), &out, None);
            }
            Call::Clock(offset) => now = base.unix_millis.saturating_add(offset),
            Call::Log(bytes, plant) => {
                let fuzzed = text(bytes);
                match plant {
                    Some(n) if secrets::leak_in(fuzzed.as_bytes()).is_none() => {
                        let planted = secrets::plant(fuzzed.as_bytes(), fuzzed.len() / 2, secrets::secret(n, true));
                        let log = session.upstream_log(&String::from_utf8(planted).expect("planted at a boundary"));
                        secrets::assert_no_leak(&log, "the operator's log of upstream stderr");
                    }
                    _ => {
                        session.upstream_log(&fuzzed);
                    }
                }
            }
            Call::Stderr(bytes) => {
                session.upstream_stderr(&bytes, false);
            }
            Call::StderrEnd => {
                session.upstream_stderr(&[], true);
            }
            Call::StderrSplit { secret, cut, bytes } => {
                // What an earlier call left unfinished is logged first: the planted secret starts clean.
                session.upstream_stderr(&[], true);
                if secrets::leak_in(&bytes).is_none() {
                    let planted = secrets::plant(&bytes, bytes.len() / 2, secrets::secret(secret, true));
                    let at = planted.len() * cut as usize / 256;
                    let mut log = session.upstream_stderr(&planted[..at], false);
                    log += &session.upstream_stderr(&planted[at..], false);
                    log += &session.upstream_stderr(&[], true);
                    secrets::assert_no_leak(&log, "the operator's log of upstream stderr given in two pieces");
                }
            }
        }
    }
});

/// The `n`-th of `list` (modulo its length).
fn pick(list: &[String], n: u8) -> Option<String> {
    (!list.is_empty()).then(|| list[n as usize % list.len()].clone())
}

fn client(
    session: &mut Session,
    model: &mut Model,
    client_wrote_secret: &mut bool,
    line: &[u8],
    ctx: CallContext,
) {
    *client_wrote_secret |= secrets::leak_in(line).is_some();
    let out = session.client_line(line, ctx);
    model.check(&Origin::Client(line), &out, None);
}

fn upstream(
    session: &mut Session,
    model: &mut Model,
    line: &[u8],
    ctx: CallContext,
    expect: Option<(String, bool)>,
    planted: Option<&str>,
) {
    let out = session.upstream_line(line, ctx);
    if planted.is_some() {
        assert_no_leak(&out, line);
    }
    model.check(&Origin::Upstream(line), &out, expect);
}

/// Nothing the call wrote (to the client, or to the operator's log) holds the planted secret.
fn assert_no_leak(out: &Outcome, line: &[u8]) {
    for step in &out.steps {
        match step {
            Step::Forward {
                to: Peer::Client, ..
            } => secrets::assert_no_leak(&text(line), "an upstream line passed on as it is"),
            Step::Send {
                to: Peer::Client,
                line,
                ..
            } => secrets::assert_no_leak(line, "a line to the client"),
            _ => {}
        }
    }
    secrets::assert_no_leak(
        &out.to_json(),
        "the outcome (events for the operator's log)",
    );
}
