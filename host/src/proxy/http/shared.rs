//! The child shared by stateless (2026-07-28) requests. The front connects to it once: `server/discover`
//! first; a child that does not answer it with the stateless revision gets `initialize` (and
//! `notifications/initialized`), and the front answers clients' `server/discover` from that handshake.
//! A child that ended is replaced for the next request (at most once per [`RESTART_EVERY`]: a request that
//! comes sooner waits for it); what was open when it died was answered by its relay's session. A child
//! that stopped answering (a request timed out, and it owed an answer for `--timeout` without writing a
//! line: wedged, stopped, deadlocked) is not ready, and is replaced at once ([`Shared::watch`]); what it
//! had open is answered by its session as it is stopped.

use super::body::is_final;
use super::upstream::{Children, Handshake, Upstream};
use crate::proxy::io::Read;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Whether the front answers `server/discover` for a child that needed `initialize`, from that handshake,
/// so that stateless clients are served by it. Such a child's results lacked what the stateless revision
/// requires of every result (`resultType`, `ttlMs`/`cacheScope` on cacheable ones): the session now adds
/// them per request revision (guest/src/guard/upstream.rs, `deliver`), so a stateless request the shared
/// child serves is answered as the Python SDK 2.3 client requires. Still off: a client served statelessly
/// by a handshake-era child loses what a legacy session gives it, the server's own requests (sampling,
/// elicitation, roots: the stateless revision has no way back to a client for them) and the tools a server
/// offers only to clients that declare those capabilities (measured on, with server-everything and the Python
/// SDK client: real/test_http_peers.py's sampling, elicitation and roots steps failed, "Tool ... not
/// found"). So `server/discover` goes to the child itself, whose answer (method not found) makes the SDK
/// clients fall back to `initialize`: a legacy session, with a child of its own, which serves all of it.
pub const ANSWER_DISCOVER_FROM_HANDSHAKE: bool = false;

/// How long the front waits for the child to answer each handshake request.
pub const HANDSHAKE_WAIT: Duration = Duration::from_secs(30);
/// A child that ended is restarted at most this often (a child that cannot start is not retried in a loop).
pub const RESTART_EVERY: Duration = Duration::from_secs(1);
/// The stateless revisions the front serves.
pub const MODERN: &[&str] = &["2026-07-28"];
/// The handshake revisions the front serves (legacy sessions), oldest first.
pub const HANDSHAKE: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":"jsonrpc-errors-guard:discover","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"jsonrpc-errors-guard","version":"VERSION"}}}}"#;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"jsonrpc-errors-guard:initialize","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"jsonrpc-errors-guard","version":"VERSION"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

#[derive(Default)]
pub struct Shared {
    current: Mutex<Option<Arc<Upstream>>>,
    starting: tokio::sync::Mutex<()>,
}

impl Shared {
    pub fn current(&self) -> Option<Arc<Upstream>> {
        self.current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn take(&self) -> Option<Arc<Upstream>> {
        self.current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// Whether the shared child runs, answered the handshake, and still answers.
    pub fn ready(&self, children: &Children) -> Result<(), &'static str> {
        let Some(up) = self.current() else {
            return Err("no upstream");
        };
        if up.gone() {
            return Err("the upstream ended");
        }
        if up.unresponsive(children.silence_bound()) {
            return Err("the upstream stopped answering");
        }
        let state = up.handshake.borrow().clone();
        match state {
            Handshake::Pending => Err("connecting to the upstream"),
            Handshake::Failed => Err("the upstream did not answer the handshake"),
            Handshake::Modern | Handshake::Legacy(_) => Ok(()),
        }
    }

    /// The child for the next stateless request, started (or restarted) if need be; None only if no guard
    /// session could be opened for it. While `draining()`, a child that ended is not replaced.
    pub async fn ensure(
        &self,
        children: &Children,
        draining: impl Fn() -> bool,
    ) -> Option<Arc<Upstream>> {
        let bound = children.silence_bound();
        let usable = |up: &Arc<Upstream>| (!up.gone() && !up.unresponsive(bound)) || draining();
        if let Some(up) = self.current().filter(usable) {
            return Some(up);
        }
        let _one = self.starting.lock().await;
        let old = self.current();
        if let Some(up) = old.as_ref().filter(|up| usable(up)) {
            return Some(up.clone());
        }
        // A child that keeps dying is restarted at most once per RESTART_EVERY: the requests wait for it.
        if let Some(up) = &old {
            if let Some(wait) = RESTART_EVERY.checked_sub(up.started.elapsed()) {
                tokio::time::sleep(wait).await;
            }
        }
        let up = match Upstream::start(children, true) {
            Ok(up) => up,
            Err(f) => {
                tracing::error!(event = "guard-failed", detail = %f, "cannot open a guard session for the shared upstream");
                return old;
            }
        };
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = Some(up.clone());
        if let Some(old) = old {
            if old.gone() {
                tracing::info!(
                    event = "restarted",
                    "the shared upstream ended; started a new one for the next requests"
                );
            } else {
                tracing::warn!(
                    event = "restarted",
                    "the shared upstream stopped answering; started a new one, and the old one is stopped (what it had open is answered)"
                );
            }
            tokio::spawn(async move { old.retire().await });
        }
        // A server at a URL may be down now and up later (a child that fails its handshake is not): its
        // handshake is tried again until it answers, so `/readyz` follows it.
        let again = matches!(children.transport, crate::proxy::transport::Spec::Http(_));
        match &children.transport {
            crate::proxy::transport::Spec::Http(spec)
                if spec.protocol == crate::proxy::transport::http::Protocol::A2a =>
            {
                tokio::spawn(agent_ready(up.clone(), spec.clone()));
            }
            _ => {
                tokio::spawn(handshake(up.clone(), again));
            }
        }
        Some(up)
    }
}

impl Shared {
    /// Replaces the shared child as soon as it stops answering (checked every [`WATCH_EVERY`]), so that
    /// the requests it holds are answered and the next ones go to a child that answers, without waiting for
    /// a request to notice. Runs until the guard drains.
    pub async fn watch(&self, children: &Children, draining: impl Fn() -> bool) {
        let Some(bound) = children.silence_bound() else {
            return;
        };
        let mut reported = None;
        while !draining() {
            tokio::time::sleep(WATCH_EVERY).await;
            let Some(up) = self.current() else { continue };
            if up.gone() || !up.unresponsive(Some(bound)) {
                continue;
            }
            // Once per child.
            if reported.as_ref().is_none_or(|r| !Arc::ptr_eq(r, &up)) {
                tracing::warn!(
                    event = "unresponsive",
                    detail = format!("a request timed out, and it owed an answer for {bound:?} without writing a line"),
                    "the shared upstream stopped answering"
                );
                reported = Some(up);
            }
            self.ensure(children, &draining).await;
        }
    }
}

/// How often the shared child is checked for having stopped answering.
pub const WATCH_EVERY: Duration = Duration::from_millis(250);

/// Waits (at most [`HANDSHAKE_WAIT`] past the handshake's own wait) until the front has connected to `up`.
pub async fn connected(up: &Upstream) -> Handshake {
    // Connected long ago, for nearly every request: no subscription, no deadline (a clock read).
    {
        let now = up.handshake.borrow();
        if *now != Handshake::Pending {
            return now.clone();
        }
    }
    let mut rx = up.handshake.subscribe();
    let wait = async {
        match rx.wait_for(|h| *h != Handshake::Pending).await {
            Ok(h) => h.clone(),
            Err(_) => Handshake::Failed,
        }
    };
    tokio::time::timeout(HANDSHAKE_WAIT * 2 + Duration::from_secs(1), wait)
        .await
        .unwrap_or(Handshake::Failed)
}

async fn handshake(up: Arc<Upstream>, again: bool) {
    let mut warned = false;
    loop {
        let result = connect(&up).await;
        match &result {
            Handshake::Modern => tracing::info!(event = "connected", "the shared upstream speaks the stateless revision (server/discover)"),
            Handshake::Legacy(_) => tracing::info!(event = "connected", "the shared upstream needed initialize; stateless clients are served from that handshake"),
            _ if !std::mem::replace(&mut warned, true) => tracing::warn!(event = "connect-failed", "the shared upstream answered neither server/discover nor initialize"),
            _ => {}
        }
        let failed = result == Handshake::Failed;
        up.handshake.send_replace(result);
        if !failed || !again || up.gone() {
            return;
        }
        tokio::time::sleep(HANDSHAKE_AGAIN).await;
    }
}

/// An A2A agent needs no handshake (each request stands alone, and none waits for this): it is ready once it
/// serves its card, tried until it does, so that `/readyz` follows an agent that is down now and up later.
async fn agent_ready(up: Arc<Upstream>, spec: Arc<crate::proxy::transport::http::Spec>) {
    let mut warned = false;
    loop {
        match crate::proxy::transport::http::agent_card(&spec).await {
            Ok(_) => {
                tracing::info!(event = "connected", "the A2A agent serves its card");
                up.handshake.send_replace(Handshake::Modern);
                return;
            }
            Err(why) if !std::mem::replace(&mut warned, true) => {
                tracing::warn!(event = "connect-failed", detail = %why, "the A2A agent's card could not be fetched; trying again");
            }
            Err(_) => {}
        }
        if up.gone() {
            return;
        }
        tokio::time::sleep(HANDSHAKE_AGAIN).await;
    }
}

/// How often the handshake with a server at a URL that did not answer it is tried again.
const HANDSHAKE_AGAIN: Duration = Duration::from_secs(2);

async fn connect(up: &Upstream) -> Handshake {
    let version = env!("CARGO_PKG_VERSION");
    if let Some(answer) = ask(up, DISCOVER.replace("VERSION", version)).await {
        let supported = answer
            .pointer("/result/supportedVersions")
            .and_then(Value::as_array);
        if supported.is_some_and(|v| {
            v.iter()
                .any(|s| s.as_str().is_some_and(|s| MODERN.contains(&s)))
        }) {
            return Handshake::Modern;
        }
    }
    if up.gone() {
        return Handshake::Failed;
    }
    match ask(up, INITIALIZE.replace("VERSION", version)).await {
        Some(answer) => match answer.get("result") {
            Some(result) if result.is_object() => {
                let (stream, _rx) = up.open_stream(None);
                if let Ok(ack) = up
                    .submit(
                        stream,
                        Read::Line(INITIALIZED.as_bytes().to_vec()),
                        INITIALIZED.len(),
                        Instant::now(),
                    )
                    .await
                {
                    let _ = ack.await;
                }
                up.close_stream(stream);
                Handshake::Legacy(Arc::new(result.clone()))
            }
            _ => Handshake::Failed,
        },
        None => Handshake::Failed,
    }
}

/// Sends the front's own request to the child on a stream of its own, and waits for the answer.
async fn ask(up: &Upstream, line: String) -> Option<Value> {
    let (stream, mut rx) = up.open_stream(None);
    let len = line.len();
    let ack = up
        .submit(stream, Read::Line(line.into_bytes()), len, Instant::now())
        .await
        .ok()?;
    let _ = ack.await;
    let answer = tokio::time::timeout(HANDSHAKE_WAIT, async {
        loop {
            let out = rx.recv().await?;
            if is_final(&out.bytes) {
                return Some(out.bytes);
            }
        }
    })
    .await;
    match answer {
        Ok(Some(bytes)) => {
            up.close_stream(stream);
            serde_json::from_slice(&bytes).ok()
        }
        _ => {
            up.stream_gone(stream);
            None
        }
    }
}

/// The `server/discover` result for a child that needed `initialize`, from its handshake.
pub fn discover_result(init: &Value) -> Value {
    let mut result = serde_json::Map::new();
    result.insert(
        "supportedVersions".into(),
        MODERN.iter().map(|v| Value::from(*v)).collect(),
    );
    result.insert(
        "capabilities".into(),
        init.get("capabilities")
            .cloned()
            .unwrap_or_else(|| Value::Object(Default::default())),
    );
    if let Some(instructions) = init.get("instructions").filter(|i| i.is_string()) {
        result.insert("instructions".into(), instructions.clone());
    }
    result.insert("resultType".into(), "complete".into());
    // Required of a discover result (cacheable): kept to the one who asked, never fresh (the child said
    // nothing of caching).
    result.insert("cacheScope".into(), "private".into());
    result.insert("ttlMs".into(), 0.into());
    if let Some(info) = init.get("serverInfo") {
        result.insert(
            "_meta".into(),
            serde_json::json!({ "io.modelcontextprotocol/serverInfo": info }),
        );
    }
    Value::Object(result)
}
