// Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.

//! A session call's outcome as the WIT's `session-outcome` record (`client-line-outcome` and the other
//! calls that return the record itself): field for field what `Outcome::to_json` writes as text, so that a
//! shell reading the record and one reading the JSON see the same steps (host/tests/typed_outcome.rs
//! compares them on generated lines). Written by `xtask/src/outcomegen.rs`.

use super::exports::jsonrpc_errors::core::guard as wit;
use crate::guard::{Event, EventName, Outcome, Peer, Step};

impl From<Outcome> for wit::SessionOutcome {
    fn from(o: Outcome) -> Self {
        wit::SessionOutcome {
            steps: o.steps.into_iter().map(step).collect(),
            pending: o.pending as u32,
            deadline: o.deadline,
        }
    }
}

fn step(s: Step) -> wit::Step {
    match s {
        Step::Forward { to, stream } => wit::Step::Forward(wit::ForwardStep {
            to: peer(to),
            stream,
        }),
        Step::Send { to, stream, line } => wit::Step::Send(wit::SendStep {
            to: peer(to),
            stream,
            line,
        }),
        Step::Event(r) => wit::Step::Event(event_step(*r)),
        Step::End { stream } => wit::Step::End(wit::EndStep { stream }),
    }
}

fn event_step(r: Event) -> wit::EventStep {
    wit::EventStep {
        event: event_name(r.event),
        level: log_level(&r.level),
        kind: r.kind,
        code: r.code,
        category: r.category,
        gate: r.gate,
        correlation_id: r.correlation_id,
        id: r.id.map(|v| v.to_string()),
        method: r.method,
        detail: r.detail,
        rule: r.rule,
        tool: r.tool,
    }
}

fn peer(v: Peer) -> wit::Peer {
    match v {
        Peer::Client => wit::Peer::Client,
        Peer::Upstream => wit::Peer::Upstream,
    }
}

fn event_name(v: EventName) -> wit::EventName {
    match v {
        EventName::Answered => wit::EventName::Answered,
        EventName::Sanitized => wit::EventName::Sanitized,
        EventName::Redacted => wit::EventName::Redacted,
        EventName::Repaired => wit::EventName::Repaired,
        EventName::Dropped => wit::EventName::Dropped,
        EventName::ClientCancelled => wit::EventName::ClientCancelled,
        EventName::UpstreamEnded => wit::EventName::UpstreamEnded,
        EventName::Blocked => wit::EventName::Blocked,
        EventName::Audited => wit::EventName::Audited,
    }
}

/// The case named `name`; a name outside the cases (none is written) reads as `error`, the first.
fn log_level(name: &str) -> wit::LogLevel {
    match name {
        "warn" => wit::LogLevel::Warn,
        "info" => wit::LogLevel::Info,
        "debug" => wit::LogLevel::Debug,
        _ => wit::LogLevel::Error,
    }
}
