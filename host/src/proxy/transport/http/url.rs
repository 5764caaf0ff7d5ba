//! The upstream's URL: where requests go (its query kept: some servers take a key there), and the name it is
//! shown by in errors and logs, which never carries userinfo, query or fragment (any of them may hold a
//! credential). Userinfo in the URL is sent as HTTP Basic credentials, as curl does.

use hyper::Uri;

#[derive(Clone, Debug)]
pub struct Target {
    /// Where requests go: the URL without userinfo or fragment.
    pub uri: Uri,
    /// `user:password` from the URL, base64 for an `Authorization: Basic` header.
    pub basic: Option<String>,
    /// What in the URL may be a credential (`user:password`, the password, each query value, as written
    /// and decoded): the session redacts them wherever an upstream reflects them.
    pub credentials: Vec<String>,
}

impl Target {
    /// Reads an `http://` or `https://` URL with a host. The error names no part of the URL.
    pub fn parse(text: &str) -> Result<Target, String> {
        let text = text.trim();
        // The fragment is the client's own; it is never sent.
        let text = text.split('#').next().unwrap_or_default();
        let uri: Uri = text.parse().map_err(|_| {
            "--upstream is not a URL (http://HOST[:PORT]/PATH or https://...)".to_string()
        })?;
        match uri.scheme_str() {
            Some("http" | "https") => {}
            _ => return Err("--upstream must be an http:// or https:// URL".into()),
        }
        let Some(authority) = uri.authority() else {
            return Err("--upstream has no host".into());
        };
        if authority.host().is_empty() {
            return Err("--upstream has no host".into());
        }
        let (userinfo, hostport) = match authority.as_str().rsplit_once('@') {
            Some((userinfo, hostport)) => (Some(userinfo), hostport),
            None => (None, authority.as_str()),
        };
        let basic = userinfo.map(|u| {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.encode(percent_decode(u))
        });
        let mut credentials = Vec::new();
        if let Some(u) = userinfo {
            let decoded = String::from_utf8_lossy(&percent_decode(u)).into_owned();
            if let Some((_, password)) = decoded.split_once(':') {
                credentials.push(password.to_string());
            }
            credentials.push(decoded);
        }
        for pair in uri.query().unwrap_or_default().split('&') {
            if let Some((_, value)) = pair.split_once('=') {
                credentials.push(String::from_utf8_lossy(&percent_decode(value)).into_owned());
                credentials.push(value.to_string());
            }
        }
        let path = uri.path_and_query().map_or("/", |p| p.as_str());
        let uri = Uri::builder()
            .scheme(uri.scheme_str().unwrap_or("http"))
            .authority(hostport)
            .path_and_query(path)
            .build()
            .map_err(|_| "--upstream is not a URL".to_string())?;
        Ok(Target {
            uri,
            basic,
            credentials,
        })
    }

    /// `scheme://host[:port]/path`: what errors and logs name the upstream by.
    pub fn shown(&self) -> String {
        shown(&self.uri)
    }

    /// A URL the upstream gave (the legacy transport's `endpoint` event: a path, usually with its session in
    /// the query), resolved against this one. Only a URL on the same scheme, host and port is taken: the
    /// guard's credentials go nowhere else.
    pub fn resolve(&self, reference: &str) -> Option<Uri> {
        let reference = reference.trim();
        let resolved: Uri = if reference.starts_with('/') {
            let mut parts = self.uri.clone().into_parts();
            parts.path_and_query = Some(reference.parse().ok()?);
            Uri::from_parts(parts).ok()?
        } else if reference.contains("://") {
            reference.parse().ok()?
        } else {
            // Relative to the URL's directory.
            let base = self.uri.path();
            let dir = &base[..base.rfind('/').map_or(0, |i| i + 1)];
            let mut parts = self.uri.clone().into_parts();
            parts.path_and_query = Some(format!("{dir}{reference}").parse().ok()?);
            Uri::from_parts(parts).ok()?
        };
        let same_origin = resolved.scheme() == self.uri.scheme()
            && resolved.host() == self.uri.host()
            && resolved.port_u16() == self.uri.port_u16();
        same_origin.then_some(resolved)
    }
}

/// A URL as errors and logs show it: no userinfo, query or fragment.
pub fn shown(uri: &Uri) -> String {
    let host = uri.host().unwrap_or_default();
    let port = uri.port().map(|p| format!(":{p}")).unwrap_or_default();
    format!(
        "{}://{host}{port}{}",
        uri.scheme_str().unwrap_or("http"),
        uri.path()
    )
}

fn percent_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shown_url_carries_no_userinfo_query_or_fragment() {
        let t = Target::parse(
            "https://alice:s3cr%40t@mcp.example:8443/v1/mcp?api_key=sk-live-123#frag",
        )
        .unwrap();
        assert_eq!(t.shown(), "https://mcp.example:8443/v1/mcp");
        // Requests keep the query (the server may want its key there), never the userinfo or fragment.
        assert_eq!(
            t.uri.to_string(),
            "https://mcp.example:8443/v1/mcp?api_key=sk-live-123"
        );
        use base64::Engine;
        let basic = base64::engine::general_purpose::STANDARD
            .decode(t.basic.unwrap())
            .unwrap();
        assert_eq!(basic, b"alice:s3cr@t");
        for credential in ["alice:s3cr@t", "s3cr@t", "sk-live-123"] {
            assert!(
                t.credentials.iter().any(|c| c == credential),
                "{credential}"
            );
        }
        assert_eq!(Target::parse("http://h/").unwrap().shown(), "http://h/");
        assert!(Target::parse("http://h").unwrap().basic.is_none());
    }

    #[test]
    fn a_bad_url_is_refused_without_repeating_it() {
        for bad in [
            "ftp://h/x",
            "mcp.example/mcp",
            "http://",
            "not a url sk-live-123",
        ] {
            let e = Target::parse(bad).unwrap_err();
            assert!(!e.contains("sk-live") && !e.contains("mcp.example"), "{e}");
        }
    }

    #[test]
    fn an_endpoint_resolves_on_the_same_origin_only() {
        let t = Target::parse("http://127.0.0.1:9/sse?k=1").unwrap();
        assert_eq!(
            t.resolve("/messages?sessionId=abc").unwrap().to_string(),
            "http://127.0.0.1:9/messages?sessionId=abc"
        );
        assert_eq!(
            t.resolve("messages?sessionId=abc").unwrap().to_string(),
            "http://127.0.0.1:9/messages?sessionId=abc"
        );
        assert_eq!(
            t.resolve("http://127.0.0.1:9/m").unwrap().to_string(),
            "http://127.0.0.1:9/m"
        );
        assert!(t.resolve("http://evil.example/m").is_none());
        assert!(t.resolve("https://127.0.0.1:9/m").is_none());
    }
}
