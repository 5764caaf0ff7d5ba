//! The relay core's view of the guard session (`wit/world.wit`, interface `guard`, resource `session`):
//! every call returns the session's JSON outcome, and the core carries out its steps. A trait, so that the
//! core can be driven in process by a scripted policy in its tests, and so the fronts depend on the
//! session's contract rather than on how the host wraps the component.

use jsonrpc_errors_host::guard::{RequestFailure, Session, UpstreamGone};
use jsonrpc_errors_host::{Context, Failure};

/// What the relay core asks of the policy. Every method but the stderr ones returns the session's outcome
/// JSON (`{"steps": [...], "pending": N, "deadline": ...}`).
pub trait Policy: Send {
    /// A client line from the one client of a stdio session (stream 0, no rewriting, byte for byte).
    fn client_line(&mut self, line: &[u8], ctx: Context) -> Result<String, Failure>;
    /// A client line that arrived on client stream `stream` (an HTTP request's own stream; 0: the
    /// session's own). Its requests get upstream ids of the session's own, and every step toward the
    /// client then names its stream.
    fn client_line_on(&mut self, stream: u64, line: &[u8], ctx: Context)
        -> Result<String, Failure>;
    /// The client's stream went away before its answer: its pending requests are cancelled upstream and
    /// owed nothing.
    fn stream_closed(&mut self, stream: u64, ctx: Context) -> Result<String, Failure>;
    fn client_oversize(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        ctx: Context,
    ) -> Result<String, Failure>;
    fn upstream_line(&mut self, line: &[u8], ctx: Context) -> Result<String, Failure>;
    fn upstream_oversize(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        ctx: Context,
    ) -> Result<String, Failure>;
    fn upstream_failed(&mut self, gone: &UpstreamGone, ctx: Context) -> Result<String, Failure>;
    /// One request (`id`: as the upstream was sent it, JSON text) got no answer from an upstream reached
    /// request by request (HTTP): it alone is answered.
    fn upstream_request_failed(
        &mut self,
        id: &str,
        failure: &RequestFailure,
        ctx: Context,
    ) -> Result<String, Failure>;
    /// The upstream's response to request `id` ended with nothing more to come (an event stream closed): a
    /// streaming request that got events is settled, one that got no answer is answered.
    fn upstream_exchange_ended(&mut self, id: &str, ctx: Context) -> Result<String, Failure>;
    fn expire(&mut self, ctx: Context) -> Result<String, Failure>;
    /// The upstream's stderr bytes: the redacted text of the lines they complete.
    fn upstream_stderr(&mut self, bytes: &[u8]) -> Result<String, Failure>;
    fn upstream_stderr_end(&mut self) -> Result<String, Failure>;
    /// Replaces the policy file for the requests that arrive from now on (SIGHUP with `--config`).
    fn set_policy(&mut self, text: &str, env: &[(String, String)]) -> Result<(), Failure>;
    /// Other text about the upstream for the operator's log, redacted (an HTTP transport's faults).
    fn upstream_log(&mut self, text: &str) -> Result<String, Failure>;
}

impl Policy for Session {
    fn client_line(&mut self, line: &[u8], ctx: Context) -> Result<String, Failure> {
        self.client_line_json(line, ctx)
    }

    fn client_line_on(
        &mut self,
        stream: u64,
        line: &[u8],
        ctx: Context,
    ) -> Result<String, Failure> {
        self.client_line_on_json(stream, line, ctx)
    }

    fn stream_closed(&mut self, stream: u64, ctx: Context) -> Result<String, Failure> {
        self.stream_closed_json(stream, ctx)
    }

    fn client_oversize(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        ctx: Context,
    ) -> Result<String, Failure> {
        self.client_oversize_json(length, head, tail, ctx)
    }

    fn upstream_line(&mut self, line: &[u8], ctx: Context) -> Result<String, Failure> {
        self.upstream_line_json(line, ctx)
    }

    fn upstream_oversize(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        ctx: Context,
    ) -> Result<String, Failure> {
        self.upstream_oversize_json(length, head, tail, ctx)
    }

    fn upstream_failed(&mut self, gone: &UpstreamGone, ctx: Context) -> Result<String, Failure> {
        self.upstream_failed_json(gone, ctx)
    }

    fn upstream_request_failed(
        &mut self,
        id: &str,
        failure: &RequestFailure,
        ctx: Context,
    ) -> Result<String, Failure> {
        self.upstream_request_failed_json(id, failure, ctx)
    }

    fn upstream_exchange_ended(&mut self, id: &str, ctx: Context) -> Result<String, Failure> {
        self.upstream_exchange_ended_json(id, ctx)
    }

    fn expire(&mut self, ctx: Context) -> Result<String, Failure> {
        self.expire_json(ctx)
    }

    fn upstream_stderr(&mut self, bytes: &[u8]) -> Result<String, Failure> {
        Session::upstream_stderr(self, bytes)
    }

    fn upstream_stderr_end(&mut self) -> Result<String, Failure> {
        Session::upstream_stderr_end(self)
    }

    fn set_policy(&mut self, text: &str, env: &[(String, String)]) -> Result<(), Failure> {
        Session::set_policy(self, text, env)
    }

    fn upstream_log(&mut self, text: &str) -> Result<String, Failure> {
        Session::upstream_log(self, text)
    }
}
