// The npm tarball: only what users need, and it installs into an empty project where
// `import { mapError } from 'jsonrpc-errors'` works in Node.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { installIntoTempProject, packedFiles } from "./pack-helpers.mjs";

const cleanup = [];
after(() => cleanup.forEach((d) => rmSync(d, { recursive: true, force: true })));

test("npm pack --dry-run: the tarball holds only what users need", () => {
  const info = packedFiles();
  const files = info.files.map((f) => f.path).sort();
  const allowed = (p) =>
    p === "package.json" ||
    p === "README.md" ||
    p === "LICENSE" ||
    /^dist\/(mcp\/)?[a-z-]+\.(js|d\.ts)$/.test(p) ||
    p === "dist/wasm/jsonrpc_errors.js" ||
    p === "dist/wasm/jsonrpc_errors_bg.wasm" ||
    p === "dist/wasm/jsonrpc_errors_guard.js" ||
    p === "dist/wasm/jsonrpc_errors_guard_bg.wasm" ||
    p === "dist/wasm/jsonrpc_errors_redact.js" ||
    p === "dist/wasm/jsonrpc_errors_redact_bg.wasm";
  const unexpected = files.filter((p) => !allowed(p));
  assert.deepEqual(unexpected, [], `unexpected files in the tarball: ${unexpected.join(", ")}`);
  for (const needed of ["package.json", "dist/node.js", "dist/node.d.ts", "dist/browser.js", "dist/taxonomy.js", "dist/wasm/jsonrpc_errors.js", "dist/wasm/jsonrpc_errors_bg.wasm", "dist/guard-node.js", "dist/guard-browser.js", "dist/guard-node.d.ts", "dist/wasm/jsonrpc_errors_guard.js", "dist/wasm/jsonrpc_errors_guard_bg.wasm", "dist/redact-node.js", "dist/redact-browser.js", "dist/redact-node.d.ts", "dist/wasm/jsonrpc_errors_redact.js", "dist/wasm/jsonrpc_errors_redact_bg.wasm"]) {
    assert.ok(files.includes(needed), `${needed} is missing from the tarball`);
  }
  assert.ok(!files.some((p) => p.startsWith("src/") || p.startsWith("test/") || p.startsWith("rust/") || p.endsWith(".rs")));
  console.log(`# tarball: ${files.length} files, ${info.size} bytes packed, ${info.unpackedSize} unpacked`);
});

/** Fails when the module `file` (dist/wasm/) is over `raw` bytes, or over `gzipped` bytes compressed with zlib
 *  at level 9 (Node's and most servers' deflate: ~2% larger than GNU gzip -9 on these modules). */
async function assertWithinBudget(label, file, raw, gzipped) {
  const { readFileSync } = await import("node:fs");
  const { gzipSync } = await import("node:zlib");
  const { PKG_DIR } = await import("./helpers.mjs");
  const wasm = readFileSync(join(PKG_DIR, "dist", "wasm", file));
  const gz = gzipSync(wasm, { level: 9 }).length;
  console.log(`# ${label}: ${wasm.length} bytes raw, ${gz} bytes gzipped (zlib level 9)`);
  assert.ok(wasm.length <= raw, `the ${label} is ${wasm.length} bytes raw`);
  assert.ok(gz <= gzipped, `the ${label} is ${gz} bytes gzipped`);
}

// Raised on 2026-11-26 from 400,000 / 160,000 for redaction on real text (issue 25: 71 → 120 rules, the
// classifier of secret names, look-alike folding), measured 397,584 / 159,971 before and 429,539 / 177,645
// after (+32 KB raw, +17.7 KB gzipped), with ~2 KB of room. Raised again on 2026-11-26 to 440,000 / 183,000
// for the probe's classes of misses (120 → 134 rules: name/value sibling fields, CLI password flags, short and
// non-English secret names, more vendors), measured 429,523 / 177,666 before and 435,914 / 180,360 after
// (+6.4 KB raw, +2.7 KB gzipped). Raised on 2026-11-29 to 464,000 / 195,000 for issue 36 (134 → 146 rules:
// decoding of base64, hex, percent and HTML-entity encoded text and scanning it with every rule; tables (CSV,
// TSV, markdown, SQL INSERT) read by header and column; JWK private members, PuTTY keys, .pgpass, password
// hashes, key ids, prose user:password pairs, Rust panic locations), measured 439,755 / 181,824 before and
// 461,569 / 189,987 after (+21.8 KB raw, +8.2 KB gzipped). The gzipped figure is the redaction module's (below,
// held to this budget), 193,408: this one has ~5 KB of room. Raised on 2026-11-29 to 465,000 raw for issue 37
// (the HTTP front's refusals and MCP's own errors as six taxonomy kinds, 43 → 49: every module carries the
// table), measured 461,702 before and 464,520 after (+2.8 KB raw; gzip -9: 186,166 → 187,228, +1.1 KB). Raised
// the same day to 466,000 / 196,000 when issue 37's other parts (the generated reader of the redaction options,
// the policy compiler building them typed, the session's `settings`) and issue 36's speed work (markers
// written in place, a bounded look around multi-line markers) were merged beside it: 465,398 / 191,547, and the
// redaction module below 464,537 / 195,111. Lowered on 2026-11-30 to 462,600 / 194,700 (issue 38: the guest's
// sorts through the binary heap instead of one pdqsort instantiation per call site, but for redaction's
// candidates): 465,975 → 454,840 raw here (gzip -9: 187,451 → 185,158; zlib 9: 189,168 after), and the
// redaction module below, which sets this budget, 465,785 → 462,099 / 194,305.
test("the shipped .wasm stays within the size budget: ≤ 462,600 bytes raw and ≤ 194,700 gzipped", async () => {
  await assertWithinBudget(".wasm", "jsonrpc_errors_bg.wasm", 462_600, 194_700);
});

// The guard module (guard sessions and redaction under options) is loaded only by `jsonrpc-errors/guard`
// (until 2026-11-23 also by `jsonrpc-errors/redact`), so the base module above keeps its budget. Its own
// budget: the base module's measured size plus the guard session's (+49 KB raw, +20 KB gzipped when it was
// introduced) plus redactWith/redactJsonValue (+35 KB raw, +12 KB gzipped: options parsing, callers' rules,
// HMAC-SHA256) plus the redaction rules' step programs (+5 KB raw, +3.7 KB gzipped; the base module goes
// without them: same findings, its budget has no room), with a few KB of room. That room was spent by
// 2026-11-23, when two leak fixes needed ~300 bytes gzipped more (upstream-log as one stream, so a key block
// split between stderr chunks is redacted whole; spans that remember ending at URL userinfo's `@`): the
// gzipped budget went from 201,000 to 202,000 bytes, the raw one stayed. On 2026-11-26 it went to 690,000 /
// 290,000 for the policy file (issue 27: the TOML reader, the document's checks and messages, scopes, actions,
// per-tool overrides) and issue 25's redaction: 478,818 / 196,600 before, 675,155 / 283,867 after (+196 KB
// raw, +87 KB gzipped, of which ~20 KB gzipped is the redaction the base module also grew by). Shrinking the
// policy reader is open work (issue 29); this budget keeps it from growing unnoticed meanwhile. On 2026-11-26
// (issue 28) it went to 730,000 / 305,000: the guard module took the main entry's calls (mapError, validate,
// sanitize, explain, codes, kinds, lookupKind, redact), so that a browser page using `jsonrpc-errors/mcp` and
// the main entry downloads this module alone instead of both: 682,472 / 282,181 (GNU gzip -9) before,
// 721,829 / 295,775 after (300,412 zlib level 9), against 1,118,386 / 458,848 for the two modules. Later on
// 2026-11-26 (issue 29) the raw budget went to 735,000: the session's own environment (its options' JSON
// reader, the secrets it holds) and two redaction leak fixes (auth schemes, templates cut at their brace) made
// the module 730,415 bytes raw, gzipped still under its budget. On 2026-11-29 (issue 34: the guard session as a
// security boundary) it went to 752,000 / 315,000: 730,415 / 303,781 (Node's zlib, level 9) before, 748,360 /
// 311,313 after (+17.9 KB raw, +7.5 KB gzipped). Per function, before wasm-opt: the upstream side +7.6 KB (each
// member it reads of a result read once, what it scans read strictly and refused when it cannot be, a request
// of the server's answered at once and notifications dropped for a session of many clients, the server's own
// messages redacted in their scopes, a 2026-07-28 request's result given what its revision requires), the
// client side +2.7 KB (params read once, a tool call without a name and unreadable arguments refused under a
// policy), the readers (RequestParams, top_members, the repeat scan, fractional ids) +3.3 KB, unguessable stream
// names and the bounded tool labels +1.5 KB, 3.4 KB of data (the labels' method names, the new messages). The
// repeat scan walks the bytes rather than parse with a visitor of its own (a visitor cost a copy of the
// parser), and sorts the `String`s another sort already does: 2.6 KB less than the first version.
// The same day issue 36's redaction work (encoded credentials, tables, key files, 12 more rules and their step
// programs; see the base module's budget), measured alone at +24.3 KB raw / +9.2 KB gzipped, joined it: 773,414 /
// 320,405 with both, so 776,000 / 322,000. Then (issue 35) the session's upstream-request-failed, which the
// module did not export (the parity test's finding: GuardSession lacked it), and messages laid out over lines
// sent as one line: 779,272 / 323,305, so 782,000 / 325,000. Then (issue 35) the `a2a` dialect's reading of a
// failed A2A task (a TypeScript proxy in front of an A2A agent gets the CLI's policy) and the session's
// `upstream-credentials` (a shell's own credentials redacted wherever an upstream reflects them): 787,329 /
// 326,152, so 790,000 / 327,000. Then (issue 35) A2A's streaming methods relayed (a request answered with
// many responses kept pending until its final event, the `end` step, `upstream-exchange-ended`): 790,054 /
// 327,258 after sharing the cancellation's writer and the deadline's placing with what was there, so 791,000 /
// 328,000. Then (issue 37) six taxonomy kinds (the HTTP front's refusals, MCP's own -32020..-32022): 790,054
// before, 792,824 / 328,236 after (gzip -9: 322,599 → 323,722, +1.1 KB), so 793,500 / 329,000. Merged with
// issue 37's other parts (the session resolves every limit and reports them in `settings`, a serde-derived
// record; the generated redaction-options reader; 791,759 / 327,763 on their own) and issue 36's speed work
// (in-place markers, the bounded look around multi-line markers): 794,356 / 329,289, so 795,000 / 330,000.
// Issue 38 owns bringing the modules back down. Lowered on 2026-11-30 to 774,500 / 324,000 (issue 38: sorts
// through the binary heap, and no stable sorts in the session: splice's parts, the policy's actions map):
// 794,932 → 773,946 raw (gzip -9: 324,864 → 318,996; zlib 9: 323,604 after). Lowered the same day to 769,700 /
// 322,700 (issue 38: the policy's redactors per override pair in a list, not a BTreeMap of their own): 773,419 /
// 323,433 → 769,203 / 322,173 (zlib 9; gzip -9: 318,886 → 317,916). Lowered again to 764,900 / 320,500 (an
// override's `redact` kept in the actions map and read as unset, instead of removed: the B-tree's removal code
// left the module): 764,396 / 319,944 (gzip -9: 315,896).
test("the guard .wasm stays within its own budget: ≤ 764,900 bytes raw and ≤ 320,500 gzipped", async () => {
  await assertWithinBudget("guard .wasm", "jsonrpc_errors_guard_bg.wasm", 764_900, 320_500);
});

// The redaction module (`jsonrpc-errors/redact`: redaction under options, no guard session) is built for
// speed at opt-level "s" (Cargo.toml, `npm-redact`), as far as the base module's budget allows: a browser
// that only redacts downloads this module alone, so it is held to the same download budget.
// (2026-11-26: 377,269 / 155,875 before issue 25's rules, 419,310 / 176,723 after; 419,264 / 176,752 before
// the probe's classes of misses, 427,416 / 180,069 after, when the base budget went to 440,000 / 183,000;
// 2026-11-29, issue 36: 432,247 / 182,417 before, 460,326 / 193,408 after, when it went to 464,000 / 195,000;
// issue 37's six kinds: 460,610 before, 463,424 / 194,525 after, the base budget then 465,000 / 195,000;
// with the rest of issue 37 and issue 36's speed work merged: 464,537 / 195,111, the base budget 466,000 /
// 196,000; 2026-11-30, issue 38's sorts through the heap: 465,785 → 462,099 / 194,305, the base budget
// 462,600 / 194,700.)
test("the redaction .wasm stays within the base module's budget: ≤ 462,600 bytes raw and ≤ 194,700 gzipped", async () => {
  await assertWithinBudget("redaction .wasm", "jsonrpc_errors_redact_bg.wasm", 462_600, 194_700);
});

test("the public .d.ts has no `any`", async () => {
  const { readFileSync, readdirSync } = await import("node:fs");
  const { PKG_DIR } = await import("./helpers.mjs");
  for (const f of readdirSync(join(PKG_DIR, "dist")).filter((f) => f.endsWith(".d.ts") && f !== "runtime.d.ts")) {
    const text = readFileSync(join(PKG_DIR, "dist", f), "utf8");
    assert.ok(!/\bany\b/.test(text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")), `${f} mentions any`);
  }
});

test("installed from the tarball into an empty project, `import { mapError } from 'jsonrpc-errors'` works in Node", () => {
  const main = `
import { mapError, redact, InvalidInputError } from "jsonrpc-errors";
import { KINDS } from "jsonrpc-errors/taxonomy";
import { GuardSession } from "jsonrpc-errors/guard";
import { redactWith } from "jsonrpc-errors/redact";
const masked = redactWith("password=hunter2hunter2", { method: "mask" }).text;
const session = new GuardSession({ timeoutMs: 1000 });
const forwarded = session.clientLine('{"jsonrpc":"2.0","id":1,"method":"ping"}').steps[0].step;
const answered = JSON.parse(session.upstreamFailed({ exited: 1 }).steps.find((s) => s.step === "send").line).error.code;
const r = mapError({ kind: "method-not-found", method: "tools/call", id: 1 }, "canonical", { context: { unixMillis: 0, entropy: 1n } });
let refused = null;
try { mapError({ kind: "nope" }); } catch (e) { refused = e instanceof InvalidInputError ? e.error.data.reason : String(e); }
console.log(JSON.stringify({ code: r.error.code, id: r.id, redacted: redact("password=hunter2hunter2"), refused, status: KINDS["method-not-found"].httpStatus, guard: [forwarded, answered], masked }));
`;
  const { dir, project, tarball } = installIntoTempProject({ "main.js": main });
  cleanup.push(dir);
  assert.ok(statSync(tarball).size > 0);
  const out = execFileSync(process.execPath, [join(project, "main.js")], { cwd: project, encoding: "utf8" });
  const got = JSON.parse(out.trim());
  assert.deepEqual(got, { code: -32601, id: 1, redacted: "password=[REDACTED:secret-assignment]", refused: "unknown-kind", status: 404, guard: ["forward", -32000], masked: "password=**************" });
  // the CommonJS-free package is ESM only: require() of it is not expected, but a dynamic import from CJS works
  const cjs = execFileSync(process.execPath, ["-e", "import('jsonrpc-errors').then(m => console.log(m.lookupKind(-32601)))"], { cwd: project, encoding: "utf8" });
  assert.equal(cjs.trim(), "method-not-found");
});
