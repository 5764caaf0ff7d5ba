// Runs conformance vectors (tests/vectors/*.json, format in tests/vectors/README.md) through an adapter.
// Plain ESM with no Node APIs: the browser test loads this very file in the page.
//
// An adapter has: map(inputText, dialect, ctx), validate(bytes, options, ctx), sanitize(bytes, dialect, ctx),
// redact(text), explain(code, dialect), lookup(code, dialect, message, dataJson), codes(dialect, format),
// redactWith(text, optionsText), redactJsonValue(valueText, optionsText), kinds(), maxInputBytes() (a number),
// refusal(problem) (throws the refusal: problem is {unknown_dialect | unknown_format: name} or
// {not_unicode | too_large: n}),
// guard(options) → a session with client(bytes, ctx), clientOn(stream, bytes, ctx), streamClosed(stream, ctx),
// clientOversize(n, head, tail, ctx), upstream(bytes, ctx),
// upstreamOversize(n, head, tail, ctx) (head, tail: bytes), failed(failure, ctx), exchangeEnded(id, ctx), expire(ctx), settings(), stderr(bytes), stderrEnd(), log(text), close(),
// setEnv(pairs), and
// failureOf(thrown) → the JSON-RPC error object of a refused input, or null. Every op returns the library's
// output text (lookup: the kind name or null). `ctx` is {unixMillis, entropy: bigint}.

export function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function rawOf(c) {
  return "raw_hex" in c ? hexToBytes(c.raw_hex) : new TextEncoder().encode(c.raw);
}

/** A redaction case's options text: `options_text` verbatim, else the compact `options`, else `{}`. */
function optionsText(c) {
  if ("options_text" in c) return c.options_text;
  return JSON.stringify(c.options ?? {});
}

function ctxOf(c) {
  const ctx = c.ctx || {};
  // Entropy may exceed 2^53 in a vector: the runners read it as text-exact where they can (see parseVectors).
  return { unixMillis: Number(ctx.unix_millis ?? 0), entropy: BigInt(ctx.entropy ?? 0) };
}

/** JSON.parse that keeps the ctx integers exact (as strings → BigInt later) by quoting long digit runs. */
export function parseVectors(text) {
  const quoted = text.replace(/("(?:unix_millis|entropy)"\s*:\s*)(\d{16,})/g, '$1"$2"');
  return JSON.parse(quoted);
}

/** The output text a case expects (`expect_text`; older files: the compact form of `expect`). */
export function expectedText(c) {
  if ("expect_outputs" in c) return JSON.stringify(c.expect_outputs);
  if ("expect_text" in c) return c.expect_text;
  if (c.op === "codes" && c.format === "markdown") return c.expect;
  return JSON.stringify(c.expect);
}

function run(adapter, c) {
  const dialect = c.dialect ?? "canonical";
  switch (c.op) {
    case "map":
      return adapter.map("input_text" in c ? c.input_text : JSON.stringify(c.input), dialect, ctxOf(c));
    case "validate":
      return adapter.validate(rawOf(c), c.options ?? {}, ctxOf(c));
    case "sanitize":
      return adapter.sanitize(rawOf(c), dialect, ctxOf(c));
    case "redact":
      return adapter.redact(c.text);
    case "explain":
      return adapter.explain(c.code, c.dialect);
    case "lookup": {
      const kind = adapter.lookup(c.code, c.dialect, c.message ?? null, "data" in c ? JSON.stringify(c.data) : null);
      return JSON.stringify(kind ?? null);
    }
    case "codes":
      return adapter.codes(c.dialect ?? null, c.format);
    case "redact_with":
      return adapter.redactWith(c.text, optionsText(c));
    case "redact_json_value":
      return adapter.redactJsonValue("value_text" in c ? c.value_text : JSON.stringify(c.value), optionsText(c));
    case "kinds":
      return adapter.kinds();
    case "max_input_bytes":
      return String(adapter.maxInputBytes());
    case "refusal":
      adapter.refusal(c.problem);
      throw new Error("a refusal must throw");
    case "check_policy":
      return adapter.checkPolicy(c.policy, c.policy_env ?? []);
    case "guard":
      return JSON.stringify(guardScript(adapter, c));
    default:
      throw new Error(`unknown op ${c.op}`);
  }
}

/** An oversize step's `head` or `tail`, as bytes (none when the step gives none). */
const edge = (text) => new TextEncoder().encode(text ?? "");

/** Runs a `guard` case's script on one session: one output text per step (format: tests/vectors/README.md). */
function guardScript(adapter, c) {
  const session = adapter.guard(c.options ?? {});
  const base = ctxOf(c);
  const outputs = [];
  try {
    c.script.forEach((step, i) => {
      const ctx = { unixMillis: base.unixMillis + (step.at ?? 0), entropy: (base.entropy + BigInt(i)) % (1n << 64n) };
      if ("client" in step) outputs.push(session.client(new TextEncoder().encode(step.client), ctx));
      else if ("client_hex" in step) outputs.push(session.client(hexToBytes(step.client_hex), ctx));
      else if ("client_on" in step) outputs.push(session.clientOn(step.client_on[0], new TextEncoder().encode(step.client_on[1]), ctx));
      else if ("stream_closed" in step) outputs.push(session.streamClosed(step.stream_closed, ctx));
      else if ("client_oversize" in step) outputs.push(session.clientOversize(step.client_oversize, edge(step.head), edge(step.tail), ctx));
      else if ("upstream" in step) outputs.push(session.upstream(new TextEncoder().encode(step.upstream), ctx));
      else if ("upstream_hex" in step) outputs.push(session.upstream(hexToBytes(step.upstream_hex), ctx));
      else if ("upstream_oversize" in step) outputs.push(session.upstreamOversize(step.upstream_oversize, edge(step.head), edge(step.tail), ctx));
      else if ("upstream_failed" in step) outputs.push(session.failed(step.upstream_failed, ctx));
      else if ("upstream_exchange_ended" in step) outputs.push(session.exchangeEnded(step.upstream_exchange_ended, ctx));
      else if ("expire" in step) outputs.push(session.expire(ctx));
      else if ("settings" in step) outputs.push(session.settings());
      else if ("upstream_stderr" in step) outputs.push(session.stderr(new TextEncoder().encode(step.upstream_stderr)));
      else if ("upstream_stderr_hex" in step) outputs.push(session.stderr(hexToBytes(step.upstream_stderr_hex)));
      else if ("upstream_stderr_end" in step) outputs.push(session.stderrEnd());
      else outputs.push(session.log(step.upstream_log));
    });
  } finally {
    session.close();
  }
  return outputs;
}

function sameValue(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameValue(a[k], b[k]));
}

/** Runs one case: `{pass: true}` or `{pass: false, message}`. */
export function runCase(adapter, c) {
  if (c.env) adapter.setEnv(c.env);
  try {
    let got;
    try {
      got = run(adapter, c);
    } catch (e) {
      const failure = adapter.failureOf(e);
      if (failure === null) throw e;
      if (!("expect_failure" in c)) {
        return { pass: false, message: `unexpected failure ${JSON.stringify(failure)}` };
      }
      const want = c.expect_failure;
      const gotValue = { code: failure.code, message: failure.message };
      if (failure.data !== undefined) gotValue.data = failure.data;
      return sameValue(gotValue, want)
        ? { pass: true }
        : { pass: false, message: `failure ${JSON.stringify(gotValue)} != expected ${JSON.stringify(want)}` };
    }
    if ("expect_failure" in c) {
      return { pass: false, message: `expected failure ${JSON.stringify(c.expect_failure)}, got ${got}` };
    }
    const want = expectedText(c);
    return got === want ? { pass: true } : { pass: false, message: `output\n  got:  ${got}\n  want: ${want}` };
  } finally {
    if (c.env) adapter.setEnv([]);
  }
}

/** Runs every case of every file: `[{file, name, pass, message?}]`. `files` is `[{file, doc}]`. */
export function runAll(adapter, files) {
  const results = [];
  for (const { file, doc } of files) {
    for (const c of doc.cases) {
      let r;
      try {
        r = runCase(adapter, c);
      } catch (e) {
        r = { pass: false, message: `threw ${e && e.stack ? e.stack : e}` };
      }
      results.push({ file, name: c.name, ...r });
    }
  }
  return results;
}
