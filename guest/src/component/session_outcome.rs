//! A session call's outcome as the WIT's `session-outcome` record (`client-line-outcome` and the other calls
//! that return the record itself): field for field what `Outcome::to_json` writes as text, so that a shell
//! reading the record and one reading the JSON see the same steps (host/tests/typed_outcome.rs compares them
//! on generated lines). A field added to a step's record fails to compile here until it is carried.

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
        Step::Event(e) => wit::Step::Event(event(*e)),
        Step::End { stream } => wit::Step::End(wit::EndStep { stream }),
    }
}

fn peer(p: Peer) -> wit::Peer {
    match p {
        Peer::Client => wit::Peer::Client,
        Peer::Upstream => wit::Peer::Upstream,
    }
}

fn event(e: Event) -> wit::EventStep {
    wit::EventStep {
        event: match e.event {
            EventName::Answered => wit::EventName::Answered,
            EventName::Sanitized => wit::EventName::Sanitized,
            EventName::Redacted => wit::EventName::Redacted,
            EventName::Repaired => wit::EventName::Repaired,
            EventName::Dropped => wit::EventName::Dropped,
            EventName::ClientCancelled => wit::EventName::ClientCancelled,
            EventName::UpstreamEnded => wit::EventName::UpstreamEnded,
            EventName::Blocked => wit::EventName::Blocked,
            EventName::Audited => wit::EventName::Audited,
        },
        // The session's levels are the taxonomy's `log_level` names, which are the WIT enum's cases; a name
        // outside them (none is written) reads as the loudest rather than vanish from the log.
        level: match e.level.as_str() {
            "debug" => wit::LogLevel::Debug,
            "info" => wit::LogLevel::Info,
            "warn" => wit::LogLevel::Warn,
            _ => wit::LogLevel::Error,
        },
        kind: e.kind,
        code: e.code,
        category: e.category,
        gate: e.gate,
        correlation_id: e.correlation_id,
        id: e.id.map(|id| id.to_string()),
        method: e.method,
        detail: e.detail,
        rule: e.rule,
        tool: e.tool,
    }
}
