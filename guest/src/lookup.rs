//! Reverse lookup (a dialect's code back to the kind), `explain`, and the generated code tables.

use crate::error::InputError;
use crate::taxonomy::{is_dialect, taxonomy, Kind, Style, DIALECTS};
use serde_json::{json, Map, Value};
use std::fmt::Write;

/// Does `message` fit `template` (literal parts equal, `{field}` parts anything)?
fn message_fits(template: &str, message: &str) -> bool {
    let mut literals = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        literals.push(&rest[..open]);
        match rest[open..].find('}') {
            Some(close) => rest = &rest[open + close + 1..],
            None => return template == message,
        }
    }
    literals.push(rest);
    if literals.len() == 1 {
        return template == message;
    }
    let mut pos = 0;
    let last = literals.len() - 1;
    for (i, lit) in literals.iter().enumerate() {
        if i == 0 {
            if !message.starts_with(lit) {
                return false;
            }
            pos = lit.len();
        } else if i == last {
            return message.len() >= pos + lit.len() && message.ends_with(lit);
        } else {
            match message[pos..].find(lit) {
                Some(at) => pos += at + lit.len(),
                None => return false,
            }
        }
    }
    true
}

/// The kind a dialect's code stands for. Where a dialect uses one code for several kinds, `data.type`
/// (canonical), the message (VAPORA's -32000) or `data.gate` decides; otherwise the first kind in the table
/// with that code (its "home" kind) is returned.
pub fn lookup_kind(dialect: &str, code: i64, message: Option<&str>, data: Option<&Value>) -> Result<Option<&'static str>, InputError> {
    if !is_dialect(dialect) {
        return Err(InputError::UnknownDialect(dialect.to_string()));
    }
    let candidates = taxonomy().kinds_with_code(dialect, code);
    if candidates.is_empty() {
        return Ok(None);
    }
    if let Some(ty) = data.and_then(|d| d.get("type")).and_then(Value::as_str) {
        if let Some(k) = candidates.iter().find(|k| k.name == ty) {
            return Ok(Some(k.name.as_str()));
        }
    }
    let mut narrowed: Vec<&Kind> = candidates.clone();
    if let Some(gate) = data.and_then(|d| d.get("gate")).and_then(Value::as_str) {
        narrowed.retain(|k| k.gate.as_deref() == Some(gate));
    }
    if let Some(msg) = message {
        let fitting: Vec<&Kind> = narrowed.iter().copied().filter(|k| message_fits(k.message_in(dialect), msg)).collect();
        if !fitting.is_empty() {
            narrowed = fitting;
        }
    }
    Ok(narrowed.first().or(candidates.first()).map(|k| k.name.as_str()))
}

fn kind_json(kind: &Kind, dialect: &str) -> Value {
    let entry = kind.dialect(dialect);
    json!({
        "kind": kind.name,
        "code": entry.and_then(|e| e.code),
        "message": kind.message_in(dialect),
        "summary": kind.summary,
        "category": kind.category,
        "gate": kind.gate,
        "retryable": kind.retryable,
        "retry_hint": kind.retry_hint,
        "http_status": kind.http_status,
        "log_level": kind.log_level,
        "fields": kind.fields.iter().map(|f| json!({"name": f.name, "type": f.ty.name(), "required": f.required})).collect::<Vec<_>>(),
    })
}

/// Everything known about a dialect's code: every kind that renders to it.
pub fn explain(dialect: &str, code: i64) -> Result<Value, InputError> {
    if !is_dialect(dialect) {
        return Err(InputError::UnknownDialect(dialect.to_string()));
    }
    let kinds = taxonomy().kinds_with_code(dialect, code);
    if kinds.is_empty() {
        return Err(InputError::UnknownCode { dialect: dialect.to_string(), code });
    }
    Ok(json!({
        "dialect": dialect,
        "code": code,
        "kinds": kinds.iter().map(|k| kind_json(k, dialect)).collect::<Vec<_>>(),
    }))
}

fn style_name(style: Style) -> &'static str {
    match style {
        Style::Error => "error",
        Style::Domain => "domain-result",
        Style::ToolResult => "tool-result",
    }
}

/// The code table as JSON: one dialect, or all of them.
pub fn codes_json(dialect: Option<&str>) -> Result<Value, InputError> {
    let t = taxonomy();
    let dialects = selected(dialect)?;
    let mut out = Map::new();
    out.insert("version".into(), json!(t.meta.version));
    let mut ds = Map::new();
    for d in dialects {
        let rows: Vec<Value> = t
            .kinds
            .iter()
            .filter_map(|k| {
                k.dialect(d).map(|e| {
                    json!({"kind": k.name, "code": e.code, "style": style_name(e.style), "message": k.message_in(d),
                           "category": k.category, "gate": k.gate, "retryable": k.retryable, "http_status": k.http_status,
                           "log_level": k.log_level})
                })
            })
            .collect();
        ds.insert(d.to_string(), json!({"description": t.meta.dialects.get(d), "codes": rows}));
    }
    out.insert("dialects".into(), Value::Object(ds));
    Ok(Value::Object(out))
}

fn selected(dialect: Option<&str>) -> Result<Vec<&'static str>, InputError> {
    match dialect {
        None => Ok(DIALECTS.to_vec()),
        Some(d) => DIALECTS
            .iter()
            .find(|x| **x == d)
            .map(|x| vec![*x])
            .ok_or_else(|| InputError::UnknownDialect(d.to_string())),
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The code table as Markdown (`docs/codes.md` is this with no dialect selected).
pub fn codes_markdown(dialect: Option<&str>) -> Result<String, InputError> {
    let t = taxonomy();
    let dialects = selected(dialect)?;
    let mut md = String::new();
    let _ = writeln!(md, "# Error codes\n");
    let _ = writeln!(
        md,
        "Generated from `taxonomy/taxonomy.toml` (version {}) by `cargo xtask gen`; do not edit by hand.\n",
        t.meta.version
    );
    if dialect.is_none() {
        let _ = writeln!(md, "## Kinds\n");
        let _ = writeln!(md, "| kind | category | gate | retryable | HTTP | log level | fields | summary |");
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
        for k in &t.kinds {
            let fields: Vec<String> = k
                .fields
                .iter()
                .map(|f| format!("`{}: {}{}`", f.name, f.ty.name(), if f.required { "" } else { "?" }))
                .collect();
            let _ = writeln!(
                md,
                "| `{}` | {} | {} | {} | {} | {} | {} | {} |",
                k.name,
                k.category,
                k.gate.as_deref().unwrap_or(""),
                if k.retryable { "yes" } else { "no" },
                k.http_status,
                k.log_level,
                cell(&fields.join(", ")),
                cell(&k.summary)
            );
        }
        md.push('\n');
    }
    for d in &dialects {
        let _ = writeln!(md, "## Dialect `{d}`\n");
        if let Some(desc) = t.meta.dialects.get(*d) {
            let _ = writeln!(md, "{desc}\n");
        }
        let _ = writeln!(md, "| code | kind | message | rendered as |");
        let _ = writeln!(md, "|---|---|---|---|");
        for k in &t.kinds {
            if let Some(e) = k.dialect(d) {
                let code = e.code.map(|c| c.to_string()).unwrap_or_else(|| "—".to_string());
                let _ = writeln!(md, "| {} | `{}` | {} | {} |", code, k.name, cell(k.message_in(d)), style_name(e.style));
            }
        }
        md.push('\n');
    }
    if dialect.is_none() {
        let _ = writeln!(md, "## Collisions across dialects\n");
        let _ = writeln!(
            md,
            "The same number means different things in different dialects (and, in `canonical`, families of kinds \
             share a number and are told apart by `data.type`). Each row is a code used by more than one kind.\n"
        );
        // Plain vectors searched linearly (a few dozen codes, eight dialects): hash maps keyed by these types
        // would each add their own copy of the hash table code to the npm wasm.
        let mut by_code: Vec<(i32, Vec<(&str, Vec<&str>)>)> = Vec::new();
        for k in &t.kinds {
            for (d, e) in &k.dialects {
                if let Some(c) = e.code {
                    let per = match by_code.iter().position(|(code, _)| *code == c) {
                        Some(i) => &mut by_code[i].1,
                        None => {
                            by_code.push((c, Vec::new()));
                            &mut by_code.last_mut().expect("just pushed").1
                        }
                    };
                    match per.iter_mut().find(|(dialect, _)| *dialect == d.as_str()) {
                        Some((_, kinds)) => kinds.push(k.name.as_str()),
                        None => per.push((d.as_str(), vec![k.name.as_str()])),
                    }
                }
            }
        }
        let _ = writeln!(md, "| code | {} |", DIALECTS.join(" | "));
        let _ = writeln!(md, "|---|{}", "---|".repeat(DIALECTS.len()));
        by_code.sort_unstable_by_key(|(code, _)| std::cmp::Reverse(*code));
        for (code, per) in &by_code {
            let mut kinds: Vec<&str> = per.iter().flat_map(|(_, ks)| ks).copied().collect();
            // Unstable: equal names are identical, and the stable sort's code would be one more copy in the wasm.
            kinds.sort_unstable();
            kinds.dedup();
            if kinds.len() < 2 {
                continue;
            }
            let cells: Vec<String> = DIALECTS
                .iter()
                .map(|d| {
                    per.iter()
                        .find(|(dialect, _)| dialect == d)
                        .map(|(_, ks)| ks.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", "))
                        .unwrap_or_default()
                })
                .collect();
            let _ = writeln!(md, "| {} | {} |", code, cells.join(" | "));
        }
    }
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reverse_lookup_round_trips_every_kind() {
        for k in &taxonomy().kinds {
            for (d, e) in &k.dialects {
                let Some(code) = e.code else { continue };
                let data = json!({"type": k.name, "gate": k.gate});
                let got = lookup_kind(d, i64::from(code), None, Some(&data)).unwrap();
                if d == "canonical" {
                    assert_eq!(got, Some(k.name.as_str()), "canonical {code}");
                }
                assert!(got.is_some());
            }
        }
    }

    #[test]
    fn vapora_minus_32000_is_told_apart_by_its_message() {
        assert_eq!(lookup_kind("vapora", -32000, Some("Unknown skill: summarize"), None).unwrap(), Some("unknown-skill"));
        assert_eq!(lookup_kind("vapora", -32000, Some("Task not found: t-1"), None).unwrap(), Some("task-not-found"));
        assert_eq!(
            lookup_kind("vapora", -32000, Some("Invalid state transition: working -> submitted"), None).unwrap(),
            Some("invalid-state-transition")
        );
    }

    #[test]
    fn same_number_different_meaning() {
        assert_eq!(lookup_kind("thoughtgate", -32001, None, None).unwrap(), Some("upstream-timeout"));
        assert_eq!(lookup_kind("watchgate", -32001, None, None).unwrap(), Some("upstream-connection-failed"));
        assert_eq!(lookup_kind("a2a", -32001, None, None).unwrap(), Some("task-not-found"));
        assert_eq!(lookup_kind("duet", -32001, None, None).unwrap(), None);
    }
}
