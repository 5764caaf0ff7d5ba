//! Small ordered key/value lists for the mapping hot path.
//!
//! With `preserve_order` (which sanitize and JSON redaction need, so upstream documents keep their key
//! order), every `serde_json::Map` is an IndexMap that hashes each key with SipHash on insert. A response is a
//! handful of keys: a linear scan of a Vec is cheaper than hashing them, and building the output this way,
//! then serializing it straight to text, costs a fraction of building `Value` maps.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use std::borrow::Cow;

/// Keys in insertion order; inserting an existing key replaces its value in place (as `Map::insert` does).
#[derive(Debug, Clone, PartialEq)]
pub struct Pairs<K, V>(Vec<(K, V)>);

impl<K, V> Default for Pairs<K, V> {
    fn default() -> Self {
        Pairs(Vec::new())
    }
}

impl<K: AsRef<str>, V> Pairs<K, V> {
    pub fn new() -> Self {
        Pairs(Vec::new())
    }

    pub fn with_capacity(n: usize) -> Self {
        Pairs(Vec::with_capacity(n))
    }

    pub fn get(&self, key: &str) -> Option<&V> {
        self.0
            .iter()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn insert(&mut self, key: impl Into<K>, value: V) {
        let key = key.into();
        match self.0.iter_mut().find(|(k, _)| k.as_ref() == key.as_ref()) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// Appends a pair whose key the caller knows is not present.
    pub fn push_unique(&mut self, key: K, value: V) {
        debug_assert!(
            !self.contains_key(key.as_ref()),
            "{} is already present",
            key.as_ref()
        );
        self.0.push((key, value));
    }

    /// The pairs, in order, by value.
    pub fn into_pairs(self) -> impl Iterator<Item = (K, V)> {
        self.0.into_iter()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }
}

/// The fields of one map input.
pub type Fields = Pairs<String, Value>;

/// One node of a response under construction: text borrowed from the taxonomy where it can be, any other
/// JSON value, or a nested ordered object. Borrowing keeps the hot path free of copies of constant strings.
#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    Str(Cow<'a, str>),
    Value(Value),
    Object(Obj<'a>),
}

/// An ordered JSON object built for output.
pub type Obj<'a> = Pairs<Cow<'a, str>, Node<'a>>;

impl<'a> From<&'a str> for Node<'a> {
    fn from(s: &'a str) -> Self {
        Node::Str(Cow::Borrowed(s))
    }
}

impl From<String> for Node<'_> {
    fn from(s: String) -> Self {
        Node::Str(Cow::Owned(s))
    }
}

impl From<Value> for Node<'_> {
    fn from(v: Value) -> Self {
        Node::Value(v)
    }
}

impl From<bool> for Node<'_> {
    fn from(b: bool) -> Self {
        Node::Value(Value::Bool(b))
    }
}

impl From<i32> for Node<'_> {
    fn from(n: i32) -> Self {
        Node::Value(Value::from(n))
    }
}

impl<'a> From<Obj<'a>> for Node<'a> {
    fn from(o: Obj<'a>) -> Self {
        Node::Object(o)
    }
}

impl<'a> Obj<'a> {
    /// Inserts text, a JSON value or a nested [`Obj`] (replacing an existing key's value in place).
    pub fn put(&mut self, key: impl Into<Cow<'a, str>>, value: impl Into<Node<'a>>) {
        self.insert(key.into(), value.into());
    }

    /// Appends a key the caller knows is not present yet (a response's fixed keys): no search.
    pub fn push(&mut self, key: &'static str, value: impl Into<Node<'a>>) {
        debug_assert!(!self.contains_key(key), "{key} is already present");
        self.0.push((Cow::Borrowed(key), value.into()));
    }

    /// The same document as a `serde_json::Value` (for callers that embed it in a larger value).
    pub fn into_value(self) -> Value {
        Value::Object(
            self.0
                .into_iter()
                .map(|(k, v)| (k.into_owned(), v.into_value()))
                .collect(),
        )
    }
}

impl Node<'_> {
    pub fn into_value(self) -> Value {
        match self {
            Node::Str(s) => Value::String(s.into_owned()),
            Node::Value(v) => v,
            Node::Object(o) => o.into_value(),
        }
    }
}

impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::Str(text) => s.serialize_str(text),
            Node::Value(v) => v.serialize(s),
            Node::Object(o) => o.serialize(s),
        }
    }
}

impl<K: AsRef<str>, V: Serialize> Serialize for Pairs<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k.as_ref(), v)?;
        }
        map.end()
    }
}

/// A map input as parsed from text: one object, or an array of objects, or something else (refused later).
pub enum InputDoc {
    One(Fields),
    Many(Vec<InputDoc>),
    Other,
}

impl InputDoc {
    pub fn from_value(value: &Value) -> InputDoc {
        match value {
            Value::Object(m) => InputDoc::One(Pairs(
                m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            )),
            Value::Array(items) => InputDoc::Many(items.iter().map(InputDoc::from_value).collect()),
            _ => InputDoc::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn insert_replaces_in_place_and_serializes_in_order() {
        let mut o = Obj::new();
        o.put("b", 1);
        o.put("a", "x");
        o.put("b", 2);
        let mut inner = Obj::new();
        inner.put("z", true);
        o.put("c", inner);
        assert_eq!(
            serde_json::to_string(&o).unwrap(),
            r#"{"b":2,"a":"x","c":{"z":true}}"#
        );
        assert_eq!(o.into_value(), json!({"b": 2, "a": "x", "c": {"z": true}}));
    }
}
