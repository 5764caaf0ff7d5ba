// The vector adapter over the npm package's public API (used in Node and in the browser page).

export function packageAdapter(pkg) {
  const context = (ctx) => ({ context: { unixMillis: ctx.unixMillis, entropy: ctx.entropy } });
  return {
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
    setEnv: (pairs) => pkg.setEnvironment(pairs),
    failureOf: (e) => (e instanceof pkg.InvalidInputError ? e.error : null),
  };
}
