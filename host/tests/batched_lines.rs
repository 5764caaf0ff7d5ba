//! Several lines in one component call (`SessionCalls::outcomes`: `lines-outcome`, what the relay makes for
//! the lines it read in one turn) give what one call per line gives (`SessionCalls::outcome`): two sessions fed
//! the same generated sequence, one line by line, one in generated batches (an oversize line alone between
//! them, as the relay takes it), return equal outcomes line for line (the same lines forwarded and sent, in
//! the same order, the same events) and are left in the same state (what `expire` answers at the end).

use jsonrpc_errors_host::guard::{Call, Options, Outcome, SessionCalls};
use jsonrpc_errors_host::{Context, Runtime};
use proptest::prelude::*;
use std::sync::OnceLock;

fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        Runtime::new(vec![(
            "API_TOKEN".into(),
            "sk-live-0123456789abcdef0123".into(),
        )])
        .expect("the component")
    })
}

/// What a relay reads: a line from the client (on a stream, or not) or from the upstream, or one too long to
/// keep (its ends only).
#[derive(Debug, Clone)]
enum Read {
    Client(Vec<u8>),
    ClientOn(u64, Vec<u8>),
    Upstream(Vec<u8>),
    ClientOversize(Vec<u8>),
    UpstreamOversize(Vec<u8>),
}

impl Read {
    fn call(&self) -> Call<'_> {
        match self {
            Read::Client(l) => Call::ClientLine(l),
            Read::ClientOn(stream, l) => Call::ClientLineOn {
                stream: *stream,
                line: l,
            },
            Read::Upstream(l) => Call::UpstreamLine(l),
            Read::ClientOversize(head) => Call::ClientOversize {
                length: 20_000_000,
                head,
                tail: b"}",
            },
            Read::UpstreamOversize(head) => Call::UpstreamOversize {
                length: 90_000_000,
                head,
                tail: b"}",
            },
        }
    }

    fn is_line(&self) -> bool {
        !matches!(self, Read::ClientOversize(_) | Read::UpstreamOversize(_))
    }
}

fn id() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0u32..8).prop_map(|n| n.to_string()),
        1 => "[a-c]{1,2}".prop_map(|s| format!("\"{s}\"")),
        1 => Just("null".to_string()),
    ]
}

fn text() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "fine",
        "token sk-live-0123456789abcdef0123 leaked",
        "mail bob@example.com",
        "AKIAIOSFODNN7EXAMPLE",
    ])
}

/// A message of either side: requests (some the responses answer, some not), notifications (progress,
/// cancellations), results and errors (to known and unknown ids), and lines that are no message.
fn message() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (id(), prop::sample::select(vec!["tools/call", "tools/list", "ping", "initialize", "sampling/createMessage"]))
            .prop_map(|(id, m)| format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"{m}","params":{{"name":"bench__x","_meta":{{"progressToken":{id}}}}}}}"#
            )),
        1 => (id(), text()).prop_map(|(id, t)| format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{id},"progress":1,"message":"{t}"}}}}"#
        )),
        1 => id().prop_map(|id| format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
        )),
        3 => (id(), text(), any::<bool>()).prop_map(|(id, t, failed)| format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{t}"}}],"isError":{failed}}}}}"#
        )),
        2 => (id(), text()).prop_map(|(id, t)| format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32000,"message":"{t}"}}}}"#
        )),
        1 => prop::sample::select(vec!["", "not json", "[]", "42", "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}"])
            .prop_map(str::to_string),
    ]
}

fn line_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => message().prop_map(String::into_bytes),
        1 => (message(), message()).prop_map(|(a, b)| format!("[{a},{b}]").into_bytes()),
        1 => message().prop_map(|m| {
            let mut b = m.into_bytes();
            b.insert(b.len() / 2, 0xff);
            b
        }),
    ]
}

fn read() -> impl Strategy<Value = Read> {
    prop_oneof![
        6 => line_bytes().prop_map(Read::Client),
        1 => (0u64..3, line_bytes()).prop_map(|(s, l)| Read::ClientOn(s, l)),
        6 => line_bytes().prop_map(Read::Upstream),
        1 => message().prop_map(|m| Read::ClientOversize(m.into_bytes())),
        1 => message().prop_map(|m| Read::UpstreamOversize(m.into_bytes())),
    ]
}

/// The context the `k`th line of one `lines-outcome` call is taken with (the WIT's contract: the guest's
/// `CallContext::line`), for the calls one line at a time to be given what the batch gives each line.
fn line_ctx(ctx: Context, k: usize) -> Context {
    let c = jsonrpc_errors_guest::context::CallContext {
        unix_millis: ctx.unix_millis,
        entropy: ctx.entropy,
    }
    .line(k as u64);
    Context {
        unix_millis: c.unix_millis,
        entropy: c.entropy,
    }
}

/// The outcomes of `reads` taken in turns of `turns[k]` reads each (cycled), the clock moving on per turn, an
/// oversize read alone as the relay takes it: each turn's run of lines in one `outcomes` call when `batched`,
/// else one call per line with the context the batch gives it; then what `expire` answers a day later (every
/// request still waiting: the state the lines left).
fn outcomes(options: &Options, reads: &[Read], turns: &[usize], batched: bool) -> Vec<Outcome> {
    let mut session = runtime().guard_session(options).expect("a session");
    let mut out = Vec::new();
    let mut at = 0usize;
    for (n, size) in turns.iter().cycle().enumerate() {
        if at >= reads.len() {
            break;
        }
        let ctx = Context {
            unix_millis: 1_700_000_000_000 + n as u64 * 5,
            entropy: 0x5eed + n as u64,
        };
        let turn = &reads[at..(at + size).min(reads.len())];
        at += turn.len();
        for group in turn.chunk_by(|a, b| a.is_line() && b.is_line()) {
            if !group[0].is_line() {
                out.push(session.outcome(group[0].call(), ctx).expect("an outcome"));
            } else if batched {
                let calls: Vec<Call<'_>> = group.iter().map(Read::call).collect();
                out.extend(session.outcomes(&calls, ctx).expect("outcomes"));
            } else {
                for (k, r) in group.iter().enumerate() {
                    out.push(
                        session
                            .outcome(r.call(), line_ctx(ctx, k))
                            .expect("an outcome"),
                    );
                }
            }
        }
    }
    let later = Context {
        unix_millis: 1_700_086_400_000,
        entropy: 1,
    };
    out.push(session.outcome(Call::Expire, later).expect("an outcome"));
    out
}

fn same_outcomes(options: &Options, reads: &[Read], turns: &[usize]) -> Result<(), TestCaseError> {
    let one_by_one = outcomes(options, reads, turns, false);
    let batched = outcomes(options, reads, turns, true);
    prop_assert_eq!(one_by_one.len(), batched.len(), "as many outcomes");
    for (n, (a, b)) in one_by_one.iter().zip(&batched).enumerate() {
        prop_assert_eq!(a, b, "outcome {} (read {:?})", n, reads.get(n));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn lines_taken_several_per_call_give_what_one_call_per_line_gives(
        reads in prop::collection::vec(read(), 1..48),
        turns in prop::collection::vec(1usize..24, 1..6),
    ) {
        same_outcomes(&Options::default(), &reads, &turns)?;
    }

    #[test]
    fn under_a_policy_that_rewrites_blocks_and_audits_too(
        reads in prop::collection::vec(read(), 1..48),
        turns in prop::collection::vec(1usize..24, 1..6),
    ) {
        let options = Options {
            policy: Some(
                "[redaction]\nscopes = [\"errors\", \"results\", \"requests\"]\n\n[actions]\nemail = \"audit\"\naws-access-key-id = \"block\"\n"
                    .into(),
            ),
            batch: Some(jsonrpc_errors_host::guard::BatchPolicy::Allow),
            ..Options::default()
        };
        same_outcomes(&options, &reads, &turns)?;
    }
}

/// What the comparison stands on: a batch is each line's own outcome, outcomes swapped are told apart, and
/// each line's answers have correlation ids of their own (with one context for the whole call, a bad line's
/// answer and the next line's rewritten error shared theirs).
#[test]
fn a_batch_gives_each_line_its_own_outcome_and_correlation_ids() {
    use jsonrpc_errors_host::guard::Step;
    let reads = [
        Read::Client(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#.to_vec()),
        Read::Client(b"not json".to_vec()),
        Read::Upstream(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"token sk-live-0123456789abcdef0123"}}"#.to_vec()),
        Read::Upstream(br#"{"jsonrpc":"2.0","id":9,"result":{}}"#.to_vec()),
    ];
    let one_by_one = outcomes(&Options::default(), &reads, &[4], false);
    let batched = outcomes(&Options::default(), &reads, &[4], true);
    assert_eq!(one_by_one, batched);
    let mut swapped = batched.clone();
    swapped.swap(0, 1);
    assert_ne!(one_by_one, swapped, "the outcomes differ line to line");
    let ids: Vec<&str> = batched
        .iter()
        .flat_map(|o| &o.steps)
        .filter_map(|s| match s {
            Step::Event(e) => e.correlation_id.as_deref(),
            _ => None,
        })
        .collect();
    assert_eq!(
        ids.len(),
        2,
        "the bad line's answer and the rewritten error: {batched:?}"
    );
    assert_ne!(
        ids[0], ids[1],
        "each line's answer has its own correlation id"
    );
}
