// The vector adapter over the npm package's public API (used in Node and in the browser page).

/** A vector failure (`{exited: n}`, `"closed_output"`, ...) as the package's UpstreamFailure. */
export function upstreamFailure(f) {
  if (f === "closed_output") return "closed-output";
  if ("spawn_failed" in f) return { spawnFailed: f.spawn_failed };
  return f;
}

/** `runtime` is the package's internal runtime module (dist/runtime.js, the instance the entries loaded): the
 *  refusals and the input limit are runtime-internal in the npm package, as in Python. Redaction under options
 *  runs on `redaction`: the guard entry's module, or the redaction entry's (`jsonrpc-errors/redact`). */
export function packageAdapter(pkg, guardPkg, runtime, redaction = guardPkg) {
  const context = (ctx) => ({ context: { unixMillis: ctx.unixMillis, entropy: ctx.entropy } });
  return {
    guard: (o) => {
      const s = new guardPkg.GuardSession({
        dialect: o.dialect,
        maxBytes: o.max_bytes,
        batch: o.batch,
        timeoutMs: o.timeout_ms,
        upstream: o.upstream,
        failedResultBytes: o.failed_result_bytes,
        policy: o.policy,
        policyEnv: Object.fromEntries(o.policy_env ?? []),
        environment: o.environment == null ? undefined : Object.fromEntries(o.environment),
        upstreamCredentials: o.upstream_credentials,
        manyClients: o.many_clients,
        maxUpstreamBytes: o.max_upstream_bytes,
      });
      return {
        client: (b, ctx) => s.clientLineJson(b, context(ctx)),
        clientOn: (stream, b, ctx) => s.clientLineOnJson(stream, b, context(ctx)),
        streamClosed: (stream, ctx) => s.streamClosedJson(stream, context(ctx)),
        clientOversize: (n, head, tail, ctx) => s.clientOversizeJson(n, { head, tail, ...context(ctx) }),
        upstream: (b, ctx) => s.upstreamLineJson(b, context(ctx)),
        upstreamOversize: (n, head, tail, ctx) => s.upstreamOversizeJson(n, { head, tail, ...context(ctx) }),
        failed: (f, ctx) => s.upstreamFailedJson(upstreamFailure(f), context(ctx)),
        exchangeEnded: (id, ctx) => s.upstreamExchangeEndedJson(id, context(ctx)),
        expire: (ctx) => s.expireJson(context(ctx)),
        settings: () => s.settingsJson(),
        stderr: (b) => s.upstreamStderr(b),
        stderrEnd: () => s.upstreamStderrEnd(),
        log: (t) => s.upstreamLog(t),
        close: () => s.close(),
      };
    },
    map: (input, dialect, ctx) => pkg.mapErrorJson(input, dialect, context(ctx)),
    validate: (raw, o, ctx) =>
      pkg.validateJson(raw, {
        maxBytes: o.max_bytes,
        batch: o.batch,
        contentType: o.content_type,
        contentLength: o.content_length,
        dialect: o.dialect,
        ...context(ctx),
      }),
    sanitize: (raw, dialect, ctx) => pkg.sanitizeJson(raw, dialect, context(ctx)),
    redact: (text) => pkg.redactJson(text),
    explain: (code, dialect) => pkg.explainJson(code, dialect),
    lookup: (code, dialect, message, dataJson) =>
      pkg.lookupKind(code, dialect, message ?? undefined, dataJson === null ? undefined : JSON.parse(dataJson)),
    codes: (dialect, format) => pkg.codes(dialect, format),
    redactWith: (text, options) => redaction.redactWithJson(text, options),
    redactJsonValue: (value, options) => redaction.redactJsonValueJson(value, options),
    kinds: () => pkg.kindsJson(),
    checkPolicy: (text, env) => JSON.stringify(guardPkg.checkPolicy(text, Object.fromEntries(env))),
    maxInputBytes: () => runtime.maxInputBytes(),
    refusal: (problem) => {
      const [[tag, value]] = Object.entries(problem);
      const kind = tag.replace("_", "-");
      throw typeof value === "string" ? runtime.refused(kind, value, 0) : runtime.refused(kind, "", value);
    },
    // Both modules get the environment (the package's setEnvironment reaches every loaded module).
    setEnv: (pairs) => pkg.setEnvironment(pairs),
    failureOf: (e) => (e instanceof pkg.InvalidInputError ? e.error : null),
  };
}
