//! Reading the guest's map input (`{"kind": …, ...fields}`) field by field: what the generated `Deserialize`
//! of [`crate::ErrorKind`] is written with.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use std::marker::PhantomData;

/// The members of one map input, taken out one at a time, so that whatever is left at the end is a field
/// the kind does not have.
pub(crate) struct FieldReader<E> {
    members: Map<String, Value>,
    error: PhantomData<E>,
}

impl<E: serde::de::Error> FieldReader<E> {
    pub(crate) fn new<'de, D: Deserializer<'de, Error = E>>(deserializer: D) -> Result<Self, E> {
        Ok(FieldReader {
            members: Map::deserialize(deserializer)?,
            error: PhantomData,
        })
    }

    /// The `kind` member, as `known` names it.
    pub(crate) fn kind<K>(&mut self, known: impl Fn(&str) -> Option<K>) -> Result<K, E> {
        match self.members.remove("kind") {
            Some(Value::String(name)) => {
                known(&name).ok_or_else(|| E::custom(format!("unknown kind '{name}'")))
            }
            Some(_) => Err(E::custom("\"kind\" must be a string")),
            None => Err(E::missing_field("kind")),
        }
    }

    pub(crate) fn required<T: DeserializeOwned>(&mut self, name: &'static str) -> Result<T, E> {
        let value = self
            .members
            .remove(name)
            .ok_or_else(|| E::missing_field(name))?;
        // From a `Value`, not from serde's buffered content: numbers keep their type under `arbitrary_precision`.
        serde_json::from_value(value).map_err(|e| E::custom(format!("field '{name}': {e}")))
    }

    /// An absent field and a null one are both `None` (the guest reads them alike).
    pub(crate) fn optional<T: DeserializeOwned>(
        &mut self,
        name: &'static str,
    ) -> Result<Option<T>, E> {
        match self.members.remove(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => serde_json::from_value(value)
                .map(Some)
                .map_err(|e| E::custom(format!("field '{name}': {e}"))),
        }
    }

    /// `value`, if no member is left over: a field the kind does not have is refused, as the guest refuses it.
    pub(crate) fn finish<T>(self, value: T, kind_name: &str) -> Result<T, E> {
        match self.members.keys().next() {
            Some(name) => Err(E::custom(format!(
                "kind '{kind_name}' has no field '{name}'"
            ))),
            None => Ok(value),
        }
    }
}
