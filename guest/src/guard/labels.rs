//! What an event may name as its `tool`: the shells count policy decisions by it
//! (`_policy_decisions_total{decision,rule,tool}` in the CLI), so it comes from a bounded set, never from
//! whatever a client wrote (each new name a new series: a client calling tools named at random grew the
//! operator's metrics without bound). A tool the policy names (an exact `[[tool]]`, or the glob that
//! matched it) or one the upstream listed in a `tools/list` result keeps its name; a method MCP defines
//! keeps its own; anything else is `other`, its name left to the event's detail (redacted and cut, as the log
//! shows any name a peer wrote). Every label is cut to [`LABEL_BYTES`].

use super::outcome::Event;
use super::steps::quoted;
use crate::message::{string_value, RawObject};
use serde_json::value::RawValue;

/// The longest label, in bytes (cut at a character boundary).
pub const LABEL_BYTES: usize = 64;

/// How many listed tool names are remembered: a server that lists more leaves the rest `other`.
pub const LISTED_TOOLS: usize = 1024;

/// The label of what names no known tool or method.
pub const OTHER: &str = "other";

/// The methods MCP defines (every revision's), which label themselves.
pub(super) const MCP_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/get",
    "prompts/list",
    "completion/complete",
    "logging/setLevel",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/message",
    "notifications/resources/updated",
    "notifications/resources/list_changed",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/roots/list_changed",
    "notifications/elicitation/complete",
    "notifications/subscriptions/acknowledged",
    "notifications/tasks/status",
];

/// The tool names the upstream listed, sorted (searched, not hashed: one more hash table instantiation costs
/// the npm module more than this).
#[derive(Default)]
pub struct Listed(Vec<String>);

impl Listed {
    /// Learns the names a successful `tools/list` result lists (`result.tools[].name`).
    pub fn learn(&mut self, result: &RawValue) {
        let Some(tools) = RawObject::of(result)
            .and_then(|r| r.get("tools"))
            .and_then(|t| serde_json::from_str::<Vec<&RawValue>>(t.get()).ok())
        else {
            return;
        };
        for tool in tools {
            if self.0.len() >= LISTED_TOOLS {
                return;
            }
            let Some(name) = RawObject::of(tool)
                .and_then(|t| t.get("name"))
                .and_then(string_value)
            else {
                continue;
            };
            if let Err(at) = self.0.binary_search(&name) {
                self.0.insert(at, name);
            }
        }
    }

    fn has(&self, name: &str) -> bool {
        self.0.binary_search_by(|n| n.as_str().cmp(name)).is_ok()
    }
}

/// `event.tool` made a label (see the module's doc); a name that becomes `other` goes to the detail.
pub fn bound_tool(event: &mut Event, listed: &Listed, policy: Option<&crate::policy::Compiled>) {
    let Some(tool) = event.tool.take() else {
        return;
    };
    let label = if listed.has(&tool) || MCP_METHODS.contains(&tool.as_str()) {
        Some(tool.clone())
    } else {
        policy.and_then(|p| p.tool_pattern(&tool))
    };
    let label = match label {
        Some(label) => cut(label),
        None => {
            let named = format!("tool {}", quoted(&tool));
            event.detail = Some(match event.detail.take() {
                Some(detail) => format!("{detail} ({named})"),
                None => named,
            });
            OTHER.to_string()
        }
    };
    event.tool = Some(label);
}

fn cut(mut label: String) -> String {
    if label.len() > LABEL_BYTES {
        let mut end = LABEL_BYTES;
        while !label.is_char_boundary(end) {
            end -= 1;
        }
        label.truncate(end);
    }
    label
}
