//! A session call's outcome read from the WIT's `session-outcome` record (the `*-outcome` calls) rather than
//! from its JSON text: the same `Outcome` either way (tests/typed_outcome.rs compares them on generated lines),
//! without the component writing JSON and the host parsing it again for every relayed line.

use super::schema::{Event, Outcome, Peer, Step};
use crate::exports::jsonrpc_errors::core::guard as wit;

impl From<wit::SessionOutcome> for Outcome {
    fn from(o: wit::SessionOutcome) -> Self {
        Outcome {
            steps: o.steps.into_iter().map(step).collect(),
            pending: o.pending as usize,
            deadline: o.deadline,
        }
    }
}

fn step(s: wit::Step) -> Step {
    match s {
        wit::Step::Forward(f) => Step::Forward {
            to: peer(f.to),
            stream: f.stream,
        },
        wit::Step::Send(s) => Step::Send {
            to: peer(s.to),
            stream: s.stream,
            line: s.line,
        },
        wit::Step::Event(e) => Step::Event(Box::new(event(e))),
        wit::Step::End(e) => Step::End { stream: e.stream },
    }
}

fn peer(p: wit::Peer) -> Peer {
    match p {
        wit::Peer::Client => Peer::Client,
        wit::Peer::Upstream => Peer::Upstream,
    }
}

/// The event with its enums by name, as the JSON names them (the log and the metrics read names): the names
/// are generated from the WIT (`schema.rs`).
fn event(e: wit::EventStep) -> Event {
    Event {
        event: e.event.name().into(),
        level: e.level.name().into(),
        kind: e.kind,
        code: e.code,
        category: e.category,
        gate: e.gate,
        correlation_id: e.correlation_id,
        // The component writes an id as JSON text; `null` reads as absent, as the outcome's JSON reads (serde's
        // `Option<Value>`), and so does text it could not have written.
        id: e
            .id
            .and_then(|text| serde_json::from_str::<Option<serde_json::Value>>(&text).ok())
            .flatten(),
        method: e.method,
        detail: e.detail,
        rule: e.rule,
        tool: e.tool,
    }
}
