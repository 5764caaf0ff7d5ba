//! `jsonrpc-errors`: the component's functions on the command line. JSON on stdout (one document); bad input
//! gets a message on stderr and exit 1 (with the JSON-RPC error object on stdout); usage errors exit 2.

mod proxy;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use jsonrpc_errors_host::{
    BatchPolicy, Context, ErrorObject, InputProblem, RedactionMethod, RedactionOptions, Runtime,
    ValidateOptions, DIALECTS,
};
use std::io::{Read, Write};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "jsonrpc-errors",
    version,
    about = "One canonical JSON-RPC 2.0 error layer: map, validate, sanitize, redact, and guard an MCP server.",
    long_about = "One canonical JSON-RPC 2.0 error layer: map, validate, sanitize, redact, and guard an MCP server.\n\n\
        Every command but `guard` reads its input on stdin and writes one JSON document (or text) on stdout. Bad \
        input: the JSON-RPC error object on stdout, a message on stderr, exit status 1. Usage errors: exit status \
        2. `redact` (and every message) also scrubs the values of this process's secret-looking environment \
        variables (*_TOKEN, *_KEY, *_SECRET, *PASSWORD*, ...)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
#[allow(
    clippy::large_enum_variant,
    reason = "one value per process, parsed from the command line: `guard`'s many options (and Windows' larger \
              paths) make its variant the largest, which costs nothing"
)]
enum Command {
    /// stdin: one JSON object {kind, id?, correlation_id?, ...fields} (or an array: first gate error wins);
    /// stdout: the JSON-RPC 2.0 response for the dialect.
    #[command(
        after_help = "Example:\n  echo '{\"kind\":\"tool-not-exposed\",\"tool\":\"admin_delete\",\"id\":1}' | jsonrpc-errors map --dialect thoughtgate\n  echo '{\"kind\":\"rate-limited\",\"retry_after_secs\":30,\"id\":4}' | jsonrpc-errors map --dialect mcp\n\nThe kinds and their codes: jsonrpc-errors codes; one kind's fields: jsonrpc-errors explain CODE."
    )]
    Map {
        /// The dialect of the response: its codes, messages and data.
        #[arg(long, default_value = "canonical")]
        dialect: String,
    },
    /// stdin: raw request bytes; stdout: {"valid": true, "id", "method"} or the error response.
    #[command(
        after_help = "Example:\n  printf '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}' | jsonrpc-errors validate --content-type application/json\n  printf '[1,2]' | jsonrpc-errors validate --dialect mcp      # -32600: batches are rejected"
    )]
    Validate {
        /// Size limit in bytes (default 10 MiB); a longer body is answered -32600 `oversize` unread.
        #[arg(long)]
        max_bytes: Option<u64>,
        /// Batches (JSON arrays): reject them (-32600), or validate each member (JSON-RPC 2.0's batch rules).
        #[arg(long, default_value = "reject", value_parser = ["reject", "allow"])]
        batch: String,
        /// The transport's Content-Type header value.
        #[arg(long)]
        content_type: Option<String>,
        /// The transport's Content-Length header value.
        #[arg(long)]
        content_length: Option<u64>,
        /// The dialect of the error response.
        #[arg(long, default_value = "canonical")]
        dialect: String,
    },
    /// stdin: text; stdout: the redacted text.
    #[command(
        after_help = "Example:\n  echo 'password=hunter2 token=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d' | jsonrpc-errors redact\n  # password=[REDACTED:secret-assignment] token=[REDACTED:github-token]\n  jsonrpc-errors redact --json-doc --method mask < response.json"
    )]
    Redact {
        /// Print {text, findings: [{rule, category, start, end}]} instead (byte offsets into the input).
        #[arg(long)]
        json: bool,
        /// Do not scrub the values of this process's secret-looking environment variables.
        #[arg(long)]
        no_env: bool,
        /// How a secret is replaced: a typed placeholder, `*` per character, a keyed hash, or nothing.
        #[arg(long, default_value = "replace",
              value_parser = clap::builder::PossibleValuesParser::new(RedactionMethod::NAMES))]
        method: String,
        /// For --method hash: the environment variable holding the HMAC key (at least 16 bytes).
        #[arg(long, value_name = "VAR")]
        hash_key_env: Option<String>,
        /// Switch off a rule id or a whole category (token, credential, pii, path, stacktrace, environment);
        /// repeatable.
        #[arg(long, value_name = "RULE_OR_CATEGORY")]
        disable: Vec<String>,
        /// A value never to redact; repeatable.
        #[arg(long, value_name = "VALUE")]
        allow: Vec<String>,
        /// A pattern (regex-lite) of values never to redact, matched against a whole value; repeatable.
        #[arg(long, value_name = "REGEX")]
        allow_pattern: Vec<String>,
        /// With --json-doc: a JSON key whose value is a secret whole, beside the built-in ones; repeatable.
        #[arg(long, value_name = "KEY")]
        sensitive_key: Vec<String>,
        /// A JSON file with extra rules: [{"id", "category", "pattern", "keywords"?, "secret_groups"?, ...}]
        /// (a rule's keys: those of redaction/rules.toml).
        #[arg(long, value_name = "FILE")]
        rules: Option<std::path::PathBuf>,
        /// stdin is a JSON document: values under sensitive keys go whole, every string is scanned;
        /// prints {"value", "findings": [{rule, category, path, start, end}]}.
        #[arg(long)]
        json_doc: bool,
    },
    /// stdin: an upstream JSON-RPC error response (raw bytes); stdout: the sanitized response.
    #[command(
        after_help = "Example:\n  echo '{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32050,\"message\":\"connect to postgres://app:hunter2@db failed\",\"data\":{\"stack\":\"at db.js:1\"}}}' \\\n    | jsonrpc-errors sanitize --dialect mcp"
    )]
    Sanitize {
        /// The dialect of the sanitized response (a custom code becomes its `upstream-error`).
        #[arg(long, default_value = "canonical")]
        dialect: String,
    },
    /// Every kind a dialect renders with CODE.
    #[command(after_help = "Example:\n  jsonrpc-errors explain -32001 --dialect watchgate")]
    Explain {
        /// The error code (negative numbers as they are: -32001).
        #[arg(allow_hyphen_values = true)]
        code: i64,
        /// The dialect CODE belongs to.
        #[arg(long, default_value = "canonical")]
        dialect: String,
    },
    /// The kind a dialect's CODE stands for (message and data tell shared codes apart).
    #[command(
        after_help = "Example:\n  jsonrpc-errors lookup -32000 --dialect vapora --message \"Unknown skill: summarize\""
    )]
    Lookup {
        /// The error code (negative numbers as they are: -32000).
        #[arg(allow_hyphen_values = true)]
        code: i64,
        /// The dialect CODE belongs to.
        #[arg(long, default_value = "canonical")]
        dialect: String,
        /// The error's message (some dialects tell kinds with one code apart by it).
        #[arg(long)]
        message: Option<String>,
        /// The error's data member, as JSON.
        #[arg(long)]
        data: Option<String>,
    },
    /// Runs UPSTREAM_CMD (or reaches the server at --upstream URL) behind a guard: relays JSON-RPC between
    /// this process's stdin/stdout (or --listen's Streamable HTTP) and the upstream, answering bad client
    /// messages here, sanitizing upstream errors and redacting failed tool results, and answering every
    /// pending request when the upstream dies or hangs. Logs go to stderr. Exit status: the upstream's (128 + N if signal N ended it);
    /// 124 if the guard had to terminate it; 125 if the guard failed; 126/127 if it could not be started.
    #[command(after_help = "Examples:\n  \
        jsonrpc-errors guard --dialect mcp -- python server.py\n  \
        jsonrpc-errors guard --config guard.toml --metrics-addr localhost:9464 -- npx -y @modelcontextprotocol/server-filesystem /srv\n  \
        jsonrpc-errors guard --listen 127.0.0.1:8080 --auth-token-env MCP_TOKEN -- python server.py   # http://127.0.0.1:8080/mcp\n  \
        jsonrpc-errors guard --upstream https://mcp.example/mcp --upstream-header 'Authorization: env:MCP_REMOTE_TOKEN'\n  \
        jsonrpc-errors guard --check-config guard.toml\n\n\
        In an MCP client's configuration: \"command\": \"jsonrpc-errors\", \"args\": [\"guard\", \"--\", \"python\", \"server.py\"]")]
    Guard(GuardFlags),
    /// The code table of one dialect (default: all).
    #[command(
        after_help = "Example:\n  jsonrpc-errors codes --dialect mcp\n  jsonrpc-errors codes --format json"
    )]
    Codes {
        /// Only this dialect's codes (default: every dialect, with the cross-dialect collision table).
        #[arg(long)]
        dialect: Option<String>,
        /// A Markdown table or JSON.
        #[arg(long, default_value = "markdown", value_parser = ["markdown", "json"])]
        format: String,
    },
}

/// `jsonrpc-errors guard`'s flags.
#[derive(clap::Args)]
struct GuardFlags {
    /// The policy file (TOML; docs/policy.md): defaults, per-tool and per-method timeouts,
    /// redaction scopes and options, actions. Options given here override its [defaults]. Refused at
    /// start with its line and column (exit 2); SIGHUP reads it again for new requests (a refused
    /// reload keeps the old policy).
    #[arg(long, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
    /// Checks a policy file and exits (0: valid; 2: refused, with its line and column on stderr),
    /// starting nothing.
    #[arg(long, value_name = "FILE", conflicts_with = "config")]
    check_config: Option<std::path::PathBuf>,
    /// The dialect of the errors the guard writes (default: canonical; `mcp` for MCP clients: a failed tool
    /// call becomes an isError result).
    #[arg(long)]
    dialect: Option<String>,
    /// Largest client message in bytes (default 10 MiB); a longer line is answered -32600 unread.
    #[arg(long)]
    max_bytes: Option<u64>,
    /// Batches (JSON arrays) from the client: reject (default; MCP removed them in 2025-06-18) or allow.
    #[arg(long, value_parser = ["reject", "allow"])]
    batch: Option<String>,
    /// Seconds a request may wait for the upstream before it is answered with the timeout error and
    /// cancelled upstream (progress notifications restart the wait); 0: no limit. The default (50) stays
    /// below the 60 s most MCP clients wait, so they get the guard's answer rather than their own timeout.
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// Seconds the upstream gets to exit after its stdin closes, and again after SIGTERM, before SIGKILL.
    #[arg(long, default_value = "2", value_name = "SECS")]
    grace: f64,
    /// Longest upstream line in bytes (default and at most 64 MiB, the largest the guard can judge); a
    /// longer one is discarded (and logged) as it streams, and the request it answers is answered at once.
    #[arg(long)]
    max_upstream_bytes: Option<u64>,
    /// Longest text of a failed tool result passed on (default 8192); a longer one keeps its start and its
    /// end, the middle cut (servers write what the model should do next at the end).
    #[arg(long, value_name = "BYTES")]
    failed_result_bytes: Option<u64>,
    /// The log records on stderr: one JSON object per line, or text.
    #[arg(long, value_enum, default_value = "json")]
    log_format: LogFormatArg,
    /// The least level logged (each event's level is the taxonomy's for its kind).
    #[arg(long, value_enum, default_value = "info")]
    log_level: LogLevelArg,
    /// Serve Prometheus metrics on this address: an IP or a host name, and a port (127.0.0.1:9464,
    /// localhost:9464, [::1]:9464; port 0 lets the system choose, and the log says which).
    #[arg(long, value_name = "HOST:PORT")]
    metrics_addr: Option<String>,
    /// Serve the upstream as Streamable HTTP on this address (MCP at /mcp, both protocol eras; /healthz,
    /// /readyz) instead of over this process's stdio. 127.0.0.1:PORT unless told otherwise.
    #[arg(long, value_name = "HOST:PORT")]
    listen: Option<String>,
    /// With --listen: every request to /mcp must carry `Authorization: Bearer <the value of VAR>`.
    #[arg(long, value_name = "VAR", requires = "listen")]
    auth_token_env: Option<String>,
    /// With --listen: an Origin browsers may send (repeatable; default: loopback origins only).
    #[arg(long, value_name = "ORIGIN", requires = "listen")]
    allowed_origin: Vec<String>,
    /// With --listen: legacy (initialize) sessions open at once, each with an upstream of its own.
    #[arg(long, default_value = "32", value_name = "N", requires = "listen")]
    max_sessions: usize,
    /// With --listen: a legacy session with no open stream for this long is closed (its upstream stopped).
    #[arg(long, default_value = "600", value_name = "SECS", requires = "listen")]
    idle_timeout: f64,
    /// With --listen: response streams open at once (requests waiting for their answer, GET streams).
    #[arg(long, default_value = "4096", value_name = "N", requires = "listen")]
    max_streams: usize,
    /// With --listen: connections open at once (further ones wait in the kernel's backlog).
    #[arg(long, default_value = "16384", value_name = "N", requires = "listen")]
    max_connections: usize,
    /// Guard the MCP server at this URL (Streamable HTTP, either era; or HTTP+SSE where it speaks only
    /// that) instead of starting UPSTREAM_CMD. Its userinfo, query and fragment are never shown in errors
    /// or logs (userinfo is sent as Basic credentials; the query is sent).
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    upstream: Option<String>,
    /// With --upstream: a header the guard sends the upstream, its value read from the environment
    /// ('Authorization: env:UPSTREAM_TOKEN'; repeatable). The guard's own credentials: a client's
    /// Authorization is never forwarded.
    #[arg(long, value_name = "'NAME: env:VAR'", requires = "upstream")]
    upstream_header: Vec<String>,
    /// With --upstream: PEM certificates to trust beside the platform's roots (a private CA).
    #[arg(long, value_name = "FILE", requires = "upstream")]
    upstream_ca: Option<std::path::PathBuf>,
    /// With --upstream: what the server at the URL speaks. `a2a`: an A2A agent over JSON-RPC (A2A 1.0),
    /// served with --listen at /a2a, its agent card at /.well-known/agent-card.json pointing there; the
    /// dialect is then `a2a` unless --dialect says otherwise. Named, not guessed: an MCP server may
    /// serve an agent card too, and the guard must know what it relays before the first request.
    #[arg(long, value_enum, default_value = "mcp", requires = "upstream")]
    upstream_protocol: UpstreamProtocolArg,
    /// The upstream server's command line.
    #[arg(
        last = true,
        required_unless_present_any = ["check_config", "upstream"],
        value_name = "UPSTREAM_CMD"
    )]
    command: Vec<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum LogFormatArg {
    Json,
    Text,
}

/// What a server at a URL speaks (`--upstream-protocol`).
#[derive(Clone, Copy, ValueEnum)]
enum UpstreamProtocolArg {
    Mcp,
    A2a,
}

#[derive(Clone, Copy, ValueEnum)]
enum LogLevelArg {
    Error,
    Warn,
    Info,
    Debug,
}

fn seconds(secs: f64, what: &str) -> Result<std::time::Duration, String> {
    std::time::Duration::try_from_secs_f64(secs)
        .map_err(|_| format!("--{what} must be a non-negative number of seconds"))
}

fn read_stdin() -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    std::io::stdin()
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    Ok(buf)
}

/// stdin as text; bytes that are not UTF-8 get the guest's refusal (the JSON error on stdout, like any bad input).
fn stdin_text(rt: &Runtime) -> Result<String, Problem> {
    String::from_utf8(read_stdin()?).map_err(|e| {
        Problem::Invalid(rt.refusal(&InputProblem::NotUnicode(
            e.utf8_error().valid_up_to() as u64
        )))
    })
}

enum Problem {
    /// Bad input: the JSON-RPC error object goes to stdout, the message to stderr.
    Invalid(ErrorObject),
    /// The CLI itself could not work (stdin, component load).
    Fatal(String),
}

impl From<ErrorObject> for Problem {
    fn from(f: ErrorObject) -> Self {
        Problem::Invalid(f)
    }
}

impl From<String> for Problem {
    fn from(s: String) -> Self {
        Problem::Fatal(s)
    }
}

fn secret_candidates() -> Vec<(String, String)> {
    // The guest decides which names look secret; the CLI offers it its whole environment.
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// The redaction flags, as the component takes them.
struct RedactionFlags {
    method: String,
    hash_key_env: Option<String>,
    disable: Vec<String>,
    allow: Vec<String>,
    allow_pattern: Vec<String>,
    sensitive_key: Vec<String>,
    rules: Option<std::path::PathBuf>,
}

/// Assembles the options JSON the component validates (the CLI checks nothing itself but file access). Every
/// field is named: a redaction option added to the WIT does not compile here until the CLI offers it.
fn redaction_options(flags: RedactionFlags) -> Result<String, Problem> {
    let hash_key = match flags.hash_key_env.as_deref() {
        Some(var) => Some(
            std::env::var(var)
                .map_err(|_| format!("--hash-key-env: environment variable {var} is not set"))?,
        ),
        None => None,
    };
    let extra_rules = match flags.rules.as_deref() {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--rules {}: {e}", path.display()))?;
            match serde_json::from_str(&text)
                .map_err(|e| format!("--rules {}: not JSON: {e}", path.display()))?
            {
                serde_json::Value::Array(rules) => rules,
                _ => return Err(format!("--rules {}: not a JSON array", path.display()).into()),
            }
        }
        None => Vec::new(),
    };
    let options = RedactionOptions {
        method: RedactionMethod::from_name(&flags.method),
        hash_key,
        disable: flags.disable,
        extra_rules,
        allowlist: flags.allow,
        allow_patterns: flags.allow_pattern,
        sensitive_keys: flags.sensitive_key,
    };
    Ok(options.to_json())
}

fn run(cli: Cli) -> Result<String, Problem> {
    let env = match &cli.command {
        Command::Redact { no_env: true, .. } => Vec::new(),
        _ => secret_candidates(),
    };
    let rt = Runtime::new(env).map_err(|e| format!("cannot load the component: {e}"))?;
    let ctx = Context::now();
    let out = match cli.command {
        Command::Map { dialect } => rt.map_error(&stdin_text(&rt)?, &dialect, ctx)?,
        Command::Validate {
            max_bytes,
            batch,
            content_type,
            content_length,
            dialect,
        } => {
            let options = ValidateOptions {
                max_bytes,
                batch: if batch == "allow" {
                    BatchPolicy::Allow
                } else {
                    BatchPolicy::Reject
                },
                content_type,
                content_length,
                dialect,
            };
            rt.validate(&read_stdin()?, &options, ctx)?
        }
        Command::Redact {
            json,
            method,
            hash_key_env,
            disable,
            allow,
            allow_pattern,
            sensitive_key,
            rules,
            json_doc,
            ..
        } => {
            let options = redaction_options(RedactionFlags {
                method,
                hash_key_env,
                disable,
                allow,
                allow_pattern,
                sensitive_key,
                rules,
            })?;
            let input = stdin_text(&rt)?;
            if json_doc {
                rt.redact_json_value(&input, &options)?
            } else {
                let out = rt.redact_with(&input, &options)?;
                if json {
                    out
                } else {
                    // Raw text in, raw text out: no trailing newline is added to what was not there.
                    let doc: serde_json::Value = serde_json::from_str(&out)
                        .map_err(|e| format!("unexpected output: {e}"))?;
                    return Ok(doc["text"].as_str().unwrap_or_default().to_string());
                }
            }
        }
        Command::Sanitize { dialect } => rt.sanitize(&read_stdin()?, &dialect, ctx)?,
        Command::Explain { code, dialect } => rt.explain(code, &dialect)?,
        Command::Lookup {
            code,
            dialect,
            message,
            data,
        } => {
            let kind = rt.lookup_kind(&dialect, code, message.as_deref(), data.as_deref())?;
            serde_json::json!({ "dialect": dialect, "code": code, "kind": kind }).to_string()
        }
        Command::Codes { dialect, format } => {
            let text = rt.codes(dialect.as_deref(), &format)?;
            return Ok(text);
        }
        Command::Guard { .. } => unreachable!("the guard runs from main"),
    };
    Ok(out + "\n")
}

/// `guard` runs until its upstream ends and reports through its exit status, so it does not go through
/// `run`'s one-document contract. Its steps: the component loaded; `--check-config` checks the policy file and
/// stops there; otherwise the flags become the proxy's arguments ([`guard_args`]: each checked before anything
/// starts, a refused one a usage error) and the proxy runs.
fn guard(mut flags: GuardFlags) -> ExitCode {
    let runtime = match Runtime::new(secret_candidates()) {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("jsonrpc-errors guard: cannot load the component: {e}");
            return ExitCode::from(proxy::status::GUARD_FAILED);
        }
    };
    // The policy file, read and checked by the component before anything starts; nothing is half-applied.
    if let Some(path) = flags.check_config.take() {
        let file = proxy::config::ConfigFile { path };
        return match file.load(&runtime) {
            Ok(_) => {
                eprintln!("jsonrpc-errors guard: {}: valid", file.path.display());
                ExitCode::SUCCESS
            }
            Err(msg) => guard_usage(msg),
        };
    }
    match guard_args(flags, &runtime) {
        Ok(args) => proxy::run(args, runtime),
        Err(msg) => guard_usage(msg),
    }
}

/// A guard that cannot start as asked: why, on stderr only (the guard's stdout is the MCP channel, and carries
/// nothing but messages), and exit status 2.
fn guard_usage(msg: String) -> ExitCode {
    eprintln!("jsonrpc-errors guard: {msg}");
    ExitCode::from(2)
}

/// The proxy's arguments from the guard's flags, in the order they are checked: the policy file, the upstream's
/// protocol, the session's options and the limits the session resolves them to, the transport, metrics and
/// logging, the HTTP front.
fn guard_args(flags: GuardFlags, runtime: &Runtime) -> Result<proxy::Args, String> {
    let config = flags
        .config
        .clone()
        .map(|path| proxy::config::ConfigFile { path });
    let (policy, file) = match config.as_ref().map(|c| c.load(runtime)).transpose()? {
        Some((policy, defaults)) => (Some(policy), defaults),
        None => (None, Default::default()),
    };
    let protocol = match flags.upstream_protocol {
        UpstreamProtocolArg::Mcp => proxy::transport::http::Protocol::Mcp,
        UpstreamProtocolArg::A2a => proxy::transport::http::Protocol::A2a,
    };
    if protocol == proxy::transport::http::Protocol::A2a && flags.listen.is_none() {
        return Err("--upstream-protocol a2a needs --listen: A2A clients speak HTTP".into());
    }
    let mut session = session_options(&flags, protocol, file)?;
    if let Some(policy) = policy {
        session.policy = Some(policy.text);
        session.policy_env = policy.env;
    }
    let grace = seconds(flags.grace, "grace")?;
    let settings = resolved_settings(runtime, &mut session)?;
    let transport = transport_spec(&flags, protocol, grace, settings.max_upstream_bytes)?;
    session.upstream = proxy::transport::display_name(&transport);
    session.upstream_credentials = Some(proxy::transport::credentials(&transport));
    let metrics_addr = flags
        .metrics_addr
        .as_deref()
        .map(proxy::MetricsAddr::parse)
        .transpose()?;
    let log_level = match flags.log_level {
        LogLevelArg::Error => tracing::Level::ERROR,
        LogLevelArg::Warn => tracing::Level::WARN,
        LogLevelArg::Info => tracing::Level::INFO,
        LogLevelArg::Debug => tracing::Level::DEBUG,
    };
    let log_format = match flags.log_format {
        LogFormatArg::Json => proxy::LogFormat::Json,
        LogFormatArg::Text => proxy::LogFormat::Text,
    };
    let listen = listen_options(&flags)?;
    Ok(proxy::Args {
        session,
        settings,
        transport,
        log_format,
        log_level,
        metrics_addr,
        listen,
        config,
    })
}

/// The session's options as the command line gives them (the policy file's text aside), and None for what it
/// leaves unset: the session resolves every option (the policy file's `[defaults]`, else the built-in
/// defaults; [`resolved_settings`]). One default is the CLI's, as the upstream protocol is: an A2A agent's
/// dialect is `a2a` where the file names none.
fn session_options(
    flags: &GuardFlags,
    protocol: proxy::transport::http::Protocol,
    file: jsonrpc_errors_host::guard::PolicyDefaults,
) -> Result<jsonrpc_errors_host::guard::Options, String> {
    let dialect = flags.dialect.clone().or_else(|| {
        (protocol == proxy::transport::http::Protocol::A2a && file.dialect.is_none())
            .then(|| "a2a".into())
    });
    // 0: no limit; anything else at least 1 ms.
    let timeout_ms = flags
        .timeout
        .map(|secs| seconds(secs, "timeout"))
        .transpose()?
        .map(|t| {
            if t.is_zero() {
                0
            } else {
                t.as_millis().max(1) as u64
            }
        });
    Ok(jsonrpc_errors_host::guard::Options {
        dialect,
        max_bytes: flags.max_bytes,
        batch: flags.batch.as_deref().and_then(BatchPolicy::from_name),
        timeout_ms,
        failed_result_bytes: flags.failed_result_bytes,
        max_upstream_bytes: flags.max_upstream_bytes,
        environment: Some(secret_candidates()),
        // One client per session, but for the HTTP front's shared child (`proxy/http/shared.rs`).
        many_clients: None,
        ..Default::default()
    })
}

/// The options a session opened with `session` resolves (the command line's, else the policy file's
/// `[defaults]`, else the built-in defaults), written back into `session`: every session this guard opens (one
/// per legacy HTTP session, and again after a SIGHUP reload) gets the options resolved at start (a reloaded
/// file's `[defaults]` change nothing), as the
/// transport's reader does. A bad dialect is refused here, before anything starts (the message is the
/// library's, as for every subcommand).
fn resolved_settings(
    runtime: &Runtime,
    session: &mut jsonrpc_errors_host::guard::Options,
) -> Result<jsonrpc_errors_host::guard::Settings, String> {
    let settings = runtime
        .guard_session(session)
        .and_then(|mut s| s.settings())
        .map_err(|f| f.to_string())?;
    // A line longer than the component takes could not be judged: every pending request would go unanswered.
    // So the limits stop there (lines beyond them are refused as they stream, and answered).
    let most = runtime.max_input_bytes() as u64;
    for (flag, value) in [
        ("--max-bytes", settings.max_bytes),
        ("--max-upstream-bytes", settings.max_upstream_bytes),
    ] {
        if value > most {
            return Err(format!(
                "{flag} {value} is over the largest line the guard can judge ({most} bytes)"
            ));
        }
    }
    session.dialect = Some(settings.dialect.clone());
    session.batch = BatchPolicy::from_name(&settings.batch);
    session.max_bytes = Some(settings.max_bytes);
    session.timeout_ms = Some(settings.timeout_ms.unwrap_or(0));
    session.failed_result_bytes = Some(settings.failed_result_bytes);
    session.max_upstream_bytes = Some(settings.max_upstream_bytes);
    Ok(settings)
}

/// How the upstream is reached: the command the guard starts, or the server at `--upstream`'s URL (its
/// headers, its private CA), each reading lines of at most `max_upstream_bytes`.
fn transport_spec(
    flags: &GuardFlags,
    protocol: proxy::transport::http::Protocol,
    grace: std::time::Duration,
    max_upstream_bytes: u64,
) -> Result<proxy::transport::Spec, String> {
    let max_upstream_bytes = max_upstream_bytes as usize;
    let Some(url) = &flags.upstream else {
        return Ok(proxy::transport::Spec::Process(
            proxy::transport::process::Spec {
                command: flags.command.clone(),
                grace,
                max_upstream_bytes,
            },
        ));
    };
    let ca = match flags.upstream_ca.as_deref() {
        None => Vec::new(),
        Some(path) => proxy::transport::http::read_ca(path)?,
    };
    let spec = proxy::transport::http::Spec::new(
        url,
        protocol,
        &flags.upstream_header,
        &ca,
        max_upstream_bytes,
        grace,
    )?;
    Ok(proxy::transport::Spec::Http(std::sync::Arc::new(spec)))
}

/// `--listen`'s HTTP front, with its token, origins and limits; None: the guard serves its stdio.
fn listen_options(flags: &GuardFlags) -> Result<Option<proxy::http::Listen>, String> {
    let Some(text) = &flags.listen else {
        return Ok(None);
    };
    let (host, port) = proxy::http::Listen::parse_addr(text)?;
    let token = match &flags.auth_token_env {
        None => None,
        Some(var) => match std::env::var(var) {
            Ok(t) if !t.trim().is_empty() => Some(t.trim().to_string()),
            _ => {
                return Err(format!(
                    "--auth-token-env: environment variable {var} is not set (or empty)"
                ))
            }
        },
    };
    let idle_timeout = match seconds(flags.idle_timeout, "idle-timeout")? {
        t if t.is_zero() => return Err("--idle-timeout must be more than 0".into()),
        t => t,
    };
    if flags.max_sessions == 0 || flags.max_streams == 0 || flags.max_connections == 0 {
        return Err(
            "--max-sessions, --max-streams and --max-connections must be at least 1".into(),
        );
    }
    Ok(Some(proxy::http::Listen {
        host,
        port,
        token,
        allowed_origins: flags.allowed_origin.clone(),
        max_sessions: flags.max_sessions,
        idle_timeout,
        max_streams: flags.max_streams,
        max_connections: flags.max_connections,
    }))
}

/// Text that may echo what the caller typed (a clap usage error quoting an invalid value, a file name, an
/// environment variable's name), scrubbed by the guest's redactor before it is shown. Without a component
/// (the message is then about loading it, and quotes nothing of the caller's) it is shown as it is.
fn scrubbed(text: &str) -> String {
    match Runtime::new(secret_candidates()) {
        Ok(rt) => rt
            .redact(text)
            .map(|r| r.text)
            .unwrap_or_else(|_| "(message withheld: it could not be scrubbed)".into()),
        Err(_) => text.to_string(),
    }
}

/// clap's own errors name the offending argument or value: scrubbed like every other message. `--help` and
/// `--version` print as clap writes them.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    eprint!("{}", scrubbed(&e.render().to_string()));
    ExitCode::from(2)
}

/// The command line as clap parses it, with what the help says from the taxonomy: every `--dialect` lists the
/// dialects, and the top-level help says what each follows.
fn command() -> clap::Command {
    let names: Vec<&str> = DIALECTS.iter().map(|(name, _)| *name).collect();
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    let mut after = String::from(
        "Dialects (--dialect D; `jsonrpc-errors codes --dialect D` lists D's codes):\n",
    );
    for (name, about) in DIALECTS {
        let source = about.split_once(": ").map_or(*about, |(source, _)| source);
        after += &format!("  {name:width$}  {source}\n");
    }
    after += "\nExamples:\n  \
        echo '{\"kind\":\"tool-not-exposed\",\"tool\":\"admin_delete\",\"id\":1}' | jsonrpc-errors map --dialect thoughtgate\n  \
        echo 'password=hunter2' | jsonrpc-errors redact\n  \
        jsonrpc-errors explain -32001 --dialect watchgate\n  \
        jsonrpc-errors guard --dialect mcp -- python server.py\n\n\
        Each command's options and examples: jsonrpc-errors <COMMAND> --help";
    let mut cmd = Cli::command().after_help(after);
    let with_dialect: Vec<String> = cmd
        .get_subcommands()
        .filter(|c| c.get_arguments().any(|a| a.get_id() == "dialect"))
        .map(|c| c.get_name().to_string())
        .collect();
    let list = names.join(", ");
    for name in with_dialect {
        cmd = cmd.mut_subcommand(name, |c| {
            c.mut_arg("dialect", |a| {
                let help = a.get_help().map(ToString::to_string).unwrap_or_default();
                a.help(format!("{help}; one of: {list}"))
            })
        });
    }
    cmd
}

fn main() -> ExitCode {
    // The guard's helper processes (the keeper on Linux, the watcher on macOS: proxy/platform/), started by
    // the guard itself: no component, no clap, no logging.
    proxy::platform::run_helper(&std::env::args().collect::<Vec<_>>());
    let cli = match command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let cli = match cli.command {
        Command::Guard(flags) => return guard(flags),
        command => Cli { command },
    };
    let mut stdout = std::io::stdout().lock();
    match run(cli) {
        Ok(text) => {
            let _ = stdout.write_all(text.as_bytes());
            ExitCode::SUCCESS
        }
        Err(Problem::Invalid(f)) => {
            let _ = writeln!(stdout, "{}", f.to_json());
            eprintln!("jsonrpc-errors: {f}");
            ExitCode::from(1)
        }
        Err(Problem::Fatal(msg)) => {
            eprintln!("jsonrpc-errors: {}", scrubbed(&msg));
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--help` is the CLI's manual: every option and argument of every subcommand says what it does, every
    /// subcommand shows an example, and the top-level help lists the taxonomy's dialects.
    #[test]
    fn the_help_describes_every_option_lists_the_dialects_and_gives_examples() {
        let mut cmd = command();
        cmd.build();
        let mut undocumented = Vec::new();
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            assert!(
                sub.get_about().is_some(),
                "{} has no description",
                sub.get_name()
            );
            let example = sub
                .get_after_help()
                .map(ToString::to_string)
                .unwrap_or_default();
            assert!(
                example.contains("Example") && example.contains("jsonrpc-errors "),
                "{} gives no example",
                sub.get_name()
            );
            for arg in sub
                .get_arguments()
                .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
            {
                if arg
                    .get_help()
                    .is_none_or(|h| h.to_string().trim().is_empty())
                {
                    undocumented.push(format!("{} {}", sub.get_name(), arg.get_id()));
                }
            }
            if sub.get_arguments().any(|a| a.get_id() == "dialect") {
                let help = sub
                    .get_arguments()
                    .find(|a| a.get_id() == "dialect")
                    .unwrap()
                    .get_help()
                    .unwrap()
                    .to_string();
                assert!(
                    DIALECTS.iter().all(|(d, _)| help.contains(d)),
                    "{}'s --dialect does not list the dialects: {help}",
                    sub.get_name()
                );
            }
        }
        assert_eq!(
            undocumented,
            Vec::<String>::new(),
            "options without a description"
        );
        let top = cmd.render_long_help().to_string();
        for (dialect, _) in DIALECTS {
            assert!(
                top.lines()
                    .any(|l| l.trim_start().starts_with(&format!("{dialect} "))),
                "the help does not list {dialect}:\n{top}"
            );
        }
        assert_eq!(DIALECTS.len(), 8);
        assert!(top.contains("Examples:\n  echo "), "{top}");
        assert!(cmd
            .find_subcommand_mut("guard")
            .unwrap()
            .render_long_help()
            .to_string()
            .contains("--metrics-addr <HOST:PORT>"));
    }
}
