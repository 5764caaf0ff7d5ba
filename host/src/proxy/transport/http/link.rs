//! One relay's link to its upstream: what it knows of the upstream's session, the read budget the messages it
//! hands the relay hold, how it tells the relay of a message or of a request that got no answer, and how its
//! requests are built (the guard's own headers, never a client's; the session's, or the stateless
//! revision's).

use super::client;
use super::message::{self, Outbound};
use super::spec::{Protocol, Spec, A2A_VERSION};
use super::stream::Stream;
use crate::proxy::io::{Budget, Read};
use crate::proxy::transport::report::Report;
use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Uri};
use jsonrpc_errors_host::guard::{HttpRefusal, RequestFailure};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

pub(super) const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";
const A2A_VERSION_HEADER: &str = "a2a-version";

/// How the upstream was found to speak.
#[derive(Clone)]
pub(super) enum Mode {
    /// Nothing sent yet, or nothing answered: a refused first POST may mean the legacy transport.
    Unknown,
    Streamable,
    Legacy,
}

/// The upstream's session as this link knows it.
pub(super) struct State {
    pub(super) mode: Mode,
    /// `Mcp-Session-Id` from `initialize`'s response.
    pub(super) session: Option<HeaderValue>,
    /// The revision `initialize` agreed on (`MCP-Protocol-Version` on every later request).
    pub(super) version: Option<String>,
    /// The client's `initialize`, sent again to re-open a session the upstream lost.
    pub(super) initialize: Option<Bytes>,
    /// Bumped each time the session is (re-)opened.
    pub(super) generation: u64,
}

/// One relay's link to the upstream.
pub struct Link {
    pub(super) spec: Arc<Spec>,
    pub(super) reports: mpsc::Sender<Report>,
    /// The read budget: a message holds it until the relay has written it (what a child's stdout has).
    pub(super) budget: Budget,
    state: Mutex<State>,
    /// One re-opening at a time.
    pub(super) reopening: tokio::sync::Mutex<()>,
    /// The GET stream, while one runs.
    pub(super) get: Mutex<Option<AbortHandle>>,
    /// The legacy transport's event stream, once found.
    pub(super) legacy: tokio::sync::Mutex<Option<Arc<Stream>>>,
}

/// Why an exchange got no answer, for the session and for the log.
pub(super) struct Fault {
    pub(super) failure: RequestFailure,
    /// What the operator's log gets (redacted by the session).
    pub(super) detail: Option<String>,
}

impl Fault {
    pub(super) fn unreachable(error: &(dyn std::error::Error + 'static)) -> Fault {
        let d = client::describe(error);
        Fault {
            failure: RequestFailure::Unreachable(d.reason),
            detail: Some(d.detail),
        }
    }

    pub(super) fn refused(status: u16, retry_after_secs: Option<u64>) -> Fault {
        Fault {
            failure: RequestFailure::Refused(HttpRefusal {
                status,
                retry_after_secs,
            }),
            detail: None,
        }
    }

    pub(super) fn cut(why: &str) -> Fault {
        Fault {
            failure: RequestFailure::Unreachable(why.into()),
            detail: None,
        }
    }
}

impl Link {
    pub(super) fn new(spec: Arc<Spec>, reports: mpsc::Sender<Report>) -> Link {
        Link {
            spec,
            reports,
            budget: Budget::new(),
            state: Mutex::new(State {
                mode: Mode::Unknown,
                session: None,
                version: None,
                initialize: None,
                generation: 0,
            }),
            reopening: tokio::sync::Mutex::new(()),
            get: Mutex::new(None),
            legacy: tokio::sync::Mutex::new(None),
        }
    }

    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands a message read from the upstream to the relay, once the read budget has room for it.
    pub(super) async fn deliver(&self, read: Read) -> bool {
        let at = Instant::now();
        let permit = match &read {
            Read::Line(l) => self.budget.reserve(l.len()).await,
            _ => None,
        };
        self.reports
            .send(Report::Line(read, at, permit))
            .await
            .is_ok()
    }

    /// Tells the session that request `id` got no answer.
    pub(super) async fn failed(&self, id: &str, fault: Fault, method: Option<&str>) {
        if let Some(detail) = fault.detail {
            let _ = self
                .reports
                .send(Report::Log(format!(
                    "{} to {}: {detail}",
                    method.unwrap_or("a message"),
                    self.spec.url.shown()
                )))
                .await;
        }
        let _ = self
            .reports
            .send(Report::RequestFailed {
                id: id.to_string(),
                failure: fault.failure,
            })
            .await;
    }

    /// Tells the session that the response to request `id` ended with nothing more to come.
    pub(super) async fn ended(&self, id: &str) {
        let _ = self
            .reports
            .send(Report::ExchangeEnded { id: id.to_string() })
            .await;
    }
}

/// Where a session stood when a request was sent on it.
#[derive(Clone)]
pub(super) struct Snapshot {
    pub(super) session: Option<HeaderValue>,
    pub(super) version: Option<String>,
    pub(super) generation: u64,
}

impl Link {
    pub(super) fn snapshot(&self) -> Snapshot {
        let s = self.state();
        Snapshot {
            session: s.session.clone(),
            version: s.version.clone(),
            generation: s.generation,
        }
    }

    /// A request to the upstream with the guard's own headers (never a client's), and the session's.
    pub(super) fn build(
        &self,
        method: Method,
        uri: &Uri,
        body: Option<Bytes>,
        at: &Snapshot,
        msg: Option<&Outbound>,
    ) -> Request<Full<Bytes>> {
        let mut req = Request::builder().method(method.clone()).uri(uri.clone());
        let headers = req.headers_mut().expect("a fresh request builder");
        if body.is_some() {
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            headers.insert(
                header::ACCEPT,
                HeaderValue::from_static("application/json, text/event-stream"),
            );
        } else if method == Method::GET {
            headers.insert(
                header::ACCEPT,
                HeaderValue::from_static("text/event-stream"),
            );
        }
        for (name, value) in &self.spec.headers {
            headers.append(name.clone(), value.clone());
        }
        if let Some(basic) = &self.spec.url.basic {
            if !headers.contains_key(header::AUTHORIZATION) {
                if let Ok(mut v) = HeaderValue::from_str(&format!("Basic {basic}")) {
                    v.set_sensitive(true);
                    headers.insert(header::AUTHORIZATION, v);
                }
            }
        }
        if self.spec.protocol == Protocol::A2a {
            // A2A: the version the guard speaks, on every request; no MCP session or revision headers.
            headers.insert(A2A_VERSION_HEADER, HeaderValue::from_static(A2A_VERSION));
            return req
                .body(Full::new(body.unwrap_or_default()))
                .expect("a request built from valid parts");
        }
        let modern = msg.filter(|m| m.is_modern());
        match modern {
            Some(m) => {
                // The stateless revision: what the request is, in its headers; no session.
                if let Some(v) = m
                    .revision
                    .as_deref()
                    .and_then(|r| HeaderValue::from_str(r).ok())
                {
                    headers.insert(VERSION_HEADER, v);
                }
                if let Some(v) = m
                    .method
                    .as_deref()
                    .and_then(|r| HeaderValue::from_str(r).ok())
                {
                    headers.insert(METHOD_HEADER, v);
                }
                if let Some(v) = m
                    .name
                    .as_deref()
                    .and_then(|n| HeaderValue::from_str(&message::header_value(n)).ok())
                {
                    headers.insert(NAME_HEADER, v);
                }
            }
            None => {
                if let Some(session) = &at.session {
                    headers.insert(SESSION_HEADER, session.clone());
                }
                let initialize = msg.is_some_and(|m| m.method.as_deref() == Some("initialize"));
                if let Some(v) = at
                    .version
                    .as_deref()
                    .filter(|_| !initialize)
                    .and_then(|v| HeaderValue::from_str(v).ok())
                {
                    headers.insert(VERSION_HEADER, v);
                }
            }
        }
        req.body(Full::new(body.unwrap_or_default()))
            .expect("a request built from valid parts")
    }

    pub(super) fn found(&self, mode: Mode) {
        let mut s = self.state();
        if matches!(s.mode, Mode::Unknown) {
            s.mode = mode;
        }
    }
}
