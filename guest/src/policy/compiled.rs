//! A checked policy document made ready for a session: names matched, rule names known, redactors
//! built once per combination of overrides a request can meet.

use super::defaults::PolicyDefaults;
use super::document::{self, Action, Document, DocumentError, Method, Override, Scope};
use crate::redact::{self, OptionsError, RedactionOptions, Redactor, Rule};
use std::collections::BTreeMap;
use std::sync::Arc;
use wildmatch::WildMatch;

/// The scopes a policy redacts when it names none: error responses and failed tool results (and the
/// upstream's stderr, which the operator's log always redacts).
pub const DEFAULT_SCOPES: [Scope; 2] = [Scope::Errors, Scope::Stderr];

/// What holds for one request: the defaults, a matching `[[method]]`'s changes, then a matching `[[tool]]`'s.
#[derive(Clone)]
pub struct Effective {
    /// Milliseconds; `Some(None)`: no limit. `None`: the session's own option.
    pub timeout_ms: Option<Option<u64>>,
    /// At most this long, progress or not (milliseconds).
    pub max_wait_ms: Option<u64>,
    pub failed_result_bytes: Option<u64>,
    pub scopes: Vec<Scope>,
    pub binary: bool,
    pub redaction: Arc<Redactor>,
    /// `redaction` with the audited rules and categories off: what is audited is logged, not redacted.
    pub quiet: Arc<Redactor>,
    /// Rule id or category → action. `redact` only where an override put a name back to the default: read
    /// through `action`, as unset.
    pub actions: BTreeMap<String, Action>,
    /// The tool a `tools/call` names (for the log).
    pub tool: Option<String>,
    /// How `quiet` was built, to build it again with more values allowed.
    quiet_recipe: Arc<Recipe>,
}

/// The options, disabled names and allowed values a redactor is built from.
struct Recipe {
    options: RedactionOptions,
    disable: Vec<String>,
    allow: Vec<String>,
}

impl Effective {
    pub fn redacts(&self, scope: Scope) -> bool {
        self.scopes.contains(&scope)
    }

    /// What a finding of `rule` (in `category`) does. A name set to `redact` (the default) is read as
    /// unset: it defers to its category (see `for_request`).
    pub fn action(&self, rule: &str, category: &str) -> Action {
        let set = |name: &str| self.actions.get(name).filter(|a| **a != Action::Redact);
        set(rule)
            .or_else(|| set(category))
            .copied()
            .unwrap_or_default()
    }

    pub fn audits_any(&self) -> bool {
        self.actions.values().any(|a| *a == Action::Audit)
    }

    /// `quiet` with `values` allowed too: what an audited rule found passes untouched, even where another
    /// rule would have taken it (a token in an assignment). Built only when an audit found something.
    pub fn quiet_allowing(&self, values: Vec<String>) -> Arc<Redactor> {
        if values.is_empty() {
            return self.quiet.clone();
        }
        let r = &self.quiet_recipe;
        let allow: Vec<String> = r.allow.iter().cloned().chain(values).collect();
        // The same options as `quiet`, which were checked when the document was compiled.
        build_redactor(&r.options, &r.disable, &allow)
            .map(Arc::new)
            .unwrap_or_else(|_| self.quiet.clone())
    }
}

/// The audited names among `actions`.
fn audited(actions: &BTreeMap<String, Action>) -> impl Iterator<Item = String> + '_ {
    actions
        .iter()
        .filter(|(_, a)| **a == Action::Audit)
        .map(|(n, _)| n.clone())
}

/// The redactors of one combination of overrides: as written, and with the audited names off (with
/// how that one was built).
#[derive(Clone)]
struct Redactions {
    redactor: Arc<Redactor>,
    quiet: Arc<Redactor>,
    recipe: Arc<Recipe>,
}

/// The overrides that shaped a request's settings: the index of its `[[method]]`, of its `[[tool]]`.
type OverridePair = (Option<usize>, Option<usize>);

/// A policy document, compiled.
pub struct Compiled {
    pub document: Document,
    base: Effective,
    tools: Vec<(WildMatch, bool, Override)>,
    methods: Vec<(WildMatch, bool, Override)>,
    /// Redactors by the overrides that shaped them (method index, tool index), built when a request first
    /// meets that pair. A list searched in order rather than a map: a session meets few pairs, and each map
    /// type is one more instantiation of its tree's code in the downloaded module.
    redactors: Vec<(OverridePair, Redactions)>,
    /// The options every redactor starts from (their names off and values allowed set per policy).
    options: RedactionOptions,
}

pub(crate) fn seconds_to_ms(s: f64) -> Option<u64> {
    (s > 0.0).then(|| (s * 1000.0).ceil() as u64)
}

/// Every rule id and category a document may name.
fn known_names(extra: &[document::ExtraRule]) -> Vec<String> {
    let mut names: Vec<String> = redact::catalogue_rules()
        .iter()
        .flat_map(|r| [r.id.clone(), r.category.clone()])
        .collect();
    names.extend(
        extra
            .iter()
            .flat_map(|r| [r.id.clone(), r.category.clone()]),
    );
    for built_in in [
        redact::json::SENSITIVE_KEY_RULE,
        redact::json::TRACE_KEY_RULE,
        redact::json::OPAQUE_KEY_RULE,
        "env-value",
        "credential",
        "stacktrace",
    ] {
        names.push(built_in.to_string());
    }
    names
}

impl Compiled {
    /// Checks and compiles `text`; `env`: the shell's environment, for `hash_key_env`.
    pub fn new(text: &str, env: &[(String, String)]) -> Result<Compiled, DocumentError> {
        let document = document::parse(text)?;
        let at = |key: &str, value: &str, message: String| DocumentError {
            at: document::find_key(text, key, value),
            message,
        };
        let r = &document.redaction;
        let known = known_names(&r.extra_rules);
        let check_names = |key: &str, names: Vec<&String>| -> Result<(), DocumentError> {
            match names.into_iter().find(|n| !known.contains(n)) {
                Some(n) => Err(at(
                    key,
                    n,
                    format!("`{n}` in {key} is no rule id or category the catalogue knows"),
                )),
                None => Ok(()),
            }
        };
        check_names("disable", r.disable.iter().collect())?;
        check_names("actions", document.actions.keys().collect())?;
        for o in document.tools.iter().chain(&document.methods) {
            check_names("disable", o.disable.iter().collect())?;
            check_names("actions", o.actions.keys().collect())?;
        }
        if let Some(d) = &document.defaults.dialect {
            if !crate::taxonomy::is_dialect(d) {
                return Err(at(
                    "dialect",
                    d,
                    format!(
                        "unknown dialect `{d}` (expected one of: {})",
                        crate::taxonomy::DIALECT_LIST
                    ),
                ));
            }
        }
        if let Some(b) = &document.defaults.batch {
            if b != "reject" && b != "allow" {
                return Err(at(
                    "batch",
                    b,
                    format!("batch must be \"reject\" or \"allow\", not `{b}`"),
                ));
            }
        }
        for o in document.tools.iter().chain(&document.methods) {
            if o.pattern.is_empty() {
                return Err(at(
                    "match",
                    "",
                    "`match` must name a tool or method, or a glob".into(),
                ));
            }
        }
        // Error responses and failed results are the guard's baseline, and the operator's log never carries a
        // secret: a scope list keeps both.
        for scopes in std::iter::once(&r.scopes)
            .chain(
                document
                    .tools
                    .iter()
                    .chain(&document.methods)
                    .map(|o| &o.scopes),
            )
            .flatten()
        {
            if !scopes.contains(&Scope::Errors) {
                return Err(at("scopes", "", "scopes must keep \"errors\": error responses and failed tool results are always redacted".into()));
            }
        }
        let extra_rules: Vec<Rule> = r
            .extra_rules
            .iter()
            .map(|e| Rule {
                id: e.id.clone(),
                category: e.category.clone(),
                pattern: e.pattern.clone(),
                keywords: e.keywords.clone(),
                secret_groups: e.secret_groups.clone(),
                ..Rule::default()
            })
            .collect();
        let mut options = RedactionOptions {
            method: r.method.unwrap_or_default(),
            extra_rules,
            allow_patterns: r.allow_patterns.clone(),
            ..RedactionOptions::default()
        };
        match (&r.hash_key_env, r.method) {
            (Some(var), _) => {
                let key = env.iter().find(|(k, _)| k == var).map(|(_, v)| v.clone());
                let key = key.ok_or_else(|| {
                    at(
                        "hash_key_env",
                        var,
                        format!("hash_key_env: environment variable {var} is not set"),
                    )
                })?;
                if key.len() < 16 {
                    return Err(at(
                        "hash_key_env",
                        var,
                        format!("hash_key_env: the key in {var} is shorter than 16 bytes"),
                    ));
                }
                options.hash_key = Some(key);
            }
            (None, Some(Method::Hash)) => {
                let why = "method = \"hash\" needs hash_key_env: the name of an environment variable holding a key of at least 16 bytes";
                return Err(at("method", "hash", why.into()));
            }
            (None, _) => {}
        }
        // Each rule and pattern is compiled once, here: an error names the entry it is about.
        let base_redactor =
            build_redactor(&options, &r.disable, &r.allow).map_err(|e| match &e {
                OptionsError::BadAllowPattern { index, message } => at(
                    "allow_patterns",
                    r.allow_patterns.get(*index).map_or("", String::as_str),
                    format!("allow pattern does not compile: {message}"),
                ),
                _ => {
                    let id = r
                        .extra_rules
                        .iter()
                        .find(|x| e.to_string().contains(&format!("'{}'", x.id)))
                        .map(|x| x.id.clone())
                        .unwrap_or_default();
                    at("extra_rules", &id, e.to_string())
                }
            })?;
        // Inserted one by one: collecting into a BTreeMap sorts the pairs first, and that stable sort's
        // code would be one more copy in the npm guard module (~5 KB).
        let mut actions: BTreeMap<String, Action> = BTreeMap::new();
        for (k, a) in &document.actions {
            if *a != Action::Redact {
                actions.insert(k.clone(), *a);
            }
        }
        let quiet_disable: Vec<String> =
            r.disable.iter().cloned().chain(audited(&actions)).collect();
        let quiet = Arc::new(
            build_redactor(&options, &quiet_disable, &r.allow)
                .map_err(|e| at("actions", "", e.to_string()))?,
        );
        let quiet_recipe = Arc::new(Recipe {
            options: options.clone(),
            disable: quiet_disable,
            allow: r.allow.clone(),
        });
        let base = Effective {
            // The default timeout and cut are the session's options (filled from the file where the shell
            // left them unset, `api::guard_session`): only overrides carry them here.
            timeout_ms: None,
            max_wait_ms: document.defaults.max_wait.and_then(seconds_to_ms),
            failed_result_bytes: None,
            scopes: with_stderr(r.scopes.clone().unwrap_or_else(|| DEFAULT_SCOPES.to_vec())),
            binary: r.binary.unwrap_or(false),
            redaction: Arc::new(base_redactor),
            quiet,
            actions,
            tool: None,
            quiet_recipe,
        };
        let matchers = |list: &[Override]| {
            list.iter()
                .map(|o| {
                    (
                        WildMatch::new(&o.pattern),
                        o.pattern.contains(['*', '?']),
                        o.clone(),
                    )
                })
                .collect()
        };
        Ok(Compiled {
            tools: matchers(&document.tools),
            methods: matchers(&document.methods),
            document,
            base,
            redactors: Vec::new(),
            options,
        })
    }

    /// The settings without any override.
    pub fn defaults(&self) -> &Effective {
        &self.base
    }

    /// The override of `list` for `name`: an exact name first, else the first glob that matches.
    fn find(list: &[(WildMatch, bool, Override)], name: &str) -> Option<usize> {
        list.iter()
            .position(|(_, glob, o)| !glob && o.pattern == name)
            .or_else(|| {
                list.iter()
                    .position(|(m, glob, _)| *glob && m.matches(name))
            })
    }

    /// The pattern of the `[[tool]]` that names `tool` (its exact name, or the glob that matched it).
    pub fn tool_pattern(&self, tool: &str) -> Option<String> {
        Self::find(&self.tools, tool).map(|i| self.tools[i].2.pattern.clone())
    }

    /// What holds for a request of `method` (`tool`: a tool call's name).
    pub fn for_request(&mut self, method: &str, tool: Option<&str>) -> Effective {
        let m = Self::find(&self.methods, method);
        let t = tool.and_then(|name| Self::find(&self.tools, name));
        if m.is_none() && t.is_none() {
            return Effective {
                tool: tool.map(str::to_string),
                ..self.base.clone()
            };
        }
        let mut e = self.base.clone();
        let mut disable = self.document.redaction.disable.clone();
        let mut allow = self.document.redaction.allow.clone();
        for o in [m.map(|i| &self.methods[i].2), t.map(|i| &self.tools[i].2)]
            .into_iter()
            .flatten()
        {
            if let Some(s) = o.timeout {
                e.timeout_ms = Some(seconds_to_ms(s));
            }
            if let Some(s) = o.max_wait {
                e.max_wait_ms = seconds_to_ms(s);
            }
            if let Some(n) = o.failed_result_bytes {
                e.failed_result_bytes = Some(n);
            }
            if let Some(scopes) = &o.scopes {
                e.scopes = with_stderr(scopes.clone());
            }
            // An override's `redact` puts a name back to the default: kept as `redact`, which `action` reads
            // as unset, rather than removed (the tree's removal and rebalancing code would be one more part
            // of the npm guard module).
            for (k, a) in &o.actions {
                e.actions.insert(k.clone(), *a);
            }
            disable.extend(o.disable.iter().cloned());
            allow.extend(o.allow.iter().cloned());
        }
        // Decisions are logged with the tool called (not the pattern that matched it).
        e.tool = tool.map(str::to_string);
        let options = &self.options;
        let quiet_disable: Vec<String> =
            disable.iter().cloned().chain(audited(&e.actions)).collect();
        let at = match self.redactors.iter().position(|(key, _)| *key == (m, t)) {
            Some(at) => at,
            None => {
                // Checked when the document was compiled: the same options, more names off or allowed.
                let build =
                    |d: &[String]| Arc::new(build_redactor(options, d, &allow).unwrap_or_default());
                let built = Redactions {
                    redactor: build(&disable),
                    quiet: build(&quiet_disable),
                    recipe: Arc::new(Recipe {
                        options: options.clone(),
                        disable: quiet_disable,
                        allow: allow.clone(),
                    }),
                };
                self.redactors.push(((m, t), built));
                self.redactors.len() - 1
            }
        };
        let Redactions {
            redactor,
            quiet,
            recipe,
        } = self.redactors[at].1.clone();
        e.redaction = redactor;
        e.quiet = quiet;
        e.quiet_recipe = recipe;
        e
    }
}

/// The upstream's stderr is always redacted for the operator's log: in every scope list.
fn with_stderr(mut scopes: Vec<Scope>) -> Vec<Scope> {
    if !scopes.contains(&Scope::Stderr) {
        scopes.push(Scope::Stderr);
    }
    scopes
}

/// The document's `[defaults]` as `check-policy` answers them: the WIT's `policy-defaults` as JSON text (its
/// writer generated: this names every field, so a field added to the WIT does not compile until it is filled).
pub fn defaults_json(document: &Document) -> String {
    let d = &document.defaults;
    PolicyDefaults {
        dialect: &d.dialect,
        timeout_ms: d.timeout.map(|s| seconds_to_ms(s).unwrap_or(0)),
        max_wait_ms: d.max_wait.and_then(seconds_to_ms),
        max_bytes: d.max_bytes,
        max_upstream_bytes: d.max_upstream_bytes,
        batch: &d.batch,
        failed_result_bytes: d.failed_result_bytes,
    }
    .to_json()
}

fn build_redactor(
    options: &RedactionOptions,
    disable: &[String],
    allow: &[String],
) -> Result<Redactor, OptionsError> {
    Redactor::from_options(RedactionOptions {
        disable: disable.to_vec(),
        allowlist: allow.to_vec(),
        ..options.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An allow pattern is compiled once, by the redaction options' own check (anchored, under its limits), and
    /// what that check refuses is reported at the pattern, whatever the reason (it was reported at
    /// `extra_rules`, where nothing was wrong, when the document's own looser compile let it through).
    #[test]
    fn a_refused_allow_pattern_is_reported_at_the_pattern() {
        for (pattern, why) in [
            ("[unclosed".to_string(), "allow pattern does not compile: "),
            (
                "a".repeat(redact::redactor::MAX_PATTERN_LEN + 1),
                "allow pattern does not compile: longer than 2048 characters",
            ),
        ] {
            let text = format!("[redaction]\nallow_patterns = [\"ok\", \"{pattern}\"]\n");
            let err = Compiled::new(&text, &[]).err().expect("refused");
            assert!(err.message.starts_with(why), "{}", err.message);
            // Line 2, at the refused pattern (not the first one, nor the table).
            let (line, column) = err.at.expect("a position");
            assert_eq!(line, 2, "{}", err.message);
            assert!(column > "allow_patterns = [\"ok\", ".len() - 2, "{column}");
        }
    }

    /// The policy file's options are the API's typed record: the same rules, method and patterns redact the
    /// same text the same way as `redact-with`'s JSON.
    #[test]
    fn a_documents_redaction_is_the_apis() {
        let env = [("HASH_KEY".to_string(), "0123456789abcdef0123".to_string())];
        let compiled = Compiled::new(
            "[redaction]\nmethod = \"hash\"\nhash_key_env = \"HASH_KEY\"\nallow_patterns = [\"bob@.*\"]\n\
             extra_rules = [{ id = \"ticket\", category = \"internal\", pattern = \"TCK-[0-9]{6}\" }]\n",
            &env,
        )
        .unwrap();
        let api = Redactor::from_json(
            r#"{"method":"hash","hash_key":"0123456789abcdef0123","allow_patterns":["bob@.*"],
                "extra_rules":[{"id":"ticket","category":"internal","pattern":"TCK-[0-9]{6}"}]}"#,
        )
        .unwrap();
        let text = "TCK-123456 from bob@example.com to alice@example.com";
        let secrets = redact::Secrets::none();
        assert_eq!(
            redact::redact_with(text, secrets, &compiled.defaults().redaction).text,
            redact::redact_with(text, secrets, &api).text
        );
    }

    /// An override's `redact` puts a name back to the default: a rule set to block or audit in the document
    /// redacts again, and a rule whose category is audited defers to its category, as an unset name does.
    #[test]
    fn an_overrides_redact_puts_a_name_back_to_the_default() {
        let mut compiled = Compiled::new(
            "[actions]\npem-private-key = \"block\"\ntoken = \"audit\"\nsecret-assignment = \"audit\"\n\n\
             [[method]]\nmatch = \"resources/read\"\n\
             actions = { pem-private-key = \"redact\", github-token = \"redact\", secret-assignment = \"redact\" }\n",
            &[],
        )
        .unwrap();
        let base = compiled.for_request("tools/list", None);
        assert_eq!(base.action("pem-private-key", "credential"), Action::Block);
        assert_eq!(
            base.action("secret-assignment", "credential"),
            Action::Audit
        );
        assert_eq!(base.action("github-token", "token"), Action::Audit);
        let read = compiled.for_request("resources/read", None);
        assert_eq!(read.action("pem-private-key", "credential"), Action::Redact);
        assert_eq!(
            read.action("secret-assignment", "credential"),
            Action::Redact
        );
        assert_eq!(
            read.action("github-token", "token"),
            Action::Audit,
            "its category still audits"
        );
        assert!(read.audits_any());
        assert_eq!(
            audited(&read.actions).collect::<Vec<_>>(),
            ["token"],
            "secret-assignment is no longer audited"
        );
    }
}
