// Real browser: Debian's Chromium driven by playwright-core. A tiny HTTP server on 127.0.0.1 (random port)
// serves a page that imports the package's browser entries as plain ESM (an import map, no bundler), loads
// their modules with `init` and runs every vector in the page: once with the main entry on the base module,
// once on the guard module (imported first: one module for both). Bundlers: test/bundlers.test.mjs.
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium } from "playwright-core";
import { PKG_DIR, VECTORS_DIR } from "./helpers.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json", ".wasm": "application/wasm", ".css": "text/css" };

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>jsonrpc-errors vectors</title>
<script type="importmap">{"imports": {"jsonrpc-errors": "/pkg/dist/browser.js", "jsonrpc-errors/guard": "/pkg/dist/guard-browser.js", "jsonrpc-errors/redact": "/pkg/dist/redact-browser.js"}}</script>
<script type="module">
  import { runAll, parseVectors } from "/pkg/test/vectors-lib.js";
  import { packageAdapter } from "/pkg/test/package-adapter.js";
  // "?one-module": the guard entry is imported before init, so its module serves the main entry too; else the
  // main entry loads the base module first and the guard entry its own later.
  const oneModule = location.search === "?one-module";
  try {
    const pkg = await import("jsonrpc-errors");
    let guardPkg = oneModule ? await import("jsonrpc-errors/guard") : undefined;
    const checks = {};
    if (!oneModule) {
      // Nothing is loaded at import: a call says so; a bad option and a failed load reject, and init can be retried.
      try { pkg.mapError({ kind: "method-not-found", method: "m", id: 1 }); } catch (e) { checks.early = { name: e.name, message: e.message }; }
      checks.badOption = await pkg.init({ wasm: 5 }).then(() => "resolved", (e) => e.name);
      checks.missing = await pkg.init({ wasm: "/pkg/dist/wasm/missing.wasm" }).then(() => "resolved", (e) => String(e.message).includes("404"));
      const first = pkg.init();
      checks.shared = first === pkg.init();
      await first;
      checks.again = (await pkg.init({ wasm: "/elsewhere.wasm" })) === undefined;
      guardPkg = await import("jsonrpc-errors/guard");
      await guardPkg.init({ wasm: fetch("/pkg/dist/wasm/jsonrpc_errors_guard_bg.wasm") });
    } else {
      await pkg.init();
      await guardPkg.init();
    }
    const redactPkg = await import("jsonrpc-errors/redact");
    await redactPkg.init({ wasm: await (await fetch("/pkg/dist/wasm/jsonrpc_errors_redact_bg.wasm")).arrayBuffer() });
    // Only the loads init made (the page's own fetches of a module's bytes are initiated by "fetch" too).
    const fetched = performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname).filter((p) => p.endsWith(".wasm") && !p.endsWith("missing.wasm"));
    const list = await (await fetch("/vectors/")).json();
    const files = [];
    for (const file of list) files.push({ file, doc: parseVectors(await (await fetch("/vectors/" + file)).text()) });
    const runtime = await import("/pkg/dist/runtime.js");
    const results = runAll(packageAdapter(pkg, guardPkg, runtime), files);
    // The redaction entry's own module on every case it can run (as test/vectors.test.mjs does in Node).
    const redactionAdapter = { ...packageAdapter(pkg, guardPkg, runtime, redactPkg), redact: (text) => redactPkg.redactWithJson(text, "{}") };
    const redactionOps = new Set(["redact", "redact_with", "redact_json_value"]);
    const redactionFiles = files.map(({ file, doc }) => ({ file, doc: { ...doc, cases: doc.cases.filter((c) => redactionOps.has(c.op)) } }));
    const redactionResults = runAll(redactionAdapter, redactionFiles);
    // trap recovery in the browser: a panic becomes the -32603 error and the module is re-instantiated
    let trap = null;
    try { runtime.trapForTests(); } catch (e) { trap = { name: e.name, code: e.code }; }
    const after = pkg.mapError({ kind: "method-not-found", method: "m", id: 5 }).id;
    window.__done = { results, redactionResults, trap, after, checks, fetched };
  } catch (e) {
    window.__done = { error: String(e && e.stack || e) };
  }
</script>`;

let server;
let base;
let browser;
const roots = { "/pkg/": PKG_DIR };


function serveFile(res, file) {
  if (!existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404).end("not found");
    return;
  }
  res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
  res.end(readFileSync(file));
}

before(async () => {
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (path === "/" || path === "/index.html") {
      res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
      return;
    }
    if (path === "/vectors/") {
      const list = readdirSync(VECTORS_DIR).filter((f) => f.endsWith(".json")).sort();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(list));
      return;
    }
    for (const [prefix, dir] of Object.entries({ ...roots, "/vectors/": VECTORS_DIR })) {
      if (path.startsWith(prefix)) {
        const file = normalize(join(dir, path.slice(prefix.length)));
        if (file !== dir && !file.startsWith(dir + sep)) break;
        serveFile(res, path.endsWith("/") ? join(file, "index.html") : file);
        return;
      }
    }
    res.writeHead(404).end("not found");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

async function runPage(url) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  try {
    const response = await page.goto(url);
    assert.equal(response?.status(), 200, `GET ${url}`);
    await page.waitForFunction(() => window.__done !== undefined, null, { timeout: 60_000 });
    return { done: await page.evaluate(() => window.__done), errors };
  } finally {
    await page.close();
  }
}

for (const [label, query, modules] of [
  ["the main entry on the base module", "", ["jsonrpc_errors_bg.wasm", "jsonrpc_errors_guard_bg.wasm", "jsonrpc_errors_redact_bg.wasm"]],
  ["the main entry on the guard module (one module for both)", "?one-module", ["jsonrpc_errors_guard_bg.wasm", "jsonrpc_errors_redact_bg.wasm"]],
]) {
  describe(`chromium: the package's browser entries, unbundled: ${label}`, () => {
    let done;
    before(async () => {
      const r = await runPage(`${base}/${query}`);
      assert.deepEqual(r.errors, []);
      assert.equal(r.done.error, undefined, r.done.error);
      done = r.done;
    });

    test("every vector passes in the page", () => {
      const failed = done.results.filter((r) => !r.pass);
      const files = new Set(done.results.map((r) => r.file));
      console.log(`# chromium (${label}): ${done.results.length - failed.length} of ${done.results.length} vector cases passed (${files.size} files)`);
      assert.ok(done.results.length > 0);
      assert.deepEqual(failed.map((r) => `${r.file}::${r.name}: ${r.message}`), []);
    });

    test("every redaction vector passes in the page on the redaction module (jsonrpc-errors/redact)", () => {
      const failed = done.redactionResults.filter((r) => !r.pass);
      console.log(`# chromium, redaction module: ${done.redactionResults.length - failed.length} of ${done.redactionResults.length} vector cases passed`);
      assert.ok(done.redactionResults.length > 0);
      assert.deepEqual(failed.map((r) => `${r.file}::${r.name}: ${r.message}`), []);
    });

    test("a trap in the page becomes the -32603 WasmFaultError and the module is re-instantiated", () => {
      assert.deepEqual(done.trap, { name: "WasmFaultError", code: -32603 });
      assert.equal(done.after, 5);
    });

    test("the page fetched exactly the modules its entries need, each once", () => {
      assert.deepEqual(done.fetched.map((p) => p.split("/").pop()).sort(), modules);
    });

    if (query === "") {
      test("init: nothing loads at import, a call before init says to call it, concurrent calls share one load", () => {
        assert.equal(done.checks.early.name, "NotInitializedError");
        assert.match(done.checks.early.message, /await init\(\)/);
        assert.equal(done.checks.badOption, "ArgumentTypeError");
        assert.equal(done.checks.missing, true, "a 404 rejects init with the status");
        assert.equal(done.checks.shared, true, "a second init() while loading returns the same promise");
        assert.equal(done.checks.again, true, "init() after the load resolves without loading again");
      });
    }
  });
}
