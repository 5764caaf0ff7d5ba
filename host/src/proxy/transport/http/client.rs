//! The HTTP client the guard reaches its upstream with: hyper's pooled client (HTTP/1.1, and HTTP/2 where
//! TLS negotiates it), over rustls with the platform's roots plus `--upstream-ca`; and what a failed
//! exchange is called, in words that name no credential and no URL.

use bytes::Bytes;
use http_body_util::Full;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;
use std::sync::Arc;
use std::time::Duration;

/// How long a connection (TCP and TLS) may take to open.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an idle pooled connection is kept.
const POOL_IDLE: Duration = Duration::from_secs(90);

pub type Client = hyper_util::client::legacy::Client<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// Certificates the guard trusts beside the platform's (`--upstream-ca`: PEM, one or more).
pub fn read_ca(path: &std::path::Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
        .map_err(|e| format!("--upstream-ca {}: {e}", path.display()))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("--upstream-ca {}: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "--upstream-ca {}: no PEM certificate in it",
            path.display()
        ));
    }
    Ok(certs)
}

/// The client: the platform's roots and `extra`, HTTP/1.1 and HTTP/2 (by ALPN), connections pooled.
pub fn build(extra: &[CertificateDer<'static>]) -> Result<Client, String> {
    let mut roots = rustls::RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    for cert in native.certs {
        // A platform certificate rustls cannot use is skipped, as browsers do.
        let _ = roots.add(cert);
    }
    for cert in extra {
        roots
            .add(cert.clone())
            .map_err(|e| format!("--upstream-ca: a certificate rustls refuses: {e}"))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("cannot set up TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(Some(CONNECT_TIMEOUT));
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .enable_http2()
        .wrap_connector(http);
    Ok(
        hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            .pool_idle_timeout(POOL_IDLE)
            .pool_timer(TokioTimer::new())
            .build(connector),
    )
}

/// What went wrong with an exchange, for the client (`reason`: short, fixed words) and for the operator's
/// log (`detail`: the error chain, which the session redacts before it is logged).
pub struct Described {
    pub reason: String,
    pub detail: String,
}

/// Names a failed exchange: refused, reset, DNS, TLS (unknown authority, wrong name, expired), a timeout,
/// a response cut short.
pub fn describe(error: &(dyn std::error::Error + 'static)) -> Described {
    let mut chain = Vec::new();
    walk(error, &mut chain);
    let detail = chain
        .iter()
        .map(|e| e.to_string())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(": ");
    let tls = chain.iter().find_map(|e| e.downcast_ref::<rustls::Error>());
    let io = chain.iter().find_map(|e| {
        e.downcast_ref::<std::io::Error>()
            .and_then(|io| match io.kind() {
                std::io::ErrorKind::ConnectionRefused => {
                    Some("the connection was refused".to_string())
                }
                std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe => {
                    Some("the connection was reset".to_string())
                }
                std::io::ErrorKind::TimedOut => Some(format!(
                    "the connection did not open within {}s",
                    CONNECT_TIMEOUT.as_secs()
                )),
                std::io::ErrorKind::UnexpectedEof => {
                    Some("the connection closed before the response ended".to_string())
                }
                _ => None,
            })
    });
    let cut = chain.iter().find_map(|e| {
        let h = e.downcast_ref::<hyper::Error>()?;
        if h.is_incomplete_message() || h.is_closed() || h.is_canceled() {
            Some("the connection closed before the response ended".to_string())
        } else if h.is_timeout() {
            Some("the upstream did not answer in time".to_string())
        } else {
            None
        }
    });
    let dns = detail.contains("dns error") || detail.contains("failed to lookup address");
    let reason = match (tls, io, cut) {
        (Some(tls), _, _) => tls_reason(tls),
        (None, Some(io), _) => io,
        (None, None, _) if dns => "the upstream's host name did not resolve".into(),
        (None, None, Some(cut)) => cut,
        (None, None, None) if detail.contains("timed out") => format!(
            "the connection did not open within {}s",
            CONNECT_TIMEOUT.as_secs()
        ),
        (None, None, None) => "the exchange with the upstream failed".into(),
    };
    Described { reason, detail }
}

/// Every error in `error`'s chain, including those an `io::Error` wraps (its `source` skips them).
fn walk<'a>(
    error: &'a (dyn std::error::Error + 'static),
    out: &mut Vec<&'a (dyn std::error::Error + 'static)>,
) {
    if out.len() > 16 {
        return;
    }
    out.push(error);
    if let Some(inner) = error
        .downcast_ref::<std::io::Error>()
        .and_then(|io| io.get_ref())
    {
        let inner: &(dyn std::error::Error + 'static) = inner;
        walk(inner, out);
        return;
    }
    if let Some(source) = error.source() {
        walk(source, out);
    }
}

fn tls_reason(e: &rustls::Error) -> String {
    use rustls::CertificateError as C;
    match e {
        rustls::Error::InvalidCertificate(c) => match c {
            C::UnknownIssuer => {
                "TLS: the upstream's certificate is signed by an authority the guard does not trust (--upstream-ca)".into()
            }
            C::NotValidForName | C::NotValidForNameContext { .. } => {
                "TLS: the upstream's certificate is not valid for its host name".into()
            }
            C::Expired | C::ExpiredContext { .. } => "TLS: the upstream's certificate has expired".into(),
            C::NotValidYet | C::NotValidYetContext { .. } => {
                "TLS: the upstream's certificate is not valid yet".into()
            }
            C::Revoked => "TLS: the upstream's certificate was revoked".into(),
            _ => "TLS: the upstream's certificate was refused".into(),
        },
        _ => "TLS: the handshake with the upstream failed".into(),
    }
}
