//! The counts the documentation quotes ("134 rules", "43 error kinds", "8 dialects", "119 of 134 rules" with a
//! step program, the corpora's "244 providers", "20 formats", "2,741 real benign lines") are checked against
//! their sources: `redaction/rules.toml`, `taxonomy/taxonomy.toml`, `tests/corpora/`, and the guest built from
//! them. Every such phrase in the root README.md and in docs/*.md is found and compared; a count that drifts
//! fails here, naming the file, the line and the number the source gives. (docs/codes.md is generated, and
//! checked by `cargo xtask gen --check`.)
//!
//! Part of `cargo test -p jsonrpc-errors` (scripts/test-all.sh). Outside the repository (a packaged crate)
//! there is nothing to check and the test says so.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// What a counted noun stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fact {
    Rules,
    RulesWithProgram,
    Kinds,
    Dialects,
    Providers,
    Formats,
    BenignLines,
}

/// Phrases after a number, lowercased, and what they count. Longest first where one is a prefix of another.
const NOUNS: &[(&str, Fact)] = &[
    ("redaction rules", Fact::Rules),
    ("rules", Fact::Rules),
    ("error kinds", Fact::Kinds),
    ("kinds", Fact::Kinds),
    ("dialects", Fact::Dialects),
    ("providers", Fact::Providers),
    ("formats", Fact::Formats),
    ("contexts", Fact::Formats),
    ("real benign lines", Fact::BenignLines),
    ("benign lines", Fact::BenignLines),
];

const WORDS: &[&str] = &[
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
];

/// A number starting at `at` (digits with thousands commas, or a number word), and where it ends.
fn number_at(text: &str, at: usize) -> Option<(u64, usize)> {
    let rest = &text[at..];
    let digits: String = rest
        .char_indices()
        .take_while(|&(i, c)| {
            c.is_ascii_digit()
                || (c == ',' && i > 0 && rest[i + 1..].starts_with(|d: char| d.is_ascii_digit()))
        })
        .map(|(_, c)| c)
        .collect();
    if !digits.is_empty() {
        return Some((digits.replace(',', "").parse().ok()?, at + digits.len()));
    }
    let lower = rest.to_ascii_lowercase();
    WORDS.iter().enumerate().find_map(|(n, w)| {
        let after = lower.strip_prefix(w)?;
        (!after.starts_with(|c: char| c.is_ascii_alphanumeric()))
            .then_some((n as u64, at + w.len()))
    })
}

/// The noun (and what it counts) that follows position `at` after one space, if it is one of `NOUNS`.
fn noun_at(text: &str, at: usize) -> Option<(Fact, usize)> {
    let rest = text[at..].strip_prefix(' ')?;
    let lower = rest.to_ascii_lowercase();
    NOUNS.iter().find_map(|&(noun, fact)| {
        let after = lower.strip_prefix(noun)?;
        (!after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .then_some((fact, at + 1 + noun.len()))
    })
}

/// Every counted phrase in `text`: (line, the phrase, what it counts, the number). A phrase may be wrapped over
/// lines ("43 error\n  kinds"): whitespace runs between its words count as one space.
fn counted_phrases(text: &str) -> Vec<(usize, String, Fact, u64)> {
    let mut found = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let boundary = at == 0
            || !text[..at].ends_with(|c: char| {
                c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ',')
            });
        let Some((n, end)) = (if boundary { number_at(text, at) } else { None }) else {
            at += text[at..].chars().next().map_or(1, char::len_utf8);
            continue;
        };
        // What follows the number, its whitespace runs collapsed, far enough for the longest phrase.
        let mut tail = String::new();
        for c in text[end..].chars().take(80) {
            if c.is_whitespace() {
                if !tail.ends_with(' ') {
                    tail.push(' ');
                }
            } else {
                tail.push(c);
            }
        }
        let line = text[..at].matches('\n').count() + 1;
        let number = &text[at..end];
        // "N of M rules": N rules have a step program, of M.
        if let Some((m, m_end)) = tail.strip_prefix(" of ").and_then(|_| number_at(&tail, 4)) {
            if let Some((Fact::Rules, noun_end)) = noun_at(&tail, m_end) {
                let phrase = format!("{number}{}", &tail[..noun_end]);
                found.push((line, phrase.clone(), Fact::RulesWithProgram, n));
                found.push((line, phrase, Fact::Rules, m));
                // Past M, which is this phrase's, not one of its own.
                let after_of = text[end..]
                    .trim_start()
                    .strip_prefix("of")
                    .unwrap_or_default()
                    .trim_start();
                at = number_at(text, text.len() - after_of.len()).map_or(end, |(_, m_end)| m_end);
                continue;
            }
        } else if let Some((fact, noun_end)) = noun_at(&tail, 0) {
            found.push((line, format!("{number}{}", &tail[..noun_end]), fact, n));
        }
        at = end;
    }
    found
}

/// Lines of `section` (`[meta.dialects]`) that define a key, up to the next table header.
fn keys_in_section(toml: &str, section: &str) -> usize {
    toml.lines()
        .skip_while(|l| l.trim() != section)
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .filter(|l| {
            let l = l.trim();
            !l.is_empty() && !l.starts_with('#') && l.contains(" = ")
        })
        .count()
}

fn headers(toml: &str, header: &str) -> usize {
    toml.lines().filter(|l| l.trim() == header).count()
}

/// Every fact, read from its source, each cross-checked with what the guest built from the same source.
fn facts(root: &Path) -> BTreeMap<Fact, u64> {
    let read = |rel: &str| {
        std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    };
    let rules_toml = read("redaction/rules.toml");
    let taxonomy_toml = read("taxonomy/taxonomy.toml");

    let rules = headers(&rules_toml, "[[rule]]");
    let built_rules = jsonrpc_errors_guest::redact::catalogue_rules().len();
    assert_eq!(
        rules, built_rules,
        "redaction/rules.toml has {rules} [[rule]] tables, the guest {built_rules} rules"
    );
    let with_program = (0..rules)
        .filter(|&i| jsonrpc_errors_guest::redact::programs::for_rule(i).is_some())
        .count();

    let kinds = headers(&taxonomy_toml, "[[kind]]");
    let built_kinds = jsonrpc_errors_guest::taxonomy::taxonomy().kinds.len();
    assert_eq!(
        kinds, built_kinds,
        "taxonomy/taxonomy.toml has {kinds} [[kind]] tables, the guest {built_kinds} kinds"
    );

    let dialects = keys_in_section(&taxonomy_toml, "[meta.dialects]");
    let built_dialects = jsonrpc_errors_guest::taxonomy::DIALECTS.len();
    assert_eq!(
        dialects, built_dialects,
        "[meta.dialects] names {dialects}, the guest has {built_dialects}"
    );

    // tests/corpora: recall.jsonl's header (the generator writes it) and its provider rows; benign.txt's texts
    // (every non-blank line that is not a `####` note or group header).
    let recall = read("tests/corpora/recall.jsonl");
    let header: serde_json::Value = serde_json::from_str(recall.lines().next().unwrap()).unwrap();
    let providers = recall
        .lines()
        .filter(|l| l.contains(r#""type": "provider""#))
        .count() as u64;
    assert_eq!(
        Some(providers),
        header["providers"].as_u64(),
        "recall.jsonl's header and its provider rows disagree"
    );
    let formats = header["contexts"]
        .as_array()
        .expect("recall.jsonl's header lists its contexts")
        .len();
    let benign = read("tests/corpora/benign.txt");
    let benign_lines = benign
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("####"))
        .count();

    BTreeMap::from([
        (Fact::Rules, rules as u64),
        (Fact::RulesWithProgram, with_program as u64),
        (Fact::Kinds, kinds as u64),
        (Fact::Dialects, dialects as u64),
        (Fact::Providers, providers),
        (Fact::Formats, formats as u64),
        (Fact::BenignLines, benign_lines as u64),
    ])
}

/// Each phrase of `text` whose number is not its fact's, as a message.
fn wrong_counts(name: &str, text: &str, facts: &BTreeMap<Fact, u64>) -> Vec<String> {
    counted_phrases(text)
        .into_iter()
        .filter(|(_, _, fact, n)| facts[fact] != *n)
        .map(|(line, phrase, fact, _)| {
            format!(
                "{name}:{line}: \"{phrase}\": the sources say {} ({fact:?})",
                facts[&fact]
            )
        })
        .collect()
}

/// README.md and every docs/*.md but the generated codes.md.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md") && !p.ends_with("codes.md"))
        .collect();
    docs.sort();
    docs.insert(0, root.join("README.md"));
    docs
}

#[test]
fn counts_quoted_in_the_docs_match_their_sources() {
    let root = root();
    if !root.join("redaction/rules.toml").is_file() || !root.join("docs").is_dir() {
        eprintln!("not in the jsonrpc-errors repository: no documentation to check");
        return;
    }
    let facts = facts(&root);
    let mut problems = Vec::new();
    let mut checked = 0;
    for path in documents(&root) {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        checked += counted_phrases(&text).len();
        problems.extend(wrong_counts(&name, &text, &facts));
    }
    assert!(
        problems.is_empty(),
        "counts in the docs that their sources contradict:\n{}",
        problems.join("\n")
    );
    assert!(
        checked > 0,
        "no counted phrase found in README.md or docs/: the scanner no longer recognises them"
    );
    eprintln!("{checked} counted phrases match their sources: {facts:?}");
}

#[test]
fn a_wrong_count_is_reported() {
    let facts = BTreeMap::from([
        (Fact::Rules, 134),
        (Fact::RulesWithProgram, 119),
        (Fact::Kinds, 43),
        (Fact::Dialects, 8),
        (Fact::Providers, 244),
        (Fact::Formats, 20),
        (Fact::BenignLines, 2741),
    ]);
    let right = "134 rules in rules.toml; 43 error\n  kinds, eight dialects; 119 of 134 rules lowered; \
                 244 providers in 20 formats; 2,741 real benign lines. Not counts: 1.5 s, v0.1.0, 64 MiB, x2 rules.";
    assert_eq!(wrong_counts("doc", right, &facts), Vec::<String>::new());
    assert_eq!(
        counted_phrases(right).len(),
        8,
        "{:?}",
        counted_phrases(right)
    );

    let wrong = "71 rules\n43 kinds and 7\n  dialects\n118 of 134 rules\n2,740 benign lines";
    assert_eq!(
        wrong_counts("doc", wrong, &facts),
        vec![
            "doc:1: \"71 rules\": the sources say 134 (Rules)",
            "doc:2: \"7 dialects\": the sources say 8 (Dialects)",
            "doc:4: \"118 of 134 rules\": the sources say 119 (RulesWithProgram)",
            "doc:5: \"2,740 benign lines\": the sources say 2741 (BenignLines)",
        ]
    );
}
