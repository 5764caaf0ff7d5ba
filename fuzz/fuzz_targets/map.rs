//! `api::map_error`: map input as fuzzed text, or built from the taxonomy by `arbitrary`.
//!
//! Header: dialect, the call context, mode (bit 0: structured), flags (bit 0: plant a secret, structured
//! mode only), secret, position (which string field gets it).
//! Payload: mode 0, the input text; mode 1, bytes `arbitrary` decodes into a [`MapInput`]: one error, several
//! (first gate wins) or any JSON value, each error with a kind of the taxonomy (or not), an id, and fields
//! mostly named and typed as the kind declares them so that most inputs are accepted.
//!
//! Properties: a dialect outside the eight is refused; an accepted input gives a JSON-RPC 2.0 response
//! (jsonrpc "2.0", an id, exactly one of result / error) whose id is the input's; a secret planted in a field
//! never reaches the output, accepted or refused.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use jsonrpc_errors_fuzz::header::Header;
use jsonrpc_errors_fuzz::json::{assert_response, parse_one, ArbJson, Text, NUMBERS};
use jsonrpc_errors_fuzz::{secrets, text};
use jsonrpc_errors_guest::api;
use jsonrpc_errors_guest::taxonomy::{taxonomy, FieldType};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

#[derive(Arbitrary, Debug)]
enum MapInput {
    One(ErrorSpec),
    Many(Vec<ErrorSpec>),
    Other(ArbJson),
}

#[derive(Arbitrary, Debug)]
struct ErrorSpec {
    kind: KindChoice,
    id: Option<IdChoice>,
    correlation_id: Option<Text>,
    timestamp: Option<Text>,
    fields: Vec<FieldSpec>,
    /// Add the kind's required fields the spec left out (a well-typed value each).
    complete: bool,
}

#[derive(Arbitrary, Debug)]
enum KindChoice {
    /// The taxonomy's kind number n (modulo their count).
    Known(u8),
    Fuzzed(Text),
}

#[derive(Arbitrary, Debug)]
enum IdChoice {
    Int(i64),
    Str(Text),
    Null,
    Number(u8),
    Other(ArbJson),
}

#[derive(Arbitrary, Debug)]
struct FieldSpec {
    name: FieldName,
    value: FieldValue,
}

#[derive(Arbitrary, Debug)]
enum FieldName {
    /// The kind's own field number n (modulo its field count).
    OfKind(u8),
    Fuzzed(Text),
}

#[derive(Arbitrary, Debug)]
enum FieldValue {
    Typed(Typed),
    Any(ArbJson),
}

/// A value of the field's declared type, taken from these.
#[derive(Arbitrary, Debug)]
struct Typed {
    s: Text,
    n: u64,
    i: i32,
    b: bool,
    list: Vec<Text>,
}

/// The strings of the fields built so far get a secret planted in the `index`-th one.
struct Plant {
    secret: &'static str,
    index: usize,
    seen: usize,
    planted: bool,
}

impl Plant {
    fn string(&mut self, s: &str, plant: bool) -> Value {
        let here = plant && self.seen == self.index;
        self.seen += 1;
        if here {
            self.planted = true;
            Value::String(format!("{s} {} ", self.secret))
        } else {
            Value::String(s.to_string())
        }
    }
}

fn typed(ty: FieldType, t: &Typed, plant: &mut Plant, planting: bool) -> Value {
    let Typed { s, n, i, b, list } = t;
    match ty {
        FieldType::String => plant.string(s.as_str(), planting),
        FieldType::U64 => Value::from(*n),
        FieldType::S32 => Value::from(*i),
        FieldType::Bool => Value::Bool(*b),
        FieldType::StringList => Value::Array(
            list.iter()
                .map(|t| plant.string(t.as_str(), planting))
                .collect(),
        ),
        // Safe metadata (the Error Model's `context`): keys from the list, the planted text as values.
        FieldType::Object => Value::Object(
            list.iter()
                .map(|t| (t.as_str().to_string(), plant.string(s.as_str(), planting)))
                .collect(),
        ),
    }
}

impl ErrorSpec {
    fn to_value(&self, plant: &mut Plant, planting: bool) -> Value {
        let kinds = &taxonomy().kinds;
        let kind = match &self.kind {
            KindChoice::Known(i) => Some(&kinds[*i as usize % kinds.len()]),
            KindChoice::Fuzzed(_) => None,
        };
        let mut obj = Map::new();
        obj.insert(
            "kind".into(),
            Value::String(match (&self.kind, kind) {
                (_, Some(k)) => k.name.clone(),
                (KindChoice::Fuzzed(t), None) => t.as_str().to_string(),
                _ => unreachable!(),
            }),
        );
        if let Some(id) = &self.id {
            obj.insert("id".into(), id_value(id));
        }
        if let Some(c) = &self.correlation_id {
            obj.insert(
                "correlation_id".into(),
                Value::String(c.as_str().to_string()),
            );
        }
        if let Some(t) = &self.timestamp {
            obj.insert("timestamp".into(), Value::String(t.as_str().to_string()));
        }
        for f in &self.fields {
            let declared = match (&f.name, kind) {
                (FieldName::OfKind(i), Some(k)) if !k.fields.is_empty() => {
                    Some(&k.fields[*i as usize % k.fields.len()])
                }
                _ => None,
            };
            let name = match (&f.name, declared) {
                (_, Some(d)) => d.name.clone(),
                (FieldName::Fuzzed(t), None) => t.as_str().to_string(),
                (FieldName::OfKind(_), None) => "field".to_string(),
            };
            // A field the fuzzer named `id` is the request's id, which the response echoes by design: no
            // secret is planted there (one was, and came back in the id: the harness's mistake).
            let planting = planting && name != "id";
            let value = match (&f.value, declared) {
                (FieldValue::Typed(t), Some(d)) => typed(d.ty, t, plant, planting),
                (FieldValue::Typed(t), None) => plant.string(t.s.as_str(), planting),
                (FieldValue::Any(v), _) => v.to_value(),
            };
            obj.insert(name, value);
        }
        if let (true, Some(k)) = (self.complete, kind) {
            let missing: Vec<_> = k
                .fields
                .iter()
                .filter(|f| f.required && !obj.contains_key(&f.name))
                .collect();
            for f in missing {
                let t = Typed {
                    s: Text::Word(0),
                    n: 30,
                    i: -32000,
                    b: true,
                    list: Vec::new(),
                };
                let value = typed(f.ty, &t, plant, planting);
                obj.insert(f.name.clone(), value);
            }
        }
        Value::Object(obj)
    }
}

fn id_value(id: &IdChoice) -> Value {
    match id {
        IdChoice::Int(n) => Value::from(*n),
        IdChoice::Str(t) => Value::String(t.as_str().to_string()),
        IdChoice::Null => Value::Null,
        IdChoice::Number(i) => {
            serde_json::from_str(NUMBERS[*i as usize % NUMBERS.len()]).unwrap_or(Value::Null)
        }
        IdChoice::Other(v) => v.to_value(),
    }
}

fuzz_target!(init: secrets::install_environment(), |data: &[u8]| {
    let (h, payload) = Header::split(data);
    let planting = h.flag(0);
    let mut plant = Plant { secret: secrets::secret(h.secret, true), index: h.position(), seen: 0, planted: false };
    let input = if h.mode & 1 == 0 {
        text(payload).into_owned()
    } else {
        let Ok(spec) = MapInput::arbitrary_take_rest(Unstructured::new(payload)) else { return };
        let value = match &spec {
            MapInput::One(e) => e.to_value(&mut plant, planting),
            MapInput::Many(es) => Value::Array(es.iter().map(|e| e.to_value(&mut plant, planting)).collect()),
            MapInput::Other(v) => v.to_value(),
        };
        value.to_string()
    };
    // Secret material the fuzzer wrote itself is no planted secret (see `secrets`): only inputs with none but
    // the planted one are checked.
    let check_leaks = plant.planted && secrets::leak_in(input.replacen(&format!(" {} ", plant.secret), "", 1).as_bytes()).is_none();

    match api::map_error(&input, h.dialect(), &h.ctx()) {
        Err(e) => {
            let failure = api::error_json(&e);
            parse_one(&failure, "map's refusal");
            if check_leaks || !h.dialect_is_valid() {
                secrets::assert_no_leak(&failure, "map's refusal");
            }
        }
        Ok(out) => {
            assert!(h.dialect_is_valid(), "map accepted dialect {:?}", h.dialect());
            let response = parse_one(&out, "map's output");
            assert_response(&response, "map's output");
            // A single input object's id is the response's (absent: null). serde_json reads duplicate keys as
            // the guest does (the last one wins).
            if let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(&input) {
                let id = obj.get("id").cloned().unwrap_or(Value::Null);
                assert_eq!(response["id"], id, "map answered another id: {out}");
            }
            if check_leaks {
                secrets::assert_no_leak(&out, "map's output");
            }
        }
    }
});
