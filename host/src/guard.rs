//! A guard session on its own component instance (see the `guard` interface in `wit/world.wit`): the
//! per-message policy of a JSON-RPC proxy. The shell around it (`jsonrpc-errors guard`) only does I/O.

mod schema;

use crate::exports::jsonrpc_errors::core::guard::{
    HttpRefusal, RequestFailure as WitRequestFailure, UpstreamFailure,
};
use crate::{failure, Context, Failure, InputProblem, Instance, Runtime};
/// The session's options and what its calls return: generated from `interface guard` in wit/world.wit.
pub use schema::{BatchPolicy, Event, Options, Outcome, Peer, Settings, Step};
use wasmtime::component::ResourceAny;

/// Why the upstream can no longer answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamGone {
    SpawnFailed(String),
    Exited(i32),
    Killed(i32),
    ClosedOutput,
}

/// Why one request got no answer from an upstream reached request by request (HTTP); the upstream is not
/// gone (`upstream-request-failed` in the WIT).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestFailure {
    /// No answer could be had (refused, reset, DNS, TLS, the response cut before its answer): the reason,
    /// naming no credential.
    Unreachable(String),
    /// An HTTP status and no JSON-RPC answer; its `Retry-After` in seconds, if it gave one.
    Refused {
        status: u16,
        retry_after_secs: Option<u64>,
    },
    /// The upstream's session is gone (HTTP 404), and no new one could be opened.
    SessionGone,
}

impl Outcome {
    /// Reads the JSON text a session method returns.
    pub fn parse(json: &str) -> Result<Outcome, Failure> {
        serde_json::from_str(json).map_err(|_| Failure::internal())
    }
}

/// One guard session. It owns its instance: a session's state lives in that instance's memory, so it is
/// never pooled. A trap ends the session (every later call fails with -32603).
pub struct Session {
    instance: Option<Instance>,
    handle: ResourceAny,
    max_input_bytes: usize,
}

impl Runtime {
    /// Opens a guard session on a fresh instance.
    pub fn guard_session(&self, options: &Options) -> Result<Session, Failure> {
        let wit = options.to_wit(self.dialect(&options.dialect)?);
        let mut instance = self.instantiate().map_err(|_| Failure::internal())?;
        let handle = instance
            .api
            .jsonrpc_errors_core_guard()
            .session()
            .call_constructor(&mut instance.store, &wit)
            .map_err(|_| Failure::internal())?;
        Ok(Session {
            instance: Some(instance),
            handle,
            max_input_bytes: self.max_input_bytes(),
        })
    }
}

impl Session {
    /// The settings the session resolved when it opened (its options, else the policy file's `[defaults]`,
    /// else the built-in defaults): what a shell's own readers are limited by.
    pub fn settings(&mut self) -> Result<Settings, Failure> {
        let json = self.settings_json()?;
        serde_json::from_str(&json).map_err(|_| Failure::internal())
    }

    /// The settings as the component writes them (`session-settings` as JSON).
    pub fn settings_json(&mut self) -> Result<String, Failure> {
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_settings(&mut i.store, h)
        })
    }

    /// Runs one method; a trap discards the instance for good.
    fn call<T>(
        &mut self,
        f: impl FnOnce(&mut Instance, ResourceAny) -> wasmtime::Result<T>,
    ) -> Result<T, Failure> {
        let handle = self.handle;
        let instance = self.instance.as_mut().ok_or_else(Failure::internal)?;
        match f(instance, handle) {
            Ok(v) => Ok(v),
            Err(_) => {
                self.instance = None;
                Err(Failure::internal())
            }
        }
    }

    /// Refuses an input longer than the guest takes with the guest's own error (`too-large`, as every other
    /// call of this library and the Python and npm sessions refuse it), before it is copied in.
    fn sized(&mut self, len: usize) -> Result<(), Failure> {
        if len <= self.max_input_bytes {
            return Ok(());
        }
        let refusal = self.call(|i, _| {
            i.api
                .jsonrpc_errors_core_api()
                .call_refusal(&mut i.store, &InputProblem::TooLarge(len as u64))
        })?;
        Err(failure(refusal))
    }

    /// A line from the client (newline removed): the outcome's JSON text.
    pub fn client_line_json(&mut self, line: &[u8], ctx: Context) -> Result<String, Failure> {
        self.sized(line.len())?;
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_client_line(&mut i.store, h, line, ctx.wit())
        })
    }

    /// Replaces the policy for the requests from now on (a reload); a refused one leaves it as it was.
    pub fn set_policy(&mut self, text: &str, env: &[(String, String)]) -> Result<(), Failure> {
        self.sized(text.len())?;
        let o = self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_set_policy(&mut i.store, h, text, env)
        })?;
        crate::outcome(o).map(|_| ())
    }

    /// A line from client stream `stream` (an HTTP front's request, a session's own stream 0): requests are
    /// renamed upstream and answered on their stream; steps toward the client name their stream from then on.
    pub fn client_line_on_json(
        &mut self,
        stream: u64,
        line: &[u8],
        ctx: Context,
    ) -> Result<String, Failure> {
        self.sized(line.len())?;
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_client_line_on(&mut i.store, h, stream, line, ctx.wit())
        })
    }

    /// Client stream `stream` went away before its answers: its pending requests are cancelled upstream.
    pub fn stream_closed_json(&mut self, stream: u64, ctx: Context) -> Result<String, Failure> {
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_stream_closed(&mut i.store, h, stream, ctx.wit())
        })
    }

    pub fn client_line_on(
        &mut self,
        stream: u64,
        line: &[u8],
        ctx: Context,
    ) -> Result<Outcome, Failure> {
        Outcome::parse(&self.client_line_on_json(stream, line, ctx)?)
    }

    pub fn stream_closed(&mut self, stream: u64, ctx: Context) -> Result<Outcome, Failure> {
        Outcome::parse(&self.stream_closed_json(stream, ctx)?)
    }

    /// A client line longer than `max_bytes`, discarded unread: its length, and its first and last bytes as
    /// they passed (up to 4 KiB each; empty when none were kept), from which the session reads its id.
    pub fn client_oversize_json(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        ctx: Context,
    ) -> Result<String, Failure> {
        self.sized(head.len() + tail.len())?;
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_client_oversize(&mut i.store, h, length, head, tail, ctx.wit())
        })
    }

    /// A line from the upstream's output (newline removed).
    pub fn upstream_line_json(&mut self, line: &[u8], ctx: Context) -> Result<String, Failure> {
        self.sized(line.len())?;
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_upstream_line(&mut i.store, h, line, ctx.wit())
        })
    }

    /// An upstream line longer than the shell takes, discarded unread: as for `client_oversize_json`.
    pub fn upstream_oversize_json(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        ctx: Context,
    ) -> Result<String, Failure> {
        self.sized(head.len() + tail.len())?;
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_upstream_oversize(&mut i.store, h, length, head, tail, ctx.wit())
        })
    }

    pub fn upstream_failed_json(
        &mut self,
        gone: &UpstreamGone,
        ctx: Context,
    ) -> Result<String, Failure> {
        let failure = match gone {
            UpstreamGone::SpawnFailed(reason) => UpstreamFailure::SpawnFailed(reason.clone()),
            UpstreamGone::Exited(status) => UpstreamFailure::Exited(*status),
            UpstreamGone::Killed(signal) => UpstreamFailure::Killed(*signal),
            UpstreamGone::ClosedOutput => UpstreamFailure::ClosedOutput,
        };
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_upstream_failed(&mut i.store, h, &failure, ctx.wit())
        })
    }

    pub fn upstream_request_failed_json(
        &mut self,
        id: &str,
        failure: &RequestFailure,
        ctx: Context,
    ) -> Result<String, Failure> {
        self.sized(id.len())?;
        let id = id.to_string();
        let failure = match failure {
            RequestFailure::Unreachable(reason) => WitRequestFailure::Unreachable(reason.clone()),
            RequestFailure::Refused {
                status,
                retry_after_secs,
            } => WitRequestFailure::Refused(HttpRefusal {
                status: *status,
                retry_after_secs: *retry_after_secs,
            }),
            RequestFailure::SessionGone => WitRequestFailure::SessionGone,
        };
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_upstream_request_failed(&mut i.store, h, &id, &failure, ctx.wit())
        })
    }

    pub fn upstream_request_failed(
        &mut self,
        id: &str,
        failure: &RequestFailure,
        ctx: Context,
    ) -> Result<Outcome, Failure> {
        Outcome::parse(&self.upstream_request_failed_json(id, failure, ctx)?)
    }

    /// The upstream's response to request `id` (as the upstream was sent it, JSON text) ended with nothing
    /// more to come (`upstream-exchange-ended` in the WIT).
    pub fn upstream_exchange_ended_json(
        &mut self,
        id: &str,
        ctx: Context,
    ) -> Result<String, Failure> {
        self.sized(id.len())?;
        let id = id.to_string();
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_upstream_exchange_ended(&mut i.store, h, &id, ctx.wit())
        })
    }

    pub fn upstream_exchange_ended(&mut self, id: &str, ctx: Context) -> Result<Outcome, Failure> {
        Outcome::parse(&self.upstream_exchange_ended_json(id, ctx)?)
    }

    pub fn expire_json(&mut self, ctx: Context) -> Result<String, Failure> {
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_expire(&mut i.store, h, ctx.wit())
        })
    }

    pub fn client_line(&mut self, line: &[u8], ctx: Context) -> Result<Outcome, Failure> {
        Outcome::parse(&self.client_line_json(line, ctx)?)
    }

    pub fn client_oversize(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        ctx: Context,
    ) -> Result<Outcome, Failure> {
        Outcome::parse(&self.client_oversize_json(length, head, tail, ctx)?)
    }

    pub fn upstream_line(&mut self, line: &[u8], ctx: Context) -> Result<Outcome, Failure> {
        Outcome::parse(&self.upstream_line_json(line, ctx)?)
    }

    pub fn upstream_oversize(
        &mut self,
        length: u64,
        head: &[u8],
        tail: &[u8],
        ctx: Context,
    ) -> Result<Outcome, Failure> {
        Outcome::parse(&self.upstream_oversize_json(length, head, tail, ctx)?)
    }

    pub fn upstream_failed(
        &mut self,
        gone: &UpstreamGone,
        ctx: Context,
    ) -> Result<Outcome, Failure> {
        Outcome::parse(&self.upstream_failed_json(gone, ctx)?)
    }

    pub fn expire(&mut self, ctx: Context) -> Result<Outcome, Failure> {
        Outcome::parse(&self.expire_json(ctx)?)
    }

    /// Bytes of the upstream's stderr as read, in any pieces: the redacted text of the lines they complete
    /// (secrets redacted, traces kept; an unfinished line is held until its end, or [`Self::upstream_stderr_end`]).
    pub fn upstream_stderr(&mut self, bytes: &[u8]) -> Result<String, Failure> {
        self.sized(bytes.len())?;
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_upstream_stderr(&mut i.store, h, bytes)
        })
    }

    /// The upstream's stderr has ended: the redacted text of the unfinished line held, if any.
    pub fn upstream_stderr_end(&mut self) -> Result<String, Failure> {
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_upstream_stderr_end(&mut i.store, h)
        })
    }

    /// Other text about the upstream for the operator's log, whole lines (secrets redacted, traces kept).
    pub fn upstream_log(&mut self, text: &str) -> Result<String, Failure> {
        self.sized(text.len())?;
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_upstream_log(&mut i.store, h, text)
        })
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(i) = self.instance.as_mut() {
            let _ = self.handle.resource_drop(&mut i.store);
        }
    }
}
