//! Reading one JSON-RPC 2.0 message without building its tree: the envelope's members are borrowed as raw
//! JSON text, so a proxy can classify a multi-megabyte tool result (and forward it byte for byte) after one
//! validating pass and no allocation for its body.

use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// The members of a JSON object in order, each value as raw JSON text (borrowed from the input). One small
/// hand-written visitor serves every object a proxy reads (envelopes, `params`, results, errors): the npm
/// module pays for one instantiation, not one derived visitor per shape.
/// A member's name is borrowed from the input unless it holds an escape: a proxy reads several objects per
/// message (the envelope, `params`, `_meta`, a result), and one allocation per name was most of the guard's
/// cost for a small message.
pub struct RawObject<'a>(pub Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'a> RawObject<'a> {
    /// The first value of a member.
    pub fn get(&self, name: &str) -> Option<&'a RawValue> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }

    fn repeats(&self, name: &str) -> bool {
        self.0.iter().filter(|(k, _)| k == name).count() > 1
    }

    /// A member name given more than once, if any (sorted, not compared pairwise: an object of many
    /// members costs its sort, not its square).
    pub fn repeated(&self) -> Option<&str> {
        let mut names: Vec<&str> = self.0.iter().map(|(k, _)| k.as_ref()).collect();
        crate::heap_sort::sort(&mut names);
        names.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
    }

    /// Reads `raw` as an object (`None` for any other JSON value).
    pub fn of(raw: &'a RawValue) -> Option<RawObject<'a>> {
        if json_type(raw) != JsonType::Object {
            return None;
        }
        serde_json::from_str(raw.get()).ok()
    }
}

impl<'de> Deserialize<'de> for RawObject<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = RawObject<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawObject<'de>, A::Error> {
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(4));
                while let Some(key) = map.next_key_seed(MemberName)? {
                    let value: &'de RawValue = map.next_value()?;
                    members.push((key, value));
                }
                Ok(RawObject(members))
            }
        }
        d.deserialize_map(Members)
    }
}

/// Reads a member's name, borrowed from the input when it has no escapes.
struct MemberName;

impl<'de> DeserializeSeed<'de> for MemberName {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for MemberName {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
}

/// The members JSON-RPC gives meaning to, as raw JSON text; others are skipped (still validated).
/// A present member is `Some` even when its value is `null` (`"id": null` is not the same message as no id).
#[derive(Debug, Default)]
pub struct Envelope<'a> {
    pub jsonrpc: Option<&'a RawValue>,
    pub id: Option<&'a RawValue>,
    pub method: Option<&'a RawValue>,
    pub params: Option<&'a RawValue>,
    pub result: Option<&'a RawValue>,
    pub error: Option<&'a RawValue>,
}

const ENVELOPE_MEMBERS: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];

/// How a line of text reads as JSON-RPC.
pub enum Parsed<'a> {
    /// One JSON object (not yet checked as a request or a response).
    Object(Envelope<'a>),
    /// A JSON array: a batch, its members as raw text.
    Batch(Vec<&'a RawValue>),
    /// Valid JSON that is neither an object nor an array.
    Scalar,
    /// An object that repeats a member JSON-RPC reads: its name. A proxy must not let a second `method` or
    /// `id` be smuggled past the one it read.
    Duplicate(&'static str),
    /// Not JSON: serde's description (position and cause; never the text itself).
    NotJson(String),
}

fn first_byte(text: &str) -> Option<u8> {
    text.bytes().find(|b| !b.is_ascii_whitespace())
}

/// Reads `text` as one JSON-RPC message or batch.
pub fn parse(text: &str) -> Parsed<'_> {
    match first_byte(text) {
        Some(b'{') => match serde_json::from_str::<RawObject>(text) {
            Ok(members) => {
                if let Some(name) = ENVELOPE_MEMBERS.into_iter().find(|m| members.repeats(m)) {
                    return Parsed::Duplicate(name);
                }
                Parsed::Object(Envelope {
                    jsonrpc: members.get("jsonrpc"),
                    id: members.get("id"),
                    method: members.get("method"),
                    params: members.get("params"),
                    result: members.get("result"),
                    error: members.get("error"),
                })
            }
            Err(e) => Parsed::NotJson(e.to_string()),
        },
        Some(b'[') => match serde_json::from_str::<Vec<&RawValue>>(text) {
            Ok(members) => Parsed::Batch(members),
            Err(e) => Parsed::NotJson(e.to_string()),
        },
        _ => match serde_json::from_str::<&RawValue>(text) {
            Ok(_) => Parsed::Scalar,
            Err(e) => Parsed::NotJson(e.to_string()),
        },
    }
}

/// The JSON type of a raw value, from its first byte (serde has validated it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

pub fn json_type(raw: &RawValue) -> JsonType {
    match raw.get().as_bytes().first() {
        Some(b'{') => JsonType::Object,
        Some(b'[') => JsonType::Array,
        Some(b'"') => JsonType::String,
        Some(b't' | b'f') => JsonType::Bool,
        Some(b'n') => JsonType::Null,
        _ => JsonType::Number,
    }
}

/// A raw JSON string's value (escapes decoded); `None` for any other type.
pub fn string_value(raw: &RawValue) -> Option<String> {
    if json_type(raw) != JsonType::String {
        return None;
    }
    serde_json::from_str::<String>(raw.get()).ok()
}

/// A raw value as a `Value` (for the ids and small members a response is rebuilt from).
pub fn value(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

/// The key under which an id (or a progress token) is looked up. A number is keyed by its value, however it
/// is spelled (`7`, `7.0`, `7e0`, `0.7E+1`, `70e-1` are one id; `-0` is `0`), since the peers that re-serialize
/// an id write it their own way: a JavaScript or Python server answers `1E2` with `100` or `100.0`, and this
/// library's own JSON writer spells it `1e+2`. `"7"` stays apart. A string is keyed by its value, not its
/// escapes: `"é"` and `"\u00e9"` are one id (to a client that sends both while the first is in flight, and to
/// a server that re-escapes the id in its answer).
pub fn id_key(raw: &RawValue) -> String {
    let text = raw.get();
    match json_type(raw) {
        // The common id: an integer written plainly, which `number_key` would write back as it is (no point, no
        // exponent, no leading zero, no `-0`, at most 32 zeros after its last significant digit).
        JsonType::Number if plain_integer(text) => return text.to_string(),
        JsonType::Number => {}
        // Without a backslash the text already is the shortest spelling serde_json would write.
        JsonType::String if text.contains('\\') => {
            // Through `Value`, whose parser and writer every module links already (a `String` deserializer
            // of its own costs the npm modules kilobytes).
            return match serde_json::from_str::<Value>(text) {
                Ok(value @ Value::String(_)) => value.to_string(),
                _ => text.to_string(),
            };
        }
        _ => return text.to_string(),
    }
    number_key(text)
}

/// Whether `text` is `-?[1-9][0-9]{0,32}`: an integer `number_key` keys as written.
fn plain_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text).as_bytes();
    matches!(digits.first(), Some(b'1'..=b'9'))
        && digits.len() <= 33
        && digits.iter().all(u8::is_ascii_digit)
}

/// A JSON number's value as text, exactly (no float: ids of any length stay apart): `-` for a negative one,
/// its significant digits, and `e` with the power of ten of the last one unless that is 0 to 32 (then the
/// integer is written out: `7`, `100`, the common ids keyed as written). An exponent is counted up to 2^56
/// only: numbers beyond it (infinite, or zero, to every runtime that reads JSON numbers as doubles) are one
/// id per mantissa and sign of the exponent.
fn number_key(text: &str) -> String {
    // One walk over the bytes, no `str` patterns or integer parsing: the guard's npm module has a size
    // budget, and those generic routines cost it more than this whole function.
    let bytes = text.as_bytes();
    let mut key = Vec::new();
    let (mut at, mut first, mut last, mut fraction, mut point) = (0, None, 0, 0i64, false);
    while at < bytes.len() && bytes[at] | 0x20 != b'e' {
        match bytes[at] {
            b'-' => key.push(b'-'),
            b'.' => point = true,
            digit => {
                if digit != b'0' {
                    first = first.or(Some(at));
                    last = at;
                }
                fraction += i64::from(point);
            }
        }
        at += 1;
    }
    let Some(first) = first else {
        return "0".to_string();
    };
    // The power of ten of the last significant digit: the digits after it, less those after the point,
    // plus the exponent.
    let mut power = -fraction;
    for (i, &b) in bytes[first..at].iter().enumerate() {
        match b {
            b'.' => {}
            _ if first + i <= last => key.push(b),
            _ => power += 1,
        }
    }
    let (mut exponent, mut negative) = (0i64, false);
    for &b in bytes.get(at + 1..).unwrap_or_default() {
        match b {
            b'-' => negative = true,
            b'+' => {}
            digit => exponent = (exponent * 10 + i64::from(digit - b'0')).min(1 << 56),
        }
    }
    power += if negative { -exponent } else { exponent };
    if (0..=32).contains(&power) {
        key.resize(key.len() + power as usize, b'0');
    } else {
        key.push(b'e');
        key.extend(power.to_string().bytes());
    }
    String::from_utf8(key).unwrap_or_default()
}

/// Whether an id is a number with a fractional part (`1.5`; not `1.0` or `1E2`, integers however spelled).
/// JSON-RPC allows one (its numbers "SHOULD NOT" have one); MCP does not ("a string or integer ID"), and
/// neither official SDK can carry one: the Python SDK's message type refuses it, the TypeScript SDK's schema
/// too, so no MCP peer could answer it, and a proxy on an SDK could not write it back.
pub fn fractional_id(raw: &RawValue) -> bool {
    json_type(raw) == JsonType::Number && number_key(raw.get()).contains("e-")
}

/// Why a request object is not a valid JSON-RPC 2.0 request: the invalid-request reason and its details
/// (checked in the order `validate` checks them).
pub struct Invalid {
    pub reason: &'static str,
    pub details: &'static str,
}

/// A valid request or notification.
pub struct Request<'a> {
    /// Present for a request (possibly `null`), absent for a notification.
    pub id: Option<&'a RawValue>,
    pub method: String,
}

/// The id to echo in an error about this object: a string or a number, else null.
pub fn readable_id(envelope: &Envelope<'_>) -> Value {
    match envelope.id {
        Some(id) if matches!(json_type(id), JsonType::String | JsonType::Number) => value(id),
        _ => Value::Null,
    }
}

/// Checks an object with a `method` (or with neither `method` nor a response member) as a request.
pub fn check_request<'a>(envelope: &Envelope<'a>) -> Result<Request<'a>, Invalid> {
    if let Some(id) = envelope.id {
        if !matches!(
            json_type(id),
            JsonType::String | JsonType::Number | JsonType::Null
        ) {
            return Err(Invalid {
                reason: "invalid-id-type",
                details: "id must be a string, a number or null",
            });
        }
        // A string whose escapes are no Unicode (a lone surrogate, `"\uDEe9"`) cannot be read, so it cannot be
        // written back either: every answer of the guard's own carried `null` where the client looks for its
        // id, and `validate` said "valid" with `id: null` (found by cargo-fuzz). Refused like a wrong type.
        if json_type(id) == JsonType::String
            && id.get().contains('\\')
            && string_value(id).is_none()
        {
            return Err(Invalid {
                reason: "invalid-id-string",
                details: "a string id must be valid Unicode (it holds a lone surrogate escape)",
            });
        }
    }
    if envelope.jsonrpc.and_then(string_value).as_deref() != Some("2.0") {
        return Err(Invalid {
            reason: "invalid-jsonrpc-version",
            details: "jsonrpc must be exactly \"2.0\"",
        });
    }
    let method = match envelope.method {
        None => {
            return Err(Invalid {
                reason: "missing-method",
                details: "method is required",
            })
        }
        Some(m) => string_value(m).ok_or(Invalid {
            reason: "invalid-method-type",
            details: "method must be a string",
        })?,
    };
    if let Some(params) = envelope.params {
        if !matches!(json_type(params), JsonType::Object | JsonType::Array) {
            return Err(Invalid {
                reason: "invalid-params-type",
                details: "params must be an array or an object",
            });
        }
    }
    Ok(Request {
        id: envelope.id,
        method,
    })
}

/// An object without `method` but with `result` or `error` is a response.
pub fn is_response(envelope: &Envelope<'_>) -> bool {
    envelope.method.is_none() && (envelope.result.is_some() || envelope.error.is_some())
}

/// A response is well-formed when it says `"jsonrpc": "2.0"`, carries an id, and exactly one of `result`
/// and `error`, the error being an object with an integer code.
pub fn is_well_formed_response(envelope: &Envelope<'_>) -> bool {
    let version = envelope.jsonrpc.and_then(string_value).as_deref() == Some("2.0");
    let one_member = envelope.result.is_some() != envelope.error.is_some();
    let error_ok = envelope.error.is_none_or(|e| {
        RawObject::of(e)
            .and_then(|o| o.get("code"))
            .is_some_and(|code| code.get().parse::<i64>().is_ok())
    });
    version && envelope.id.is_some() && one_member && error_ok
}

/// A request's `params` as a proxy reads it: its members, and those of its `_meta`, each name at most once.
///
/// A proxy reads a member (a tool's `name`, its `arguments`, `_meta.progressToken`) where the peer behind it
/// may read another: the servers' JSON readers (Python's, JavaScript's) keep the last of a repeated member,
/// and a reader that kept the first would judge a tool call by one name while the server ran another. So a
/// repeated member at a level the guard reads is refused, never read one way of two.
#[derive(Default)]
pub struct RequestParams<'a> {
    /// `params` when it is an object (by-position params have no members a proxy reads).
    members: Option<RawObject<'a>>,
    /// `params._meta` when it is an object.
    meta: Option<RawObject<'a>>,
}

impl<'a> RequestParams<'a> {
    /// Reads `params`; `Err`: the member given more than once (`params.name`, `params._meta.progressToken`).
    pub fn read(params: Option<&'a RawValue>) -> Result<RequestParams<'a>, String> {
        let Some(members) = params.and_then(RawObject::of) else {
            return Ok(RequestParams::default());
        };
        if let Some(name) = members.repeated() {
            return Err(format!("params.{name}"));
        }
        let meta = members.get("_meta").and_then(RawObject::of);
        if let Some(name) = meta.as_ref().and_then(RawObject::repeated) {
            return Err(format!("params._meta.{name}"));
        }
        Ok(RequestParams {
            members: Some(members),
            meta,
        })
    }

    /// A member of `params`, as raw JSON borrowed from the line.
    pub fn get(&self, name: &str) -> Option<&'a RawValue> {
        self.members.as_ref()?.get(name)
    }

    /// A member of `params._meta`, as raw JSON borrowed from the line.
    pub fn meta(&self, name: &str) -> Option<&'a RawValue> {
        self.meta.as_ref()?.get(name)
    }

    /// What `_meta` says of the request.
    pub fn request_meta(&self) -> RequestMeta {
        RequestMeta {
            progress_token: self.meta("progressToken").map(id_key),
            protocol_version: self.meta(PROTOCOL_VERSION_META_KEY).and_then(string_value),
        }
    }
}

/// Why a JSON text could not be read one way only.
#[derive(Debug, PartialEq, Eq)]
pub enum Unreadable {
    /// An object gives this member more than once (the first repeated one found, by name).
    Repeated(String),
    /// Not JSON serde_json reads (nested deeper than its recursion limit, or not JSON at all).
    Invalid,
}

/// `text` read as a `Value` when no object in it, at any depth, repeats a member. A `Value` keeps the last of
/// a repeated member, as the peers' readers do; but a message passed on untouched when nothing was found in
/// its `Value` would still carry the first, which a reader keeping the first would show. What a proxy scans
/// (to redact it, or to decide on it) must have one reading only.
pub fn strict_value(text: &str) -> Result<Value, Unreadable> {
    let value: Value = serde_json::from_str(text).map_err(|_| Unreadable::Invalid)?;
    match repeated_member(text) {
        Some(name) => Err(Unreadable::Repeated(name)),
        None => Ok(value),
    }
}

/// The first member name an object of `text` (JSON serde has validated) repeats, at any depth. A scan over
/// the bytes, strings skipped to their closing quote (`memchr`), each object's names compared when it closes:
/// no second parse, and no visitor of its own (each one costs the npm module a copy of the JSON parser).
fn repeated_member(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    // The containers open at each depth: an object's names so far, or none for an array. (Owned names: the
    // npm module already sorts `String`s, and a second sort instantiation costs it more than the copies.)
    let mut open: Vec<Option<Vec<String>>> = Vec::new();
    let mut at = 0;
    let mut name_next = false;
    while at < bytes.len() {
        match bytes[at] {
            b'{' => {
                open.push(Some(Vec::new()));
                name_next = true;
            }
            b'[' => {
                open.push(None);
                name_next = false;
            }
            b'}' | b']' => {
                if let Some(Some(mut names)) = open.pop() {
                    crate::heap_sort::sort(&mut names);
                    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
                        return Some(w[0].clone());
                    }
                }
                name_next = false;
            }
            b',' => name_next = matches!(open.last(), Some(Some(_))),
            b'"' => {
                let end = string_end(bytes, at)?;
                if name_next {
                    let quoted = &text[at..end];
                    let name = if quoted.contains('\\') {
                        serde_json::from_str::<String>(quoted).ok()?
                    } else {
                        quoted[1..quoted.len() - 1].to_string()
                    };
                    if let Some(Some(names)) = open.last_mut() {
                        names.push(name);
                    }
                    name_next = false;
                }
                at = end;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// What a request's `params._meta` (MCP) tells a proxy.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RequestMeta {
    /// `progressToken`, as a lookup key.
    pub progress_token: Option<String>,
    /// The MCP revision the request is made under, in the stateless revisions (2026-07-28 on), which name it
    /// per request instead of negotiating it once.
    pub protocol_version: Option<String>,
}

/// The `_meta` key under which a stateless MCP revision names itself on every request.
pub const PROTOCOL_VERSION_META_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// The top-level members `names` of an object serde has already validated (a `RawValue`), found without
/// validating it again: strings are skipped to their closing quote with `memchr`, other values to the next
/// `,` or `}` at depth 0 (a proxy asks a few members of a result it forwards untouched, and a second
/// validating pass over a multi-megabyte result was half of what relaying it cost). Each is found once; `Err`: the index of one given more than once (whatever a proxy reads of a result it passes on
/// untouched must have one reading: `"isError": false, …, "isError": true` is a failure to a client that
/// keeps the last member, which the proxy must not have passed unredacted). Scans the whole object.
pub fn top_members<'a>(
    object: &'a RawValue,
    names: &[&str],
) -> Result<Vec<Option<&'a str>>, usize> {
    let mut found = vec![None; names.len()];
    let text = object.get();
    let bytes = text.as_bytes();
    if json_type(object) != JsonType::Object {
        return Ok(found);
    }
    let mut at = 1;
    loop {
        at = skip_space(bytes, at);
        if bytes.get(at) != Some(&b'"') {
            return Ok(found);
        }
        let Some(key_end) = string_end(bytes, at) else {
            return Ok(found);
        };
        let key = &text[at..key_end];
        at = skip_space(bytes, key_end);
        at = skip_space(bytes, at + 1); // the colon
        let Some(value_end) = value_end(bytes, at) else {
            return Ok(found);
        };
        if let Some(i) = names.iter().position(|name| key_is(key, name)) {
            if found[i].is_some() {
                return Err(i);
            }
            found[i] = Some(&text[at..value_end]);
        }
        at = skip_space(bytes, value_end);
        match bytes.get(at) {
            Some(b',') => at += 1,
            _ => return Ok(found),
        }
    }
}

/// Whether a member name as written (quoted, maybe with escapes) is `name`.
fn key_is(quoted: &str, name: &str) -> bool {
    let inner = &quoted[1..quoted.len() - 1];
    if !inner.contains('\\') {
        return inner == name;
    }
    serde_json::from_str::<String>(quoted).is_ok_and(|k| k == name)
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
        at += 1;
    }
    at
}

/// Where the string opening at `at` ends (one past its closing quote).
fn string_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    at += 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
        if bytes[at] == b'\\' {
            at += 2; // the escaped character is never the closing quote
        } else {
            return Some(at + 1);
        }
    }
}

/// Where the value starting at `at` ends.
fn value_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match *bytes.get(at)? {
            b'"' => at = string_end(bytes, at)?,
            b'{' | b'[' => {
                depth += 1;
                at += 1;
            }
            b'}' | b']' if depth == 0 => return Some(at),
            b'}' | b']' => {
                depth -= 1;
                at += 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            b',' if depth == 0 => return Some(at),
            b if depth == 0 && b.is_ascii_whitespace() => return Some(at),
            _ => at += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(text: &str) -> Envelope<'_> {
        match parse(text) {
            Parsed::Object(e) => e,
            _ => panic!("{text} is an object"),
        }
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            "[a\"\\\\{}\\[\\],: \u{e9}\n]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            let key = prop_oneof![
                Just("isError".to_string()),
                Just("is\"Error".to_string()),
                "[a-z{}\\[\\]\",\\\\]{0,4}"
            ];
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec((key, inner), 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// An integer id takes the short way to its key (`plain_integer`), and gets the key the long way
        /// (`number_key`) gives it, up to and past the 33 digits the short way takes.
        #[test]
        fn a_plain_integer_id_is_keyed_as_number_key_keys_it(
            negative: bool,
            digits in "(0|[1-9][0-9]{0,40}|[1-9]0{28,36})",
        ) {
            let text = format!("{}{digits}", if negative { "-" } else { "" });
            let raw = serde_json::from_str::<Box<RawValue>>(&text).unwrap();
            proptest::prop_assert_eq!(id_key(&raw), number_key(&text), "{}", text);
        }

        /// The scanner finds what the validating reader finds, compact or pretty-printed, for names written
        /// with and without escapes.
        #[test]
        fn top_members_agree_with_the_validating_reader(value in json_value(), pretty: bool, repeat: bool) {
            let mut text = if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                serde_json::to_string(&value).unwrap()
            };
            // A member given twice (a map cannot hold one): its first member again, at the end.
            if let (true, Value::Object(m)) = (repeat, &value) {
                if let Some((k, v)) = m.iter().next() {
                    let extra = format!(",{}:{}", serde_json::to_string(k).unwrap(), v);
                    text.insert_str(text.rfind('}').unwrap(), &extra);
                }
            }
            let raw: &RawValue = serde_json::from_str(&text).unwrap();
            let members = RawObject::of(raw);
            let mut names: Vec<String> = vec!["isError".into(), "is\"Error".into(), "".into()];
            if let Some(m) = &members {
                names.extend(m.0.iter().map(|(k, _)| k.to_string()));
            }
            for name in names {
                let expected = match &members {
                    Some(m) if m.repeats(&name) => Err(0),
                    Some(m) => Ok(vec![m.get(&name).map(RawValue::get)]),
                    None => Ok(vec![None]),
                };
                proptest::prop_assert_eq!(top_members(raw, &[name.as_str()]), expected, "{} in {}", name, text);
            }
        }
    }

    #[test]
    fn top_members_read_escaped_names_skip_nested_ones_and_refuse_repeated_ones() {
        let raw: &RawValue = serde_json::from_str(
            r#"{"content":[{"isError":false,"t":"a\"}"}],"is\u0045rror" : true}"#,
        )
        .unwrap();
        assert_eq!(
            top_members(raw, &["isError", "t"]),
            Ok(vec![Some("true"), None])
        );
        let raw: &RawValue =
            serde_json::from_str(r#"{"isError":false,"content":[],"is\u0045rror":true}"#).unwrap();
        assert_eq!(top_members(raw, &["content", "isError"]), Err(1));
    }

    /// JSON text whose objects may repeat a member (names from a small set, one spelled with an escape).
    fn json_text_with_repeats() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just("1".to_string()),
            Just("null".to_string()),
            Just(r#""x""#.to_string()),
            Just(r#""a\"{b""#.to_string()),
            Just(r#""{\"a\":1,\"a\":2}""#.to_string()),
        ];
        leaf.prop_recursive(5, 40, 4, |inner| {
            let name = prop_oneof![
                Just(r#""a""#),
                Just(r#""b""#),
                Just(r#""\u0061""#),
                Just(r#""a\"""#)
            ];
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4)
                    .prop_map(|items| format!("[{}]", items.join(","))),
                proptest::collection::vec((name, inner), 0..4).prop_map(|members| {
                    let members: Vec<String> =
                        members.iter().map(|(k, v)| format!("{k} : {v}")).collect();
                    format!("{{ {} }}", members.join(" ,"))
                }),
            ]
        })
    }

    /// Whether any object in `raw` repeats a member, the slow way (each object read by `RawObject`).
    fn repeats_somewhere(raw: &RawValue) -> bool {
        match json_type(raw) {
            JsonType::Object => RawObject::of(raw).is_some_and(|o| {
                o.repeated().is_some() || o.0.iter().any(|(_, v)| repeats_somewhere(v))
            }),
            JsonType::Array => serde_json::from_str::<Vec<&RawValue>>(raw.get())
                .is_ok_and(|items| items.iter().any(|v| repeats_somewhere(v))),
            _ => false,
        }
    }

    proptest::proptest! {
        /// The scan finds a repeated member exactly where reading each object finds one.
        #[test]
        fn the_repeat_scan_agrees_with_reading_each_object(text in json_text_with_repeats()) {
            let raw: &RawValue = serde_json::from_str(&text).unwrap();
            proptest::prop_assert_eq!(repeated_member(&text).is_some(), repeats_somewhere(raw), "{}", text);
        }
    }

    #[test]
    fn strict_reading_refuses_a_member_repeated_at_any_depth() {
        assert_eq!(
            strict_value(r#"{"a":[{"b":1,"c":{"d":2,"d":3}}],"e":1}"#),
            Err(Unreadable::Repeated("d".into()))
        );
        assert_eq!(
            strict_value(r#"{"a":1,"\u0061":2}"#),
            Err(Unreadable::Repeated("a".into()))
        );
        let same_name_apart = r#"{"a":{"x":1},"b":{"x":1.5e3}}"#;
        assert_eq!(
            strict_value(same_name_apart),
            Ok(serde_json::from_str(same_name_apart).unwrap())
        );
        assert_eq!(strict_value(&"[".repeat(200)), Err(Unreadable::Invalid));
        assert_eq!(strict_value(r#"{"a":1} x"#), Err(Unreadable::Invalid));
    }

    #[test]
    fn call_params_refuse_a_repeated_member_where_a_proxy_reads() {
        let params = |t: &str| serde_json::from_str::<Box<RawValue>>(t).unwrap();
        let read = |t: &str| {
            RequestParams::read(Some(&params(t)))
                .map(|p| p.get("name").map(|r| r.get().to_string()))
        };
        assert_eq!(
            read(r#"{"name":"a","arguments":{"name":"x","name":"y"}}"#),
            Ok(Some("\"a\"".into()))
        );
        assert_eq!(
            read(r#"{"name":"a","name":"b"}"#),
            Err("params.name".into())
        );
        assert_eq!(
            read(r#"{"n\u0061me":"a","name":"b"}"#),
            Err("params.name".into())
        );
        assert_eq!(
            read(r#"{"_meta":{"progressToken":1,"progressToken":2}}"#),
            Err("params._meta.progressToken".into())
        );
        assert_eq!(read("[1,1]"), Ok(None));
    }

    #[test]
    fn null_id_is_present_and_absent_id_is_not() {
        assert_eq!(
            object(r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#)
                .id
                .map(RawValue::get),
            Some("null")
        );
        assert!(object(r#"{"jsonrpc":"2.0","method":"m"}"#).id.is_none());
    }

    #[test]
    fn a_repeated_member_is_refused_by_name() {
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#),
            Parsed::Duplicate("method")
        ));
        // Members JSON-RPC does not read may repeat: they are skipped, never acted on.
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","method":"a","x":1,"x":2}"#),
            Parsed::Object(_)
        ));
    }

    #[test]
    fn lines_that_are_not_messages() {
        assert!(matches!(parse("garbage"), Parsed::NotJson(_)));
        assert!(matches!(parse(r#"{"id":1"#), Parsed::NotJson(_)));
        assert!(matches!(parse("42"), Parsed::Scalar));
        assert!(matches!(parse(r#"[{"a":1}, 2]"#), Parsed::Batch(m) if m.len() == 2));
        assert!(matches!(parse(""), Parsed::NotJson(_)));
    }

    #[test]
    fn ids_meet_across_number_spellings_but_not_across_types() {
        let key = |t: &str| id_key(&serde_json::from_str::<Box<RawValue>>(t).unwrap());
        assert_eq!(key("7"), key("7.0"));
        assert_eq!(key("-0"), key("0.00"));
        assert_ne!(key("7"), key("\"7\""));
        assert_eq!(key("\"a\""), "\"a\"");
        assert_eq!(key("18446744073709551615"), "18446744073709551615");
        assert_eq!(key("0.5"), "5e-1");
        // Exponents, however written, and the spelling serde_json writes back (`1E2` as `1e+2`).
        for same in [
            "100",
            "100.0",
            "1E2",
            "1e+2",
            "1e2",
            "10E1",
            "0.1e3",
            "1000e-1",
            "1.000e2",
            "100.00E+0",
        ] {
            assert_eq!(key(same), "100", "{same}");
        }
        assert_eq!(key("-7e0"), "-7");
        assert_eq!(key("-0e5"), "0");
        assert_ne!(key("1e2"), key("1e3"));
        assert_ne!(key("1e2"), key("-1e2"));
        assert_ne!(key("15e-1"), key("15"));
        assert_eq!(key("15e-1"), key("1.5"));
        // Ids of any length stay apart: no float rounds two of them into one.
        assert_ne!(
            key("12345678901234567890123"),
            key("12345678901234567890124")
        );
        assert_eq!(key("1e40"), "1e40");
        assert_eq!(key("1e999999999"), key("10e999999998"));
        // An exponent of any length (found by cargo-fuzz: `75555555E555555`, which the guard's own answer
        // spells `75555555e+555555`), counted up to 2^56.
        let huge = "9".repeat(60);
        assert_eq!(
            key(&format!("75555555E{huge}")),
            key(&format!("75555555e+{huge}"))
        );
        assert_eq!(
            key(&format!("75555555E{huge}")),
            key(&format!("75555555.00e{huge}"))
        );
        assert_ne!(
            key(&format!("75555555E{huge}")),
            key(&format!("75555555E-{huge}"))
        );
        assert_ne!(
            key(&format!("75555555E{huge}")),
            key(&format!("75555556E{huge}"))
        );
    }

    #[test]
    fn calls_are_checked_in_validate_order() {
        let reason = |t: &str| check_request(&object(t)).err().map(|e| e.reason);
        assert_eq!(
            reason(r#"{"jsonrpc":"2.0","id":{},"method":"m"}"#),
            Some("invalid-id-type")
        );
        assert_eq!(
            reason(r#"{"jsonrpc":"2.0","id":"a\uDEe9","method":"m"}"#),
            Some("invalid-id-string")
        );
        assert_eq!(
            reason(r#"{"jsonrpc":"2.0","id":"\uD800x","method":"m"}"#),
            Some("invalid-id-string")
        );
        // A pair is one character; other escapes are fine.
        assert_eq!(
            reason(r#"{"jsonrpc":"2.0","id":"\uD83D\uDE00 \u00e9\/\n","method":"m"}"#),
            None
        );
        assert_eq!(
            reason(r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#),
            Some("invalid-jsonrpc-version")
        );
        assert_eq!(
            reason(r#"{"jsonrpc":"2.0","id":1}"#),
            Some("missing-method")
        );
        assert_eq!(
            reason(r#"{"jsonrpc":"2.0","id":1,"method":5}"#),
            Some("invalid-method-type")
        );
        assert_eq!(
            reason(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":3}"#),
            Some("invalid-params-type")
        );
        assert_eq!(
            reason(r#"{"jsonrpc":"2\u002e0","id":1,"method":"m"}"#),
            None
        );
    }

    #[test]
    fn responses_are_told_from_calls_and_checked() {
        let ok = object(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert!(is_response(&ok) && is_well_formed_response(&ok));
        let both =
            object(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#);
        assert!(is_response(&both) && !is_well_formed_response(&both));
        let bad_code = object(r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#);
        assert!(!is_well_formed_response(&bad_code));
        assert!(!is_well_formed_response(&object(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5}}"#
        )));
        assert!(!is_response(&object(
            r#"{"jsonrpc":"2.0","id":1,"method":"m","result":1}"#
        )));
    }

    #[test]
    fn progress_tokens_and_revisions_from_meta() {
        let params = |t: &str| serde_json::from_str::<Box<RawValue>>(t).unwrap();
        let meta = |t: &str| {
            RequestParams::read(Some(&params(t)))
                .unwrap()
                .request_meta()
        };
        assert_eq!(
            meta(r#"{"_meta":{"progressToken":"p1"},"name":"x"}"#).progress_token,
            Some("\"p1\"".into())
        );
        assert_eq!(meta(r#"{"name":"x"}"#).progress_token, None);
        assert_eq!(meta("[1]").progress_token, None);
        assert_eq!(
            meta(
                r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":7}}"#
            ),
            RequestMeta {
                progress_token: Some("7".into()),
                protocol_version: Some("2026-07-28".into())
            }
        );
        assert_eq!(
            meta(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}"#).protocol_version,
            None
        );
    }
}
