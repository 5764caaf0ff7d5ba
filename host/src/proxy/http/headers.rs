//! The stateless revision's header rules (2026-07-28): `MCP-Protocol-Version`, `Mcp-Method` and (for the
//! methods that name something) `Mcp-Name` agree with the body, each given once; `params._meta` carries the
//! revision and the client's capabilities. Intermediaries route and authorize by these headers, so every
//! check fails closed: a body the checks cannot read (a member given twice at a level they read, a `params`
//! that is not an object, a name that is not a string) is refused, never passed on unchecked.

use axum::http::HeaderMap;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

pub const VERSION_HEADER: &str = "mcp-protocol-version";
pub const METHOD_HEADER: &str = "mcp-method";
pub const NAME_HEADER: &str = "mcp-name";
pub const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";
pub const CLIENT_CAPABILITIES_META: &str = "io.modelcontextprotocol/clientCapabilities";

/// Why a request breaks the header rules, and how it is answered (HTTP 400 each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Broken {
    /// -32020: a header missing, given twice, or not what the body says.
    Mismatch(String),
    /// -32602: `params._meta` without the revision or the client's capabilities.
    Meta(String),
    /// -32600 `duplicate-member`: a member the checks read is given twice (the server would read the other).
    Repeated(String),
}

/// An object's members as read (names unescaped), with the first name given twice, if any.
struct Members<'a> {
    members: Vec<(Text<'a>, &'a RawValue)>,
    repeated: Option<String>,
}

/// A JSON string as read: borrowed from the body unless it had escapes (a copy per member name was most of
/// the front's allocations for a request).
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Read<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Read<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(Read(std::marker::PhantomData))
    }
}

impl<'a> Members<'a> {
    /// `raw` read as an object; None if it is not one.
    fn of(raw: &'a str) -> Option<Members<'a>> {
        let mut de = serde_json::Deserializer::from_str(raw);
        let members = Members::deserialize(&mut de).ok()?;
        de.end().ok()?;
        Some(members)
    }

    fn get(&self, name: &str) -> Option<&'a RawValue> {
        self.members
            .iter()
            .find(|(n, _)| n.0 == name)
            .map(|(_, v)| *v)
    }

    /// A member's value as a string, if it is one.
    fn string(&self, name: &str) -> Option<Cow<'a, str>> {
        serde_json::from_str::<Text<'a>>(self.get(name)?.get())
            .ok()
            .map(|t| t.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Read<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Read<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Members<'a>, M::Error> {
                let mut members: Vec<(Text<'a>, &'a RawValue)> = Vec::new();
                let mut repeated = None;
                while let Some(name) = map.next_key::<Text<'a>>()? {
                    let value: &'de RawValue = map.next_value()?;
                    if repeated.is_none() && members.iter().any(|(n, _)| n.0 == name.0) {
                        repeated = Some(name.0.to_string());
                    }
                    members.push((name, value));
                }
                Ok(Members { members, repeated })
            }
        }
        d.deserialize_map(Read(std::marker::PhantomData))
    }
}

fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// A header value as the stateless revision writes one: as it is, or `=?base64?...?=` for a value that is
/// not plain visible ASCII.
fn decode_header_value(value: Option<&str>) -> Option<Cow<'_, str>> {
    use base64::Engine;
    let value = value?;
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(payload) => base64::engine::general_purpose::STANDARD
            .decode(payload)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .map(Cow::Owned),
        None => Some(Cow::Borrowed(value)),
    }
}

fn repeated(level: &str, name: &str) -> Broken {
    Broken::Repeated(format!(
        "member \"{name}\" of {level} appears more than once"
    ))
}

/// Checks a stateless request against its headers. Err: why it breaks them, with its id as raw JSON for the
/// answer. A body that is not a JSON object, or one without `method`, is no request the session would
/// forward (it refuses what it cannot read, and routes a client's answers), so it passes here.
pub fn check<'b>(headers: &HeaderMap, body: &'b str) -> Result<(), (Option<&'b RawValue>, Broken)> {
    let Some(top) = Members::of(body).filter(|top| top.get("method").is_some()) else {
        return Ok(());
    };
    let id = top.get("id");
    let refuse = |why: Broken| Err((id, why));
    for name in [VERSION_HEADER, METHOD_HEADER, NAME_HEADER] {
        if headers.get_all(name).iter().count() > 1 {
            return refuse(Broken::Mismatch(format!(
                "{name} header appears more than once"
            )));
        }
    }
    if let Some(name) = &top.repeated {
        return refuse(repeated("the request", name));
    }
    let params = top.get("params").and_then(|p| Members::of(p.get()));
    if let Some(name) = params.as_ref().and_then(|p| p.repeated.as_ref()) {
        return refuse(repeated("params", name));
    }
    let meta = params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(|m| Members::of(m.get()));
    if let Some(name) = meta.as_ref().and_then(|m| m.repeated.as_ref()) {
        return refuse(repeated("params._meta", name));
    }
    let Some(meta) = meta.filter(|m| {
        m.get(PROTOCOL_VERSION_META).is_some() && m.get(CLIENT_CAPABILITIES_META).is_some()
    }) else {
        return refuse(Broken::Meta(format!(
            "params._meta must carry {PROTOCOL_VERSION_META} and {CLIENT_CAPABILITIES_META}"
        )));
    };
    let version = meta.string(PROTOCOL_VERSION_META);
    if version.is_none() || header_str(headers, VERSION_HEADER) != version.as_deref() {
        return refuse(Broken::Mismatch(
            "MCP-Protocol-Version header does not match the request's protocol version".into(),
        ));
    }
    let method = top.string("method");
    if method.is_none() || header_str(headers, METHOD_HEADER) != method.as_deref() {
        return refuse(Broken::Mismatch(
            "Mcp-Method header does not match the request's method".into(),
        ));
    }
    let named = match method.as_deref() {
        Some("tools/call" | "prompts/get") => Some("name"),
        Some("resources/read") => Some("uri"),
        _ => None,
    };
    if let Some(key) = named {
        // Checked only when both are strings and equal: a missing, repeated or non-string name is refused.
        let expected = params.as_ref().and_then(|p| p.string(key));
        let given = decode_header_value(header_str(headers, NAME_HEADER));
        if expected.is_none() || given != expected {
            return refuse(Broken::Mismatch(format!(
                "Mcp-Name header does not match the request's {key}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn headers(method: &str, name: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(VERSION_HEADER, HeaderValue::from_static("2026-07-28"));
        h.insert(METHOD_HEADER, HeaderValue::from_str(method).unwrap());
        if let Some(name) = name {
            h.insert(NAME_HEADER, HeaderValue::from_str(name).unwrap());
        }
        h
    }

    fn call(params: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#)
    }

    fn verdict(h: &HeaderMap, body: &str) -> Result<(), Broken> {
        check(h, body).map_err(|(id, why)| {
            assert_eq!(
                id.map(|i| i.get()),
                Some("7"),
                "answered under the request's id"
            );
            why
        })
    }

    #[test]
    fn a_request_that_keeps_the_rules_passes() {
        let h = headers("tools/call", Some("safe"));
        assert_eq!(
            verdict(&h, &call(&format!(r#"{{"name":"safe","_meta":{META}}}"#))),
            Ok(())
        );
        let h = headers("tools/call", Some("=?base64?w6k=?="));
        assert_eq!(
            verdict(&h, &call(&format!(r#"{{"name":"é","_meta":{META}}}"#))),
            Ok(())
        );
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{{"uri":"file:///a","_meta":{META}}}}}"#
        );
        assert_eq!(
            verdict(&headers("resources/read", Some("file:///a")), &body),
            Ok(())
        );
        let body =
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"ping","params":{{"_meta":{META}}}}}"#);
        assert_eq!(verdict(&headers("ping", None), &body), Ok(()));
    }

    #[test]
    fn every_check_fails_closed_on_a_body_it_cannot_read() {
        let h = headers("tools/call", Some("safe"));
        let mismatch = |what: &str| matches!(verdict(&h, what), Err(Broken::Mismatch(_)));
        let repeated = |what: &str| matches!(verdict(&h, what), Err(Broken::Repeated(_)));
        let meta = |what: &str| matches!(verdict(&h, what), Err(Broken::Meta(_)));
        assert!(repeated(&call(&format!(
            r#"{{"name":"safe","name":"evil","_meta":{META}}}"#
        ))));
        // Names compare unescaped, as the server reads them.
        assert!(repeated(&call(&format!(
            r#"{{"name":"safe","na\u006de":"evil","_meta":{META}}}"#
        ))));
        assert!(repeated(&call(&format!(
            r#"{{"name":"safe","_meta":{META},"_meta":{{}}}}"#
        ))));
        assert!(repeated(&call(
            r#"{"name":"safe","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}"#
        )));
        assert!(repeated(&format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"safe","_meta":{META}}},"params":{{"name":"evil"}}}}"#
        )));
        assert!(meta(&call(r#"["safe"]"#)));
        assert!(meta(&call(r#""safe""#)));
        assert!(meta(&call(r#"{"name":"safe","_meta":[]}"#)));
        assert!(meta(&call(r#"{"name":"safe"}"#)));
        assert!(mismatch(&call(&format!(
            r#"{{"name":["safe"],"_meta":{META}}}"#
        ))));
        assert!(mismatch(&call(&format!(r#"{{"_meta":{META}}}"#))));
        assert!(mismatch(&call(&format!(
            r#"{{"name":"evil","_meta":{META}}}"#
        ))));
        assert!(mismatch(&call(
            r#"{"name":"safe","_meta":{"io.modelcontextprotocol/protocolVersion":["2026-07-28"],"io.modelcontextprotocol/clientCapabilities":{}}}"#
        )));
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":["tools/call"],"params":{{"name":"safe","_meta":{META}}}}}"#
        );
        assert!(mismatch(&body));
        let mut twice = h.clone();
        twice.append(NAME_HEADER, HeaderValue::from_static("safe"));
        assert!(matches!(
            verdict(
                &twice,
                &call(&format!(r#"{{"name":"safe","_meta":{META}}}"#))
            ),
            Err(Broken::Mismatch(_))
        ));
        // A method whatever else is wrong with the body (an `error` member here): checked all the same.
        assert!(mismatch(&format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","error":5,"params":{{"name":"evil","_meta":{META}}}}}"#
        )));
        // Not an object, or no method: no request the session would forward.
        assert_eq!(check(&h, "[1]").map_err(|e| e.1), Ok(()));
        assert_eq!(check(&h, "{oops").map_err(|e| e.1), Ok(()));
        assert_eq!(
            check(&h, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#).map_err(|e| e.1),
            Ok(())
        );
    }
}
