//! Reverse lookup (a dialect's code back to the kind), `explain`, and the generated code tables.

use crate::error::InputError;
use crate::taxonomy::{is_dialect, taxonomy, Kind, Style, DIALECTS};
use serde::Serialize;
use serde_json::Value;
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
pub fn lookup_kind(
    dialect: &str,
    code: i64,
    message: Option<&str>,
    data: Option<&Value>,
) -> Result<Option<&'static str>, InputError> {
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
        let fitting: Vec<&Kind> = narrowed
            .iter()
            .copied()
            .filter(|k| message_fits(k.message_in(dialect), msg))
            .collect();
        if !fitting.is_empty() {
            narrowed = fitting;
        }
    }
    Ok(narrowed
        .first()
        .or(candidates.first())
        .map(|k| k.name.as_str()))
}

/// One field of a kind, as `explain` reports it.
#[derive(Serialize)]
struct FieldInfo<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: &'static str,
    required: bool,
}

/// One kind under a dialect's code, as `explain` reports it (typed rather than built with `json!`: the
/// same JSON for a fraction of the code in the wasm).
#[derive(Serialize)]
struct KindInfo<'a> {
    kind: &'a str,
    code: Option<i32>,
    message: &'a str,
    summary: &'a str,
    category: &'a str,
    gate: Option<&'a str>,
    retryable: bool,
    retry_hint: &'a str,
    http_status: u16,
    log_level: &'a str,
    fields: Vec<FieldInfo<'a>>,
}

fn kind_info<'a>(kind: &'a Kind, dialect: &str) -> KindInfo<'a> {
    KindInfo {
        kind: &kind.name,
        code: kind.dialect(dialect).and_then(|e| e.code),
        message: kind.message_in(dialect),
        summary: &kind.summary,
        category: &kind.category,
        gate: kind.gate.as_deref(),
        retryable: kind.retryable,
        retry_hint: &kind.retry_hint,
        http_status: kind.http_status,
        log_level: &kind.log_level,
        fields: kind
            .fields
            .iter()
            .map(|f| FieldInfo {
                name: &f.name,
                ty: f.ty.name(),
                required: f.required,
            })
            .collect(),
    }
}

/// `explain`'s answer: every kind a dialect renders with one code.
#[derive(Serialize)]
pub struct Explanation<'a> {
    dialect: &'a str,
    code: i64,
    kinds: Vec<KindInfo<'static>>,
}

/// Everything known about a dialect's code: every kind that renders to it.
pub fn explain(dialect: &str, code: i64) -> Result<Explanation<'_>, InputError> {
    if !is_dialect(dialect) {
        return Err(InputError::UnknownDialect(dialect.to_string()));
    }
    let kinds = taxonomy().kinds_with_code(dialect, code);
    if kinds.is_empty() {
        return Err(InputError::UnknownCode {
            dialect: dialect.to_string(),
            code,
        });
    }
    Ok(Explanation {
        dialect,
        code,
        kinds: kinds.iter().map(|k| kind_info(k, dialect)).collect(),
    })
}

/// The whole taxonomy table as `kinds-json` reports it: every kind as `explain` describes it, with its
/// canonical code and message (the typed `kinds` export carries the same facts minus the fields).
pub fn kinds() -> Vec<impl Serialize> {
    taxonomy()
        .kinds
        .iter()
        .map(|k| kind_info(k, "canonical"))
        .collect()
}

fn style_name(style: Style) -> &'static str {
    match style {
        Style::Error => "error",
        Style::Domain => "domain-result",
        Style::ToolResult => "tool-result",
    }
}

/// One row of the code table.
#[derive(Serialize)]
struct CodeRow {
    kind: &'static str,
    code: Option<i32>,
    style: &'static str,
    message: &'static str,
    category: &'static str,
    gate: Option<&'static str>,
    retryable: bool,
    http_status: u16,
    log_level: &'static str,
}

#[derive(Serialize)]
struct DialectCodes {
    description: Option<&'static str>,
    /// The dialect's generic data fields, accepted on every kind (absent when it has none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    generic_fields: Vec<FieldInfo<'static>>,
    codes: Vec<CodeRow>,
}

/// The code table as `codes --format json` writes it.
#[derive(Serialize)]
pub struct CodeTable {
    version: &'static str,
    dialects: crate::ordered::Pairs<&'static str, DialectCodes>,
}

/// The code table as JSON: one dialect, or all of them.
pub fn codes_json(dialect: Option<&str>) -> Result<CodeTable, InputError> {
    let t = taxonomy();
    let mut dialects = crate::ordered::Pairs::new();
    for d in selected(dialect)? {
        let codes = t
            .kinds
            .iter()
            .filter_map(|k| {
                k.dialect(d).map(|e| CodeRow {
                    kind: &k.name,
                    code: e.code,
                    style: style_name(e.style),
                    message: k.message_in(d),
                    category: &k.category,
                    gate: k.gate.as_deref(),
                    retryable: k.retryable,
                    http_status: k.http_status,
                    log_level: &k.log_level,
                })
            })
            .collect();
        let generic_fields = t
            .meta
            .generic_fields(d)
            .iter()
            .map(|f| FieldInfo {
                name: &f.name,
                ty: f.ty.name(),
                required: f.required,
            })
            .collect();
        dialects.insert(
            d,
            DialectCodes {
                description: t.meta.dialects.get(d).map(String::as_str),
                generic_fields,
                codes,
            },
        );
    }
    Ok(CodeTable {
        version: &t.meta.version,
        dialects,
    })
}

/// For one code: each dialect using it, with the kinds it names by that code.
type KindsByDialect<'a> = Vec<(&'a str, Vec<&'a str>)>;

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
        let _ = writeln!(
            md,
            "| kind | category | gate | retryable | HTTP | log level | fields | summary |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
        for k in &t.kinds {
            let fields: Vec<String> = k
                .fields
                .iter()
                .map(|f| {
                    format!(
                        "`{}: {}{}`",
                        f.name,
                        f.ty.name(),
                        if f.required { "" } else { "?" }
                    )
                })
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
        if let Some(desc) = t.meta.dialects.get(d) {
            let _ = writeln!(md, "{desc}\n");
        }
        let generic: Vec<String> = t
            .meta
            .generic_fields(d)
            .iter()
            .map(|f| {
                format!(
                    "`{}: {}{}`",
                    f.name,
                    f.ty.name(),
                    if f.required { "" } else { "?" }
                )
            })
            .collect();
        if !generic.is_empty() {
            let _ = writeln!(
                md,
                "Generic data fields, accepted on every kind: {}.\n",
                generic.join(", ")
            );
        }
        let _ = writeln!(md, "| code | kind | message | rendered as |");
        let _ = writeln!(md, "|---|---|---|---|");
        for k in &t.kinds {
            if let Some(e) = k.dialect(d) {
                let code = e
                    .code
                    .map(|c| c.to_string())
                    .unwrap_or_else(|| "—".to_string());
                let _ = writeln!(
                    md,
                    "| {} | `{}` | {} | {} |",
                    code,
                    k.name,
                    cell(k.message_in(d)),
                    style_name(e.style)
                );
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
        let mut by_code: Vec<(i32, KindsByDialect)> = Vec::new();
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
        // Written name by name: a `[&str]::join` would be the npm module's only copy of that join (1.2 KB).
        md.push_str("| code |");
        for d in DIALECTS {
            let _ = write!(md, " {d} |");
        }
        md.push('\n');
        let _ = writeln!(md, "|---|{}", "---|".repeat(DIALECTS.len()));
        // Codes descending: the entries' codes are distinct keys of a map, so the order is total.
        crate::heap_sort::sort(&mut by_code);
        by_code.reverse();
        for (code, per) in &by_code {
            let mut kinds: Vec<&str> = per.iter().flat_map(|(_, ks)| ks).copied().collect();
            // Unstable: equal names are identical.
            crate::heap_sort::sort(&mut kinds);
            kinds.dedup();
            if kinds.len() < 2 {
                continue;
            }
            let cells: Vec<String> = DIALECTS
                .iter()
                .map(|d| {
                    per.iter()
                        .find(|(dialect, _)| dialect == d)
                        .map(|(_, ks)| {
                            ks.iter()
                                .map(|k| format!("`{k}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        })
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
    use serde_json::json;

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
        assert_eq!(
            lookup_kind("vapora", -32000, Some("Unknown skill: summarize"), None).unwrap(),
            Some("unknown-skill")
        );
        assert_eq!(
            lookup_kind("vapora", -32000, Some("Task not found: t-1"), None).unwrap(),
            Some("task-not-found")
        );
        assert_eq!(
            lookup_kind(
                "vapora",
                -32000,
                Some("Invalid state transition: working -> submitted"),
                None
            )
            .unwrap(),
            Some("invalid-state-transition")
        );
    }

    #[test]
    fn same_number_different_meaning() {
        assert_eq!(
            lookup_kind("thoughtgate", -32001, None, None).unwrap(),
            Some("upstream-timeout")
        );
        assert_eq!(
            lookup_kind("watchgate", -32001, None, None).unwrap(),
            Some("upstream-connection-failed")
        );
        assert_eq!(
            lookup_kind("a2a", -32001, None, None).unwrap(),
            Some("task-not-found")
        );
        assert_eq!(lookup_kind("duet", -32001, None, None).unwrap(), None);
    }
}
