// Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.

//! A session call's outcome read from the WIT's `session-outcome` record (the `*-outcome` calls) rather
//! than from its JSON text: the same `Outcome` either way (tests/typed_outcome.rs compares them on
//! generated lines), without the component writing JSON and the host parsing it again for every relayed
//! line. An enum the JSON gives by name is its name here (`name()`, generated in `schema.rs`). Written by
//! `xtask/src/outcomegen.rs`.

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
        wit::Step::Forward(r) => Step::Forward {
            to: peer(r.to),
            stream: r.stream,
        },
        wit::Step::Send(r) => Step::Send {
            to: peer(r.to),
            stream: r.stream,
            line: r.line,
        },
        wit::Step::Event(r) => Step::Event(Box::new(Event {
            event: r.event.name().into(),
            level: r.level.name().into(),
            kind: r.kind,
            code: r.code,
            category: r.category,
            gate: r.gate,
            correlation_id: r.correlation_id,
            id: r.id.and_then(json_value),
            method: r.method,
            detail: r.detail,
            rule: r.rule,
            tool: r.tool,
        })),
        wit::Step::End(r) => Step::End { stream: r.stream },
    }
}

fn peer(p: wit::Peer) -> Peer {
    match p {
        wit::Peer::Client => Peer::Client,
        wit::Peer::Upstream => Peer::Upstream,
    }
}

/// A `json-value` the component wrote as JSON text: `null` reads as absent, as the outcome's JSON reads
/// (serde's `Option<Value>`), and so does text it could not have written.
fn json_value(text: String) -> Option<serde_json::Value> {
    serde_json::from_str::<Option<serde_json::Value>>(&text)
        .ok()
        .flatten()
}
