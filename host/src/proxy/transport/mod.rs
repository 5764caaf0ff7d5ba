//! The upstream a relay guards, behind one seam: a child process on pipes ([`process`]: the server the guard
//! starts itself) or a server at a URL ([`http`]: MCP's Streamable HTTP in both eras, and the legacy
//! HTTP+SSE transport). The relay core ([`super::core`]) hands a transport the lines the session sends
//! upstream and takes its [`Report`]s; it never knows which transport it drives. What a transport reports
//! goes to the same guard session whatever carried it: a line is a line, an upstream that can no longer
//! answer is `upstream-failed`, and (over HTTP, where each request is an exchange of its own) one request
//! that got no answer is `upstream-request-failed`, so every decision about a message stays the component's.

pub mod http;
pub mod process;
mod report;

use super::metrics::Metrics;
pub use report::{Ended, Exit, Handle, Report, StartFailed};
use std::sync::Arc;
use tokio::sync::mpsc;

/// Which upstream a relay guards, and how it is reached.
#[derive(Clone)]
pub enum Spec {
    /// A command the guard starts and talks to over its stdin and stdout.
    Process(process::Spec),
    /// A server at a URL.
    Http(Arc<http::Spec>),
}

impl Spec {
    /// How long the upstream gets to finish once the relay stops it (a child to exit after its stdin
    /// closes, and after SIGTERM where there is one; open HTTP exchanges to end).
    pub fn grace(&self) -> std::time::Duration {
        match self {
            Spec::Process(p) => p.grace,
            Spec::Http(h) => h.grace,
        }
    }
}

/// Starts the upstream `spec` names; what it reports goes to `reports`.
pub fn start(
    spec: &Spec,
    reports: mpsc::Sender<Report>,
    metrics: Arc<Metrics>,
) -> Result<Handle, StartFailed> {
    match spec {
        Spec::Process(spec) => process::start(spec, reports, metrics),
        Spec::Http(spec) => http::start(spec.clone(), reports, metrics),
    }
}

/// What the guard itself sends the upstream that may be a credential (none for a child): the session
/// redacts it wherever the upstream reflects it.
pub fn credentials(spec: &Spec) -> Vec<String> {
    match spec {
        Spec::Process(_) => Vec::new(),
        Spec::Http(spec) => spec.credentials.clone(),
    }
}

/// The name an upstream goes by in errors and logs (the session's `upstream` option): a child's program, or
/// a server's URL with no userinfo, query or fragment (they may carry credentials).
pub fn display_name(spec: &Spec) -> String {
    match spec {
        Spec::Process(spec) => process::display_name(&spec.command),
        Spec::Http(spec) => spec.url.shown(),
    }
}
