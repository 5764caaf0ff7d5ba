//! The script decoder: a payload's lines as session calls.

use arbitrary::{Arbitrary, Unstructured};
use jsonrpc_errors_guest::guard::UpstreamFailure;

use super::templates::{AnswerTemplate, IdChoice, Member, RequestTemplate};

pub enum Call<'a> {
    Client(&'a [u8]),
    Request(RequestTemplate),
    Batch(Vec<Member>),
    Cancel(u8),
    ClientAnswer(u8),
    ClientOversize(u64),
    Upstream(&'a [u8]),
    Answer(AnswerTemplate),
    Progress(u8),
    ServerRequest(IdChoice),
    UpstreamOversize(u64),
    Failed(UpstreamFailure),
    Expire,
    Clock(u64),
    Log(&'a [u8], Option<u8>),
    Stderr(Vec<u8>),
    StderrEnd,
    StderrSplit { secret: u8, cut: u8, bytes: Vec<u8> },
}

/// Stderr bytes as a script line spells them: `~` is a line break (a script line holds none).
fn stderr_bytes(spelled: &[u8]) -> Vec<u8> {
    spelled
        .iter()
        .map(|&b| if b == b'~' { b'\n' } else { b })
        .collect()
}

/// The calls of a script, in order.
pub fn script(payload: &[u8]) -> impl Iterator<Item = Call<'_>> {
    payload.split(|&b| b == b'\n').filter_map(call)
}

fn call(line: &[u8]) -> Option<Call<'_>> {
    let (&op, rest) = line.split_first()?;
    let number = || {
        std::str::from_utf8(rest)
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok())
            .unwrap_or(0)
    };
    let byte = || rest.first().copied().unwrap_or(0);
    let built = || Unstructured::new(rest);
    Some(match op {
        b'c' => Call::Client(rest),
        b'r' => Call::Request(RequestTemplate::arbitrary_take_rest(built()).ok()?),
        b'b' => Call::Batch(Vec::<Member>::arbitrary_take_rest(built()).ok()?),
        b'x' => Call::Cancel(byte()),
        b'S' => Call::ClientAnswer(byte()),
        b'o' => Call::ClientOversize(number() as u64),
        b'u' => Call::Upstream(rest),
        b'a' => Call::Answer(AnswerTemplate::arbitrary_take_rest(built()).ok()?),
        b'p' => Call::Progress(byte()),
        b's' => Call::ServerRequest(IdChoice::arbitrary_take_rest(built()).ok()?),
        b'O' => Call::UpstreamOversize(number() as u64),
        b'f' => Call::Failed(failure(rest)),
        b'e' => Call::Expire,
        b't' => Call::Clock(number() as u64),
        b'l' => Call::Log(rest, None),
        b'L' => Call::Log(rest.get(1..).unwrap_or_default(), Some(byte())),
        b'E' => Call::Stderr(stderr_bytes(rest)),
        b'Z' => Call::StderrEnd,
        b'K' => Call::StderrSplit {
            secret: byte(),
            cut: rest.get(1).copied().unwrap_or(0),
            bytes: stderr_bytes(rest.get(2..).unwrap_or_default()),
        },
        _ => return None,
    })
}

fn failure(spec: &[u8]) -> UpstreamFailure {
    let n = || {
        std::str::from_utf8(&spec[1..])
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
            .unwrap_or(0)
    };
    match spec.first() {
        Some(b'e') => UpstreamFailure::Exited(n()),
        Some(b'k') => UpstreamFailure::Killed(n()),
        Some(b's') => {
            UpstreamFailure::SpawnFailed(String::from_utf8_lossy(&spec[1..]).into_owned())
        }
        _ => UpstreamFailure::ClosedOutput,
    }
}
