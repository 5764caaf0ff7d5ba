//! What a transport and the relay core tell each other: the reports a transport makes, how it finished, and
//! the relay's handle on it.

use crate::proxy::io::{Budget, Outgoing, Read};
use jsonrpc_errors_host::guard::{RequestFailure, UpstreamFailure};
use std::process::ExitStatus;
use std::time::Instant;
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit};

/// What a transport tells the relay, in the order it happened.
pub enum Report {
    /// A message from the upstream (a line of a child's stdout; one JSON or SSE message over HTTP), with when
    /// it was read and the read budget it holds until it is written.
    Line(Read, Instant, Option<OwnedSemaphorePermit>),
    /// Bytes of a child's stderr, for the operator's log (redacted by the session).
    Stderr(Vec<u8>),
    /// A child's stderr reached its end.
    StderrClosed,
    /// Text about the upstream for the operator's log, whole lines (redacted by the session: a transport's
    /// error may quote what the upstream sent).
    Log(String),
    /// The upstream stopped taking what is written to it (a child that closed its stdin).
    WriteFailed(std::io::Error),
    /// One request got no answer (an HTTP upstream: each request is an exchange of its own), named by its id as
    /// the upstream was sent it (JSON text). The upstream is still there for the next one.
    RequestFailed { id: String, failure: RequestFailure },
    /// One request's response ended with nothing more to come (an A2A agent closed its event stream), named
    /// as for `RequestFailed`: the session settles a streaming request, or answers one still owed its answer.
    ExchangeEnded { id: String },
    /// The upstream can no longer answer: the session answers every pending request, and every later one.
    Gone(UpstreamFailure),
    /// The transport has finished (a child exited and was reaped; an HTTP upstream's session was closed):
    /// nothing more comes.
    Ended(Ended),
}

/// How a transport finished.
pub struct Ended {
    /// The guard's exit status for a stdio session.
    pub code: u8,
    pub exit: Exit,
}

/// How a relay's upstream ended.
pub enum Exit {
    /// The child process exited with this status.
    Upstream(ExitStatus),
    /// The connection to a server at a URL was closed by the guard (its client left, or it was retired).
    Remote,
    /// The upstream could not be started.
    SpawnFailed,
    /// The relay itself failed (its policy, waiting for the process) before the upstream's end was known.
    Failed,
}

/// The relay's side of a running transport.
pub struct Handle {
    /// Lines for the upstream, each one JSON-RPC message; dropping it ends what is written to the upstream.
    pub lines: mpsc::UnboundedSender<Outgoing>,
    /// Fired (or dropped) when the relay stops the upstream: its client left, the front retired the relay, a
    /// signal, the session failed. The transport then ends as MCP's shutdown has it for its kind.
    pub close: oneshot::Sender<()>,
    /// The budget the transport reads the upstream against: a line holds it until it is written, and what
    /// the guard writes because of an upstream line is charged to it too.
    pub budget: Budget,
}

/// Why a transport did not start.
pub enum StartFailed {
    /// The upstream could not be started: the session is told (`gone`), and the relay answers every request
    /// until its client leaves; `code` is the guard's exit status.
    Upstream { gone: UpstreamFailure, code: u8 },
    /// The guard itself failed.
    Broken,
}
