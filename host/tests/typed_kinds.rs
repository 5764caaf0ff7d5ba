//! Every error kind's typed record (the WIT `error-kind`, as `map-error` takes it) maps to the response its JSON
//! form maps to (`map-error-json`), in every dialect, with every field given and with every optional field
//! absent: the component reads the record by generated code (`guest/src/component/kind_input.rs`), and this
//! holds it to the JSON reader for every kind and field type. The records are built from the component's own
//! type of `map-error` (wasmtime's dynamic values), so a kind added to the taxonomy is covered without a line
//! here.

use jsonrpc_errors_host::{engine, COMPONENT};
use serde_json::{json, Map, Value};
use wasmtime::component::{Component, Func, Linker, Type, Val};
use wasmtime::Store;

/// A value of `ty` (`n` tells the values of one record apart) and the JSON the JSON form gives it as; None
/// for an option left absent (`present` false).
fn sample(ty: &Type, n: u64, present: bool) -> Option<(Val, Value)> {
    Some(match ty {
        Type::String => (Val::String(format!("v{n}")), json!(format!("v{n}"))),
        Type::U64 => (Val::U64(n), json!(n)),
        Type::S32 => (Val::S32(-(n as i32)), json!(-(n as i32))),
        Type::Bool => (Val::Bool(n.is_multiple_of(2)), json!(n.is_multiple_of(2))),
        Type::List(l) => {
            let (a, ja) = sample(&l.ty(), n, true)?;
            let (b, jb) = sample(&l.ty(), n + 1, true)?;
            (Val::List(vec![a, b]), json!([ja, jb]))
        }
        Type::Option(o) if present => {
            let (v, j) = sample(&o.ty(), n, true)?;
            (Val::Option(Some(Box::new(v))), j)
        }
        Type::Option(_) => return None,
        other => panic!("a kind's field of type {other:?}: extend this test"),
    })
}

fn func(store: &mut Store<()>, instance: &wasmtime::component::Instance, name: &str) -> Func {
    let api = instance
        .get_export_index(&mut *store, None, "jsonrpc-errors:core/api@0.1.0")
        .expect("an api interface");
    let f = instance
        .get_export_index(&mut *store, Some(&api), name)
        .unwrap_or_else(|| panic!("no {name} export"));
    instance.get_func(&mut *store, f).expect("a function")
}

fn call(store: &mut Store<()>, f: Func, params: &[Val]) -> Val {
    let mut results = [Val::Bool(false)];
    f.call(&mut *store, params, &mut results).expect("a call");
    let [r] = results;
    r
}

#[test]
fn every_kinds_record_maps_as_its_json() {
    let engine = engine::engine().unwrap();
    let component = Component::new(&engine, COMPONENT).unwrap();
    let mut store = Store::new(&engine, ());
    // The component imports nothing (wit/world.wit).
    let instance = Linker::new(&engine)
        .instantiate(&mut store, &component)
        .unwrap();
    let typed = func(&mut store, &instance, "map-error");
    let from_json = func(&mut store, &instance, "map-error-json");
    let params: Vec<(String, Type)> = typed
        .ty(&store)
        .params()
        .map(|(n, t)| (n.to_string(), t))
        .collect();
    let [(_, Type::Variant(kinds)), _, (_, Type::Enum(dialects)), _] = &params[..] else {
        panic!("map-error: func(kind: error-kind, meta: request-meta, dialect: dialect, ctx: call-context)");
    };
    let meta = Val::Record(vec![
        (
            "id-json".into(),
            Val::Option(Some(Box::new(Val::String("\"r-1\"".into())))),
        ),
        (
            "correlation-id".into(),
            Val::Option(Some(Box::new(Val::String("c-1".into())))),
        ),
        ("timestamp".into(), Val::Option(None)),
        ("dialect-fields-json".into(), Val::Option(None)),
    ]);
    let ctx = Val::Record(vec![
        ("unix-millis".into(), Val::U64(1_767_225_600_000)),
        ("entropy".into(), Val::U64(7)),
    ]);
    let mut compared = 0;
    for case in kinds.cases() {
        for present in [true, false] {
            let mut input = Map::new();
            input.insert("kind".into(), json!(case.name));
            let payload = case.ty.as_ref().map(|ty| {
                let Type::Record(record) = ty else {
                    panic!("{}: a kind's payload is its fields' record", case.name)
                };
                let mut fields = Vec::new();
                for (n, f) in record.fields().enumerate() {
                    match sample(&f.ty, n as u64 + 1, present) {
                        Some((v, j)) => {
                            input.insert(f.name.replace('-', "_"), j);
                            fields.push((f.name.to_string(), v));
                        }
                        None => fields.push((f.name.to_string(), Val::Option(None))),
                    }
                }
                Box::new(Val::Record(fields))
            });
            input.insert("id".into(), json!("r-1"));
            input.insert("correlation_id".into(), json!("c-1"));
            let kind = Val::Variant(case.name.to_string(), payload);
            let text = Value::Object(input).to_string();
            for dialect in dialects.names() {
                let dialect = Val::Enum(dialect.to_string());
                let a = call(
                    &mut store,
                    typed,
                    &[kind.clone(), meta.clone(), dialect.clone(), ctx.clone()],
                );
                let b = call(
                    &mut store,
                    from_json,
                    &[Val::String(text.clone()), dialect.clone(), ctx.clone()],
                );
                assert_eq!(a, b, "{} in {dialect:?} from {text}", case.name);
                compared += 1;
            }
        }
    }
    assert!(
        compared > 300,
        "{compared} comparisons: the kinds were not read"
    );
}
