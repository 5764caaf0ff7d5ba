//! Every JSON-RPC error code the guest writes comes from the taxonomy (`taxonomy/taxonomy.toml`, turned into
//! tables by `build.rs`): a kind's code in a dialect (`rewrite::answer`, `render`), or a plain error of a kind
//! (`ErrorObject::of_kind`). A code written by hand in the guest's code (a refusal to the upstream, MCP's
//! -32022 for a result a revision cannot be given, the library's own refusals) drifts from the table that
//! documents it, and from what every other answer of its kind says. Comments and unit-test modules may name
//! codes; code may not.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the guest's sources are readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file's code: its lines up to its inline unit-test module, each without its `//` comment.
fn code_lines(source: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let next = lines.get(i + 1).map_or("", |l| l.trim_start());
        if line.trim() == "#[cfg(test)]" && next.starts_with("mod ") {
            break;
        }
        let code = line.find("//").map_or(*line, |at| &line[..at]);
        out.push((i + 1, code));
    }
    out
}

/// The numbers in `code` that read as JSON-RPC error codes (-32768..-31000 and MCP's, all `-3` and four
/// digits), wherever they stand (a literal, a string, a raw JSON text).
fn codes_in(code: &str) -> Vec<&str> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for (at, _) in code.match_indices("-3") {
        let digits = &bytes[at + 1..];
        let run = digits.iter().take_while(|b| b.is_ascii_digit()).count();
        let glued = at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if run == 5 && !glued {
            found.push(&code[at..at + 6]);
        }
    }
    found
}

#[test]
fn no_error_code_is_written_by_hand_in_the_guests_code() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(files.len() > 20, "the guest's sources were found");
    let mut written = Vec::new();
    for file in files
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| n != "tests.rs"))
    {
        let source = std::fs::read_to_string(file).expect("a source file is UTF-8");
        for (line, code) in code_lines(&source) {
            for number in codes_in(code) {
                let shown = file.strip_prefix(&src).unwrap_or(file).display();
                written.push(format!("src/{shown}:{line}: {number}"));
            }
        }
    }
    assert!(
        written.is_empty(),
        "error codes written by hand (take them from the taxonomy: `ErrorObject::of_kind`, \
         `rewrite::answer`; add the kind to taxonomy.toml if it is missing):\n{}",
        written.join("\n")
    );
}

#[test]
fn the_scan_sees_codes_in_literals_and_strings_but_not_in_comments_or_tests() {
    let source = "let a = -32600; // -32601\nlet b = r#\"{\"code\":-32603}\"#;\nlet c = x-32000;\n\
                  let d = -320001;\n#[cfg(test)]\nmod tests { const E: i32 = -32700; }\n";
    let found: Vec<&str> = code_lines(source)
        .into_iter()
        .flat_map(|(_, code)| codes_in(code))
        .collect();
    assert_eq!(found, ["-32600", "-32603"]);
}
