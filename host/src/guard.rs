//! A guard session on its own component instance (see the `guard` interface in `wit/world.wit`): the
//! per-message decisions of a JSON-RPC proxy. The shell around it (`jsonrpc-errors guard`) only does I/O.

mod failure_cases;
mod outcome_record;
mod policy_defaults;
mod schema;

use crate::exports::jsonrpc_errors::core::guard::{LineAt, Peer as WitPeer};
use crate::{error_object, Context, ErrorObject, InputProblem, Instance, Runtime};
/// The session's options and what its calls return: generated from `interface guard` in wit/world.wit.
pub use policy_defaults::PolicyDefaults;
pub use schema::{BatchPolicy, Event, Options, Outcome, Peer, Settings, Step};
use wasmtime::component::ResourceAny;

/// Why the upstream can no longer answer (`upstream-failure`), why one request got no answer from an upstream
/// reached request by request (`request-failure`), and the HTTP status it was refused with (`http-refusal`):
/// the WIT's own types, as wasmtime's bindings declare them, so that no copy of them can drift.
pub use crate::exports::jsonrpc_errors::core::guard::{
    HttpRefusal, RequestFailure, UpstreamFailure,
};

impl Outcome {
    /// Reads the JSON text a session method returns.
    pub fn parse(json: &str) -> Result<Outcome, ErrorObject> {
        serde_json::from_str(json).map_err(|_| ErrorObject::internal())
    }
}

/// One guard session. It owns its instance: a session's state lives in that instance's memory, so it is
/// never pooled. A trap ends the session (every later call fails with -32603).
pub struct Session {
    instance: Option<Instance>,
    handle: ResourceAny,
    max_input_bytes: usize,
    /// The last `lines-outcome` call's arguments, kept for their capacity.
    batch_bytes: Vec<u8>,
    batch_lines: Vec<LineAt>,
}

impl Runtime {
    /// Opens a guard session on a fresh instance.
    pub fn guard_session(&self, options: &Options) -> Result<Session, ErrorObject> {
        let wit = options.to_wit(|name| self.dialect(name))?;
        let mut instance = self.instantiate().map_err(|_| ErrorObject::internal())?;
        let handle = instance
            .api
            .jsonrpc_errors_core_guard()
            .session()
            .call_constructor(&mut instance.store, &wit)
            .map_err(|_| ErrorObject::internal())?;
        Ok(Session {
            instance: Some(instance),
            handle,
            max_input_bytes: self.max_input_bytes(),
            batch_bytes: Vec::new(),
            batch_lines: Vec::new(),
        })
    }
}

impl Session {
    /// The settings the session resolved when it opened (its options, else the policy file's `[defaults]`,
    /// else the built-in defaults): what a shell's own readers are limited by.
    pub fn settings(&mut self) -> Result<Settings, ErrorObject> {
        let json = self.settings_json()?;
        serde_json::from_str(&json).map_err(|_| ErrorObject::internal())
    }

    /// The settings as the component writes them (`session-settings` as JSON).
    pub fn settings_json(&mut self) -> Result<String, ErrorObject> {
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
    ) -> Result<T, ErrorObject> {
        let handle = self.handle;
        let instance = self.instance.as_mut().ok_or_else(ErrorObject::internal)?;
        match f(instance, handle) {
            Ok(v) => Ok(v),
            Err(_) => {
                self.instance = None;
                Err(ErrorObject::internal())
            }
        }
    }

    /// Refuses an input longer than the guest takes with the guest's own error (`too-large`, as every other
    /// call of this library and the Python and npm sessions refuse it), before it is copied in.
    fn sized(&mut self, len: usize) -> Result<(), ErrorObject> {
        if len <= self.max_input_bytes {
            return Ok(());
        }
        let refusal = self.call(|i, _| {
            i.api
                .jsonrpc_errors_core_api()
                .call_refusal(&mut i.store, &InputProblem::TooLarge(len as u64))
        })?;
        Err(error_object(refusal))
    }
}

/// What a shell tells its session about: each of the session's methods that returns an outcome (`interface
/// guard` in wit/world.wit), with what it takes.
#[derive(Debug, Clone, Copy)]
pub enum Call<'a> {
    /// A line from the client (newline removed): the one client of a stdio session, byte for byte.
    ClientLine(&'a [u8]),
    /// A line from client stream `stream` (an HTTP front's request, a session's own stream 0): requests are
    /// renamed upstream and answered on their stream; steps toward the client name their stream from then on.
    ClientLineOn { stream: u64, line: &'a [u8] },
    /// Client stream `stream` went away before its answers: its pending requests are cancelled upstream.
    StreamClosed { stream: u64 },
    /// A client line longer than `max_bytes`, discarded unread: its length, and its first and last bytes as
    /// they passed (up to 4 KiB each; empty when none were kept), from which the session reads its id.
    ClientOversize {
        length: u64,
        head: &'a [u8],
        tail: &'a [u8],
    },
    /// A line from the upstream's output (newline removed).
    UpstreamLine(&'a [u8]),
    /// An upstream line longer than the shell takes, discarded unread: as for `ClientOversize`.
    UpstreamOversize {
        length: u64,
        head: &'a [u8],
        tail: &'a [u8],
    },
    /// The upstream can no longer answer.
    UpstreamFailed(&'a UpstreamFailure),
    /// One request (`id`: as the upstream was sent it, JSON text) got no answer from an upstream reached
    /// request by request (HTTP): it alone is answered.
    UpstreamRequestFailed {
        id: &'a str,
        failure: &'a RequestFailure,
    },
    /// The upstream's response to request `id` (as for `UpstreamRequestFailed`) ended with nothing more to
    /// come (`upstream-exchange-ended` in the WIT).
    UpstreamExchangeEnded { id: &'a str },
    /// The outcome's `deadline` has passed.
    Expire,
}

impl Call<'_> {
    /// The bytes the call copies into the guest.
    fn input_len(&self) -> usize {
        match self {
            Call::ClientLine(line) | Call::UpstreamLine(line) | Call::ClientLineOn { line, .. } => {
                line.len()
            }
            Call::ClientOversize { head, tail, .. } | Call::UpstreamOversize { head, tail, .. } => {
                head.len() + tail.len()
            }
            Call::UpstreamRequestFailed { id, .. } | Call::UpstreamExchangeEnded { id } => id.len(),
            Call::StreamClosed { .. } | Call::UpstreamFailed(_) | Call::Expire => 0,
        }
    }
}

/// What a shell asks of its guard session: [`Session`]'s calls, as a trait so that a shell can be driven by a
/// scripted session in its own tests.
pub trait SessionCalls: Send {
    /// Tells the session about `call`: the outcome's JSON text, as the component wrote it (what the vectors
    /// compare byte for byte).
    fn outcome_json(&mut self, call: Call<'_>, ctx: Context) -> Result<String, ErrorObject>;

    /// Tells the session about `call`: the outcome, read.
    fn outcome(&mut self, call: Call<'_>, ctx: Context) -> Result<Outcome, ErrorObject> {
        Outcome::parse(&self.outcome_json(call, ctx)?)
    }

    /// Tells the session about several lines read in one turn (`ClientLine`, `ClientLineOn`, `UpstreamLine`),
    /// in order: their outcomes, in that order, as [`SessionCalls::outcome`] called for each in turn returns
    /// them, the first with `ctx`, each later one with `ctx`'s clock and entropy of its own (`lines-outcome`
    /// in the WIT). A failure fails the whole call (the session is then broken).
    fn outcomes(&mut self, calls: &[Call<'_>], ctx: Context) -> Result<Vec<Outcome>, ErrorObject> {
        one_by_one(self, calls, ctx)
    }

    /// Replaces the policy for the requests from now on (a reload); a refused one leaves it as it was.
    fn set_policy(&mut self, text: &str, env: &[(String, String)]) -> Result<(), ErrorObject>;

    /// Bytes of the upstream's stderr as read, in any pieces: the redacted text of the lines they complete
    /// (secrets redacted, traces kept; an unfinished line is held until its end, or `upstream_stderr_end`).
    fn upstream_stderr(&mut self, bytes: &[u8]) -> Result<String, ErrorObject>;

    /// The upstream's stderr has ended: the redacted text of the unfinished line held, if any.
    fn upstream_stderr_end(&mut self) -> Result<String, ErrorObject>;

    /// Other text about the upstream for the operator's log, whole lines (secrets redacted, traces kept).
    fn upstream_log(&mut self, text: &str) -> Result<String, ErrorObject>;
}

/// `calls` one call each: the first with `ctx`, each later one with `ctx`'s clock and fresh entropy (each
/// line's answers get correlation ids of their own, as in one `lines-outcome` call).
fn one_by_one<S: SessionCalls + ?Sized>(
    session: &mut S,
    calls: &[Call<'_>],
    ctx: Context,
) -> Result<Vec<Outcome>, ErrorObject> {
    let mut ctx = ctx;
    let mut outcomes = Vec::with_capacity(calls.len());
    for call in calls {
        outcomes.push(session.outcome(*call, ctx)?);
        ctx = Context {
            unix_millis: ctx.unix_millis,
            ..Context::now()
        };
    }
    Ok(outcomes)
}

impl SessionCalls for Session {
    fn outcome_json(&mut self, call: Call<'_>, ctx: Context) -> Result<String, ErrorObject> {
        self.sized(call.input_len())?;
        let ctx = ctx.wit();
        self.call(|i, h| {
            let session = i.api.jsonrpc_errors_core_guard().session();
            let store = &mut i.store;
            match call {
                Call::ClientLine(line) => session.call_client_line(store, h, line, ctx),
                Call::ClientLineOn { stream, line } => {
                    session.call_client_line_on(store, h, stream, line, ctx)
                }
                Call::StreamClosed { stream } => session.call_stream_closed(store, h, stream, ctx),
                Call::ClientOversize { length, head, tail } => {
                    session.call_client_oversize(store, h, length, head, tail, ctx)
                }
                Call::UpstreamLine(line) => session.call_upstream_line(store, h, line, ctx),
                Call::UpstreamOversize { length, head, tail } => {
                    session.call_upstream_oversize(store, h, length, head, tail, ctx)
                }
                Call::UpstreamFailed(failure) => {
                    session.call_upstream_failed(store, h, failure, ctx)
                }
                Call::UpstreamRequestFailed { id, failure } => {
                    session.call_upstream_request_failed(store, h, &id.to_string(), failure, ctx)
                }
                Call::UpstreamExchangeEnded { id } => {
                    session.call_upstream_exchange_ended(store, h, &id.to_string(), ctx)
                }
                Call::Expire => session.call_expire(store, h, ctx),
            }
        })
    }

    /// The lines (every relayed message) through the calls that return the record itself; the rest, rare,
    /// through their JSON text.
    fn outcome(&mut self, call: Call<'_>, ctx: Context) -> Result<Outcome, ErrorObject> {
        let wit_ctx = ctx.wit();
        let record = match call {
            Call::ClientLine(line) => {
                self.sized(line.len())?;
                self.call(|i, h| {
                    i.api
                        .jsonrpc_errors_core_guard()
                        .session()
                        .call_client_line_outcome(&mut i.store, h, line, wit_ctx)
                })?
            }
            Call::ClientLineOn { stream, line } => {
                self.sized(line.len())?;
                self.call(|i, h| {
                    i.api
                        .jsonrpc_errors_core_guard()
                        .session()
                        .call_client_line_on_outcome(&mut i.store, h, stream, line, wit_ctx)
                })?
            }
            Call::UpstreamLine(line) => {
                self.sized(line.len())?;
                self.call(|i, h| {
                    i.api
                        .jsonrpc_errors_core_guard()
                        .session()
                        .call_upstream_line_outcome(&mut i.store, h, line, wit_ctx)
                })?
            }
            other => return Outcome::parse(&self.outcome_json(other, ctx)?),
        };
        Ok(record.into())
    }

    /// One `lines-outcome` call for the lines: their bytes one after another in a buffer the session keeps
    /// (no allocation per call once it has grown), one copy of each into the guest. Anything but lines, or
    /// more bytes than the guest takes in one input, goes line by line.
    fn outcomes(&mut self, calls: &[Call<'_>], ctx: Context) -> Result<Vec<Outcome>, ErrorObject> {
        let total: usize = calls.iter().map(Call::input_len).sum();
        let mut bytes = std::mem::take(&mut self.batch_bytes);
        let mut lines = std::mem::take(&mut self.batch_lines);
        bytes.clear();
        lines.clear();
        let all_lines = total <= self.max_input_bytes
            && calls.iter().all(|call| {
                let (from, stream, line) = match *call {
                    Call::ClientLine(line) => (WitPeer::Client, None, line),
                    Call::ClientLineOn { stream, line } => (WitPeer::Client, Some(stream), line),
                    Call::UpstreamLine(line) => (WitPeer::Upstream, None, line),
                    _ => return false,
                };
                bytes.extend_from_slice(line);
                lines.push(LineAt {
                    from,
                    stream,
                    end: bytes.len() as u64,
                });
                true
            });
        let result = if all_lines {
            let wit_ctx = ctx.wit();
            self.call(|i, h| {
                i.api
                    .jsonrpc_errors_core_guard()
                    .session()
                    .call_lines_outcome(&mut i.store, h, &bytes, &lines, wit_ctx)
            })
            .map(|records| records.into_iter().map(Outcome::from).collect())
        } else {
            one_by_one(self, calls, ctx)
        };
        self.batch_bytes = bytes;
        self.batch_lines = lines;
        result
    }

    fn set_policy(&mut self, text: &str, env: &[(String, String)]) -> Result<(), ErrorObject> {
        self.sized(text.len())?;
        let o = self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_set_policy(&mut i.store, h, text, env)
        })?;
        crate::outcome(o).map(|_| ())
    }

    fn upstream_stderr(&mut self, bytes: &[u8]) -> Result<String, ErrorObject> {
        self.sized(bytes.len())?;
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_upstream_stderr(&mut i.store, h, bytes)
        })
    }

    fn upstream_stderr_end(&mut self) -> Result<String, ErrorObject> {
        self.call(|i, h| {
            i.api
                .jsonrpc_errors_core_guard()
                .session()
                .call_upstream_stderr_end(&mut i.store, h)
        })
    }

    fn upstream_log(&mut self, text: &str) -> Result<String, ErrorObject> {
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
