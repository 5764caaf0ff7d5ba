//! Tables in text: a header row naming its columns and the rows under it (CSV, TSV, markdown tables, SQL
//! `INSERT … VALUES` with a column list). A rule with `window = "column"` or `"sql-values"` finds a secret's
//! column by its header cell's name and judges each row's cell in that column as an assignment's value is
//! judged by its name. This module only reads the structure (byte spans of headers and cells); which names
//! hold secrets is the name classifier's (`validators`), and what in a cell is the secret the rule's pattern.
//!
//! Linear: each header's rows are read once, and a line read as a row is never read again as a header.

/// A secret column's cell: the span of the header cell naming it and the span of the row's cell.
pub(super) struct ColumnCell {
    pub(super) name: (usize, usize),
    pub(super) cell: (usize, usize),
}

/// The cells of one line (`start..end`, no line break), split at `separator` outside double quotes (CSV's
/// quoting; `""` inside quotes is a quote). For `|` (a markdown table) the outer pipes open and close the
/// row and are no cell boundaries. Spans are trimmed of spaces.
pub(super) fn cells(bytes: &[u8], start: usize, end: usize, separator: u8) -> Vec<(usize, usize)> {
    let (mut start, mut end) = (start, end);
    if separator == b'|' {
        while start < end && matches!(bytes[start], b' ' | b'\t') {
            start += 1;
        }
        while end > start && matches!(bytes[end - 1], b' ' | b'\t' | b'\r') {
            end -= 1;
        }
        if start >= end || bytes[start] != b'|' {
            return Vec::new();
        }
        start += 1;
        if end > start && bytes[end - 1] == b'|' {
            end -= 1;
        }
    }
    let mut out = Vec::new();
    let mut cell_start = start;
    let mut quoted = false;
    let mut i = start;
    while i <= end {
        if i == end || (!quoted && bytes[i] == separator) {
            out.push(trim(bytes, cell_start, i));
            cell_start = i + 1;
        } else if bytes[i] == b'"' && separator != b'|' {
            quoted = !quoted;
        }
        i += 1;
    }
    out
}

fn trim(bytes: &[u8], mut s: usize, mut e: usize) -> (usize, usize) {
    while s < e && matches!(bytes[s], b' ' | b'\t' | b'\r') {
        s += 1;
    }
    while e > s && matches!(bytes[e - 1], b' ' | b'\t' | b'\r') {
        e -= 1;
    }
    (s, e)
}

/// A header cell: a column's name (`password`, `"api_key"`, `API Key`), quotes stripped; none for text that
/// reads as prose (more than three words, sentence punctuation).
fn column_name(bytes: &[u8], (s, e): (usize, usize)) -> Option<(usize, usize)> {
    let (mut s, mut e) = (s, e);
    if e - s >= 2 && matches!(bytes[s], b'"' | b'`' | b'\'') && bytes[e - 1] == bytes[s] {
        s += 1;
        e -= 1;
    }
    let name = &bytes[s..e];
    let ok = !name.is_empty()
        && name.len() <= 48
        && name[0].is_ascii_alphabetic()
        && name
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b' '))
        && name.iter().filter(|b| **b == b' ').count() <= 2;
    ok.then_some((s, e))
}

/// A markdown table's rule line (`|---|:---:|`).
fn is_rule_row(bytes: &[u8], start: usize, end: usize) -> bool {
    let line = &bytes[start..end];
    line.contains(&b'-')
        && line
            .iter()
            .all(|b| matches!(b, b'|' | b'-' | b':' | b' ' | b'\t' | b'\r'))
}

/// The line holding `at`: (start, end without its line break, end with it).
fn line_at(bytes: &[u8], at: usize) -> (usize, usize, usize) {
    let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
    match memchr::memchr(b'\n', &bytes[at..]) {
        Some(i) => (start, at + i, at + i + 1),
        None => (start, bytes.len(), bytes.len()),
    }
}

/// The secret columns' cells of the tables whose header lines hold the windows' starts. `secret_name`
/// says whether a header cell's name names a secret. A header needs two cells at least; its rows are the
/// lines right after it with as many cells (a markdown table's rule line is skipped).
pub(super) fn column_cells(
    text: &str,
    windows: &[(usize, usize)],
    separator: u8,
    secret_name: &dyn Fn(&str) -> bool,
) -> Vec<ColumnCell> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    // Where the last table's rows ended: a line up to there was a row, and is no header.
    let mut consumed = 0;
    for &(window_start, window_end) in windows {
        // A window may hold several lines (windows of adjacent lines merge): each is a header candidate.
        let mut at = window_start.max(consumed);
        while at < window_end && at < bytes.len() {
            let (line_start, line_end, next) = line_at(bytes, at);
            at = next;
            // A line without the separator is no header: most lines a keyword opens are not (one search,
            // not a split cell by cell).
            if line_start < consumed
                || memchr::memchr(separator, &bytes[line_start..line_end]).is_none()
            {
                continue;
            }
            let header = cells(bytes, line_start, line_end, separator);
            if header.len() < 2 {
                continue;
            }
            let names: Vec<Option<(usize, usize)>> =
                header.iter().map(|&c| column_name(bytes, c)).collect();
            // Every header cell is a name (a sentence with commas is no header).
            if names.iter().any(Option::is_none) {
                continue;
            }
            let secret: Vec<(usize, (usize, usize))> = names
                .iter()
                .enumerate()
                .filter_map(|(i, n)| n.map(|n| (i, n)))
                .filter(|&(_, (s, e))| secret_name(&text[s..e]))
                .collect();
            if secret.is_empty() {
                continue;
            }
            let mut row_at = next;
            while row_at < bytes.len() {
                let (row_start, row_end, row_next) = line_at(bytes, row_at);
                if separator == b'|' && is_rule_row(bytes, row_start, row_end) {
                    row_at = row_next;
                    consumed = row_next;
                    continue;
                }
                let row = cells(bytes, row_start, row_end, separator);
                if row.len() != header.len() {
                    break;
                }
                for &(column, name) in &secret {
                    found.push(ColumnCell {
                        name,
                        cell: row[column],
                    });
                }
                row_at = row_next;
                consumed = row_next;
            }
            at = at.max(consumed);
        }
    }
    found
}

/// Splits `bytes[start..]` at top-level commas up to the `)` closing a parenthesised list that starts at
/// `start` (just past its `(`), honouring SQL's single-quoted strings (`''` is a quote) and double-quoted
/// names. Returns the trimmed items and where the list ends (just past its `)`), or None if the text ends
/// first.
fn sql_list(bytes: &[u8], start: usize) -> Option<(Vec<(usize, usize)>, usize)> {
    let mut items = Vec::new();
    let mut item_start = start;
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' | b'`' => quote = Some(b),
                b'(' => depth += 1,
                b')' if depth > 0 => depth -= 1,
                b')' => {
                    items.push(trim_space(bytes, item_start, i));
                    return Some((items, i + 1));
                }
                b',' if depth == 0 => {
                    items.push(trim_space(bytes, item_start, i));
                    item_start = i + 1;
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

fn trim_space(bytes: &[u8], mut s: usize, mut e: usize) -> (usize, usize) {
    while s < e && bytes[s].is_ascii_whitespace() {
        s += 1;
    }
    while e > s && bytes[e - 1].is_ascii_whitespace() {
        e -= 1;
    }
    (s, e)
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && bytes[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// The secret columns' cells of `INSERT INTO t (a, b) VALUES (…), (…)` statements starting at the windows'
/// starts (a hit on `INSERT INTO`). Each statement is read once, to the end of its last tuple.
pub(super) fn sql_value_cells(
    text: &str,
    windows: &[(usize, usize)],
    secret_name: &dyn Fn(&str) -> bool,
) -> Vec<ColumnCell> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut consumed = 0;
    for &(window_start, _) in windows {
        if window_start < consumed {
            continue;
        }
        // `INSERT`, `INTO` (the keyword hit) and the table's name.
        let word = |at: usize, w: &[u8]| {
            bytes
                .get(at..at + w.len())
                .is_some_and(|b| b.eq_ignore_ascii_case(w))
        };
        if !word(window_start, b"INSERT") {
            continue;
        }
        let mut at = skip_space(bytes, window_start + 6);
        if !word(at, b"INTO") {
            continue;
        }
        at = skip_space(bytes, at + 4);
        while at < bytes.len()
            && (bytes[at].is_ascii_alphanumeric() || matches!(bytes[at], b'_' | b'.' | b'"' | b'`'))
        {
            at += 1;
        }
        at = skip_space(bytes, at);
        if bytes.get(at) != Some(&b'(') {
            continue;
        }
        let Some((columns, after)) = sql_list(bytes, at + 1) else {
            continue;
        };
        let names: Vec<Option<(usize, usize)>> =
            columns.iter().map(|&c| column_name(bytes, c)).collect();
        if names.iter().any(Option::is_none) {
            continue;
        }
        let secret: Vec<(usize, (usize, usize))> = names
            .iter()
            .enumerate()
            .filter_map(|(i, n)| n.map(|n| (i, n)))
            .filter(|&(_, (s, e))| secret_name(&text[s..e]))
            .collect();
        at = skip_space(bytes, after);
        if !bytes
            .get(at..at + 6)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"VALUES"))
        {
            continue;
        }
        at = skip_space(bytes, at + 6);
        consumed = at;
        while bytes.get(at) == Some(&b'(') {
            let Some((values, after)) = sql_list(bytes, at + 1) else {
                break;
            };
            if values.len() == columns.len() {
                for &(column, name) in &secret {
                    found.push(ColumnCell {
                        name,
                        cell: values[column],
                    });
                }
            }
            at = skip_space(bytes, after);
            consumed = at;
            if bytes.get(at) != Some(&b',') {
                break;
            }
            at = skip_space(bytes, at + 1);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(text: &'a str, spans: &[(usize, usize)]) -> Vec<&'a str> {
        spans.iter().map(|&(s, e)| &text[s..e]).collect()
    }

    #[test]
    fn cells_honour_quotes_and_markdown_pipes() {
        let line = r#"alice, "a,b ""c""" ,x"#;
        assert_eq!(
            texts(line, &cells(line.as_bytes(), 0, line.len(), b',')),
            ["alice", r#""a,b ""c""""#, "x"]
        );
        let md = "| user | password |";
        assert_eq!(
            texts(md, &cells(md.as_bytes(), 0, md.len(), b'|')),
            ["user", "password"]
        );
        assert!(cells(b"no pipes", 0, 8, b'|').is_empty());
    }

    #[test]
    fn a_tables_rows_are_read_once_and_stop_at_a_different_shape() {
        let text = "user,password\nbob,hunter2\nal,x1\nnot a row\nuser,password\nz,y\n";
        let found = column_cells(text, &[(0, 14), (42, 56)], b',', &|n| n == "password");
        let cells: Vec<&str> = found.iter().map(|c| &text[c.cell.0..c.cell.1]).collect();
        assert_eq!(cells, ["hunter2", "x1", "y"]);
    }

    #[test]
    fn sql_inserts_give_each_tuples_cell() {
        let text =
            "INSERT INTO users (name, \"password\") VALUES ('bob', 'p,w''1'), ('al', 'x(2)');";
        let found = sql_value_cells(text, &[(0, text.len())], &|n| n == "password");
        let cells: Vec<&str> = found.iter().map(|c| &text[c.cell.0..c.cell.1]).collect();
        assert_eq!(cells, ["'p,w''1'", "'x(2)'"]);
    }
}
