//! Imports form a one-way stack: no module of the guest's or the host's crates reaches itself again through
//! the modules it imports. An edge is any path one file's code names in another file's module: `use
//! crate::…`, `use super::…`, `use self::…`, a child module's name (`use front::Front` in its parent), grouped
//! trees (`use super::{a, b::C}`), globs, and the same paths written in expressions (`super::x::f()`). A child
//! naming its parent's items (`use super::*`, `super::Item`) is an edge to the parent's file: no child imports
//! its `mod.rs`. A parent declaring `mod child;` is not an edge. Paths inside a file (its inline `mod tests`)
//! are not edges either.
//!
//! The Python and TypeScript bindings have cycle tests of their own.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The file's tokens with their line numbers; comments, strings and character literals dropped (a doc link
/// or a string that spells a path is no import).
fn tokens(source: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' || ((c == 'r' || c == 'b') && raw_or_byte_string_at(&chars, i)) {
            // r"…", r#"…"#, b"…", br#"…"#: the hashes after `r` are what closes it.
            while chars[i] != '"' && chars[i] != '#' {
                i += 1;
            }
            let raw = i > 0 && (chars[i - 1] == 'r');
            let mut hashes = 0;
            while chars[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            while i < chars.len() {
                if chars[i] == '\n' {
                    line += 1;
                }
                if !raw && chars[i] == '\\' {
                    if at(i + 1) == '\n' {
                        line += 1;
                    }
                    i += 2;
                    continue;
                }
                if chars[i] == '"' && (0..hashes).all(|k| at(i + 1 + k) == '#') {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}'); otherwise a lifetime, whose name is harmless.
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            out.push((Token::Ident(word), line));
        } else if c == ':' && at(i + 1) == ':' {
            out.push((Token::PathSep, line));
            i += 2;
        } else {
            out.push((Token::Punct(c), line));
            i += 1;
        }
    }
    out
}

/// Whether a string literal opens at `i` with a prefix (`r"`, `r#"`, `b"`, `br"`, `br#"`), and not at an
/// identifier that merely starts with `r` or `b`.
fn raw_or_byte_string_at(chars: &[char], i: usize) -> bool {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return false;
    }
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    let raw = chars.get(j) == Some(&'r');
    if raw {
        j += 1;
        while chars.get(j) == Some(&'#') {
            j += 1;
        }
    }
    j > i && chars.get(j) == Some(&'"') && (raw || chars[i] == 'b')
}

/// What one file says: the modules it declares (`mod x;` to be found in another file, `mod x { … }` inline),
/// and every path it names, each with the inline module it is written in (relative to the file's module).
#[derive(Default)]
struct FileFacts {
    declared: Vec<(Vec<String>, String)>,
    inline: Vec<Vec<String>>,
    paths: Vec<Reference>,
}

#[derive(Debug, Clone)]
struct Reference {
    /// The inline module the path is written in, below the file's own module.
    within: Vec<String>,
    segments: Vec<String>,
    line: usize,
}

fn ident(tokens: &[(Token, usize)], i: usize) -> Option<&str> {
    match tokens.get(i) {
        Some((Token::Ident(s), _)) => Some(s),
        _ => None,
    }
}

fn is(tokens: &[(Token, usize)], i: usize, t: Token) -> bool {
    tokens.get(i).map(|(x, _)| x) == Some(&t)
}

fn facts(source: &str) -> FileFacts {
    let tokens = tokens(source);
    let mut facts = FileFacts::default();
    // The inline modules open at this point, each with the brace depth its body opened at.
    let mut open: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        let within: Vec<String> = open.iter().map(|(m, _)| m.clone()).collect();
        match &tokens[i].0 {
            Token::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Token::Punct('}') => {
                if open.last().is_some_and(|(_, d)| *d == depth) {
                    open.pop();
                }
                depth -= 1;
                i += 1;
            }
            Token::Ident(kw) if kw == "mod" && ident(&tokens, i + 1).is_some() => {
                let name = ident(&tokens, i + 1).unwrap().to_string();
                if is(&tokens, i + 2, Token::Punct(';')) {
                    facts.declared.push((within, name));
                    i += 3;
                } else if is(&tokens, i + 2, Token::Punct('{')) {
                    depth += 1;
                    let mut path = within;
                    path.push(name.clone());
                    facts.inline.push(path);
                    open.push((name, depth));
                    i += 3;
                } else {
                    i += 1;
                }
            }
            Token::Ident(kw) if kw == "use" => {
                i += 1;
                let mut trees = Vec::new();
                use_tree(&tokens, &mut i, Vec::new(), &mut trees);
                for (segments, line) in trees {
                    facts.paths.push(Reference {
                        within: within.clone(),
                        segments,
                        line,
                    });
                }
            }
            Token::Ident(first)
                if !(i > 0 && is(&tokens, i - 1, Token::PathSep))
                    && is(&tokens, i + 1, Token::PathSep)
                    && ident(&tokens, i + 2).is_some() =>
            {
                // A path in an expression, a type or a pattern: `a::b::c`, up to its first non-name.
                let line = tokens[i].1;
                let mut segments = vec![first.clone()];
                i += 1;
                while is(&tokens, i, Token::PathSep) && ident(&tokens, i + 1).is_some() {
                    segments.push(ident(&tokens, i + 1).unwrap().to_string());
                    i += 2;
                }
                facts.paths.push(Reference {
                    within,
                    segments,
                    line,
                });
            }
            _ => i += 1,
        }
    }
    facts
}

/// One `use` tree from `tokens[i]`, flattened into its paths (`a::{b, c::d}` is `a::b` and `a::c::d`).
fn use_tree(
    tokens: &[(Token, usize)],
    i: &mut usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, usize)>,
) {
    let mut path = prefix;
    let line = tokens.get(*i).map_or(0, |t| t.1);
    if is(tokens, *i, Token::PathSep) {
        *i += 1;
    }
    loop {
        match tokens.get(*i).map(|t| &t.0) {
            Some(Token::Ident(s)) => {
                path.push(s.clone());
                *i += 1;
                if is(tokens, *i, Token::PathSep) {
                    *i += 1;
                    continue;
                }
                break;
            }
            Some(Token::Punct('{')) => {
                *i += 1;
                while *i < tokens.len() && !is(tokens, *i, Token::Punct('}')) {
                    use_tree(tokens, i, path.clone(), out);
                    if is(tokens, *i, Token::Punct(',')) {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            Some(Token::Punct('*')) => {
                *i += 1;
                break;
            }
            _ => break,
        }
    }
    if ident(tokens, *i) == Some("as") {
        *i += 2;
    }
    out.push((path, line));
}

/// A crate's modules (each path from the crate root, inline ones too) and the file each is written in.
struct Crate {
    modules: BTreeMap<Vec<String>, String>,
    facts: BTreeMap<String, FileFacts>,
}

/// Reads the crate from its root file through its `mod x;` declarations; `read` gives a file's text.
fn crate_from(root: &str, read: &dyn Fn(&str) -> Option<String>) -> Crate {
    let mut modules = BTreeMap::new();
    let mut all_facts = BTreeMap::new();
    let mut queue = VecDeque::from([(Vec::<String>::new(), root.to_string())]);
    while let Some((module, file)) = queue.pop_front() {
        let source = read(&file).unwrap_or_else(|| panic!("{file}: declared but not found"));
        assert!(
            !source.contains("#[path"),
            "{file}: #[path] attributes are not followed by this test"
        );
        let facts = facts(&source);
        modules.insert(module.clone(), file.clone());
        for inline in &facts.inline {
            modules.insert([module.clone(), inline.clone()].concat(), file.clone());
        }
        // Where this file's `mod x;` children live: beside it for a mod.rs (or a crate root), else in the
        // directory named after it.
        let path = Path::new(&file);
        let stem = path.file_stem().unwrap().to_str().unwrap();
        let mut dir = path.parent().unwrap().to_path_buf();
        if !module.is_empty() && stem != "mod" {
            dir.push(stem);
        }
        for (within, name) in &facts.declared {
            let mut base = dir.clone();
            for m in within {
                base.push(m);
            }
            let flat = base.join(format!("{name}.rs"));
            let nested = base.join(name).join("mod.rs");
            let child = [flat, nested]
                .into_iter()
                .map(|p| p.to_string_lossy().into_owned())
                .find(|p| read(p).is_some())
                .unwrap_or_else(|| panic!("{file}: `mod {name};` has no file"));
            queue.push_back((
                [module.clone(), within.clone(), vec![name.clone()]].concat(),
                child,
            ));
        }
        all_facts.insert(file, facts);
    }
    Crate {
        modules,
        facts: all_facts,
    }
}

/// An import from one file to another: where it is written, and the path as written.
#[derive(Debug, Clone)]
struct Edge {
    line: usize,
    path: String,
}

impl Crate {
    /// The module a path written in `module` names (the deepest module along it), if it names one of this
    /// crate's: it starts at `crate`, `self`, `super` or a child module's name; anything else (`std::…`,
    /// another crate's, a type's associated item) is not this test's business.
    fn resolve(&self, module: &[String], segments: &[String]) -> Option<Vec<String>> {
        let child_of = |m: &[String], name: &str| {
            let mut c = m.to_vec();
            c.push(name.to_string());
            self.modules.contains_key(&c).then_some(c)
        };
        let (mut at, mut rest) = match segments.first().map(String::as_str) {
            Some("crate") => (Vec::new(), &segments[1..]),
            Some("self") => (module.to_vec(), &segments[1..]),
            Some("super") => (module.to_vec(), segments),
            Some(name) if child_of(module, name).is_some() => (module.to_vec(), segments),
            _ => return None,
        };
        while rest.first().map(String::as_str) == Some("super") {
            at.pop()?;
            rest = &rest[1..];
        }
        for segment in rest {
            match child_of(&at, segment) {
                Some(child) => at = child,
                None => break,
            }
        }
        Some(at)
    }

    /// file → file it imports → the first place it does.
    fn imports(&self) -> BTreeMap<String, BTreeMap<String, Edge>> {
        let file_module: HashMap<&String, &Vec<String>> = self
            .modules
            .iter()
            .filter(|(m, f)| {
                // A file's own module is the shortest module written in it (inline ones are below it).
                self.modules
                    .iter()
                    .filter(|(_, g)| g == f)
                    .all(|(n, _)| n.len() >= m.len())
            })
            .map(|(m, f)| (f, m))
            .collect();
        let mut graph: BTreeMap<String, BTreeMap<String, Edge>> = BTreeMap::new();
        for (file, facts) in &self.facts {
            let entry = graph.entry(file.clone()).or_default();
            for r in &facts.paths {
                let module = [file_module[file].clone(), r.within.clone()].concat();
                let Some(target) = self.resolve(&module, &r.segments) else {
                    continue;
                };
                let to = &self.modules[&target];
                if to != file {
                    entry.entry(to.clone()).or_insert(Edge {
                        line: r.line,
                        path: r.segments.join("::"),
                    });
                }
            }
        }
        graph
    }
}

/// Import cycles, as `a.rs:LINE (path) → b.rs:LINE (path) → a.rs`: the shortest through each file not yet in
/// one reported (so every file on a cycle is named, without every rotation of the same cycle).
fn cycles(graph: &BTreeMap<String, BTreeMap<String, Edge>>) -> Vec<String> {
    let mut reported: BTreeSet<String> = BTreeSet::new();
    let mut found = Vec::new();
    for start in graph.keys() {
        if reported.contains(start) {
            continue;
        }
        // The shortest way from `start` back to itself, if any.
        let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
        let mut queue: VecDeque<&String> = VecDeque::from([start]);
        let mut closed_by = None;
        'search: while let Some(at) = queue.pop_front() {
            for next in graph[at].keys() {
                if next == start {
                    closed_by = Some(at);
                    break 'search;
                }
                if !came_from.contains_key(next) && graph.contains_key(next) {
                    came_from.insert(next, at);
                    queue.push_back(next);
                }
            }
        }
        let Some(mut at) = closed_by else {
            continue;
        };
        let mut way_back = Vec::new();
        while at != start {
            way_back.push(at.clone());
            at = came_from[at];
        }
        way_back.reverse();
        let files = [vec![start.clone()], way_back, vec![start.clone()]].concat();
        let mut text = String::new();
        for pair in files.windows(2) {
            let edge = &graph[&pair[0]][&pair[1]];
            text += &format!("{}:{} (`{}`) → ", pair[0], edge.line, edge.path);
        }
        text += start;
        reported.extend(files);
        found.push(text);
    }
    found
}

fn cycles_in(root: &str, files: &BTreeMap<&str, &str>) -> Vec<String> {
    let read = |p: &str| files.get(p).map(|s| s.to_string());
    cycles(&crate_from(root, &read).imports())
}

#[test]
fn the_guest_and_the_host_import_one_way() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |p: &str| std::fs::read_to_string(repo.join(p)).ok();
    let mut reached = BTreeSet::new();
    let mut found = Vec::new();
    for root in ["guest/src/lib.rs", "host/src/lib.rs", "host/src/main.rs"] {
        let krate = crate_from(root, &read);
        reached.extend(krate.facts.keys().cloned());
        found.extend(cycles(&krate.imports()));
    }
    // Every source file is checked: one no crate root reaches would be a gap in this test, not in the stack.
    for dir in ["guest/src", "host/src"] {
        let mut stack = vec![repo.join(dir)];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let rel = path
                        .strip_prefix(&repo)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    assert!(reached.contains(&rel), "{rel} is in no crate's module tree");
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "module import cycles:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_child_naming_its_parents_items_while_the_parent_imports_it_is_a_cycle() {
    let files = BTreeMap::from([
        ("src/lib.rs", "mod http;"),
        (
            "src/http/mod.rs",
            "mod front;\nuse front::Front;\npub struct Options;",
        ),
        (
            "src/http/front.rs",
            "use super::Options;\npub struct Front;",
        ),
    ]);
    assert_eq!(
        cycles_in("src/lib.rs", &files),
        ["src/http/front.rs:1 (`super::Options`) → src/http/mod.rs:2 (`front::Front`) → src/http/front.rs"]
    );
}

#[test]
fn grouped_globbed_and_in_expression_paths_are_imports() {
    let grouped_and_expression = BTreeMap::from([
        ("src/lib.rs", "mod a;\nmod b;"),
        ("src/a.rs", "use crate::{b::{self, X}, c};"),
        ("src/b.rs", "fn f() { let _ = crate::a::g(); }"),
    ]);
    assert_eq!(cycles_in("src/lib.rs", &grouped_and_expression).len(), 1);
    let glob = BTreeMap::from([
        ("src/lib.rs", "mod a;\nmod b;"),
        ("src/a.rs", "use super::b::*;"),
        ("src/b.rs", "pub(crate) use self::super::a::Y as Z;"),
    ]);
    assert_eq!(cycles_in("src/lib.rs", &glob).len(), 1);
}

#[test]
fn declaring_a_child_its_inline_tests_comments_and_strings_are_not_imports() {
    let files = BTreeMap::from([
        ("src/lib.rs", "pub mod a;\npub mod b;\nfn f() {}"),
        (
            "src/a.rs",
            "//! See [`crate::b::X`].\nuse super::f;\nconst S: &str = \"crate::b::X\";\nconst R: &str = r#\"b::X \"quoted\"\"#;\n\
             #[cfg(test)]\nmod tests {\n    use super::*;\n}",
        ),
        ("src/b.rs", "/* crate::a::Y */ use crate::f;\nfn g() -> char { '\"' }\nfn h(x: &'static str) { crate::f(); }"),
    ]);
    assert_eq!(cycles_in("src/lib.rs", &files), Vec::<String>::new());
    // The same files with one real import from `b` back to `a`, and from `a` to `b`, form a cycle.
    let mut cyclic = files.clone();
    cyclic.insert("src/b.rs", "use crate::a;\nfn g() { a::h() }");
    cyclic.insert("src/a.rs", "pub fn h() { crate::b::g() }");
    assert_eq!(cycles_in("src/lib.rs", &cyclic).len(), 1);
}
