//! An A2A agent's card (`/.well-known/agent-card.json` on the agent's origin), fetched with the guard's own
//! headers for the `--listen` front to serve with its interface URLs pointing at the guard.

use super::client;
use super::spec::Spec;
use super::wire::{is_json, read_capped};
use http_body_util::Full;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Uri};
use std::time::Duration;

/// Where A2A puts an agent's card, on the agent's origin.
pub const WELL_KNOWN: &str = "/.well-known/agent-card.json";
/// The largest card read (a card is a few kilobytes).
const CARD_BYTES: usize = 1024 * 1024;
/// How long fetching the card may take.
const CARD_TIMEOUT: Duration = Duration::from_secs(10);

/// The agent's card as it serves it (JSON bytes), or why it could not be had (naming no URL part but the
/// shown one, and no credential).
pub async fn agent_card(spec: &Spec) -> Result<Vec<u8>, String> {
    let base = &spec.url.uri;
    let uri = Uri::builder()
        .scheme(base.scheme_str().unwrap_or("http"))
        .authority(base.authority().map_or("", |a| a.as_str()))
        .path_and_query(WELL_KNOWN)
        .build()
        .map_err(|_| "the agent card's URL could not be built".to_string())?;
    let mut req = Request::builder().method(Method::GET).uri(uri.clone());
    let headers = req.headers_mut().expect("a fresh request builder");
    headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
    for (name, value) in &spec.headers {
        headers.append(name.clone(), value.clone());
    }
    if let Some(basic) = &spec.url.basic {
        if !headers.contains_key(header::AUTHORIZATION) {
            if let Ok(mut v) = HeaderValue::from_str(&format!("Basic {basic}")) {
                v.set_sensitive(true);
                headers.insert(header::AUTHORIZATION, v);
            }
        }
    }
    let req = req
        .body(Full::default())
        .expect("a request built from valid parts");
    // The URL as errors and logs show it: the target's userinfo was taken out when it was read.
    let shown = uri.to_string();
    let response = tokio::time::timeout(CARD_TIMEOUT, spec.client.request(req))
        .await
        .map_err(|_| format!("{shown}: no response within {}s", CARD_TIMEOUT.as_secs()))?
        .map_err(|e| format!("{shown}: {}", client::describe(&e).reason))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("{shown}: HTTP {}", status.as_u16()));
    }
    if !is_json(response.headers()) {
        return Err(format!("{shown}: not JSON"));
    }
    read_capped(response.into_body(), CARD_BYTES)
        .await
        .ok_or_else(|| format!("{shown}: unreadable, or over {CARD_BYTES} bytes"))
}
