// Real browser: Debian's Chromium driven by playwright-core. A tiny HTTP server on 127.0.0.1 (random port)
// serves (1) a page that imports the package's browser entry as plain ESM (an import map, no bundler) and
// runs every vector in the page, and (2) a page built by Vite 7 from an empty project with the packed
// tarball installed.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium } from "playwright-core";
import { PKG_DIR, VECTORS_DIR } from "./helpers.mjs";
import { installIntoTempProject } from "./pack-helpers.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json", ".wasm": "application/wasm", ".css": "text/css" };

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>jsonrpc-errors vectors</title>
<script type="importmap">{"imports": {"jsonrpc-errors": "/pkg/dist/browser.js", "jsonrpc-errors/guard": "/pkg/dist/guard-browser.js", "jsonrpc-errors/redact": "/pkg/dist/redact-browser.js"}}</script>
<script type="module">
  import * as pkg from "jsonrpc-errors";
  import * as guardPkg from "jsonrpc-errors/guard";
  import * as redactPkg from "jsonrpc-errors/redact";
  import { runAll, parseVectors } from "/pkg/test/vectors-lib.js";
  import { packageAdapter } from "/pkg/test/package-adapter.js";
  try {
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
    window.__done = { results, redactionResults, trap, after };
  } catch (e) {
    window.__done = { error: String(e && e.stack || e) };
  }
</script>`;

let server;
let base;
let browser;
const roots = { "/pkg/": PKG_DIR };
const cleanup = [];

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
  cleanup.forEach((d) => rmSync(d, { recursive: true, force: true }));
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

describe("chromium: the package's browser entry, unbundled", () => {
  let done;
  before(async () => {
    const r = await runPage(`${base}/`);
    assert.deepEqual(r.errors, []);
    assert.equal(r.done.error, undefined, r.done.error);
    done = r.done;
  });

  test("every vector passes in the page", () => {
    const failed = done.results.filter((r) => !r.pass);
    const files = new Set(done.results.map((r) => r.file));
    console.log(`# chromium: ${done.results.length - failed.length} of ${done.results.length} vector cases passed (${files.size} files)`);
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
});

test("vite 7 builds a page that imports the installed tarball, and the page works in chromium", async () => {
  const main = `import { mapError, redact, lookupKind } from "jsonrpc-errors";
const r = mapError({ kind: "rate-limited", retry_after_secs: 3, id: "a" });
window.__done = { code: r.error.code, id: r.id, redacted: redact("password=hunter2hunter2"), kind: lookupKind(-32601) };
`;
  const html = `<!doctype html><meta charset="utf-8"><title>vite</title><script type="module" src="./main.js"></script>`;
  const { dir, project } = installIntoTempProject({ "main.js": main, "index.html": html });
  cleanup.push(dir);
  const vite = join(PKG_DIR, "node_modules", "vite", "bin", "vite.js");
  execFileSync(process.execPath, [vite, "build", "--logLevel", "warn", "--base", "./"], { cwd: project, stdio: ["ignore", "inherit", "inherit"] });
  const assets = readdirSync(join(project, "dist", "assets"));
  assert.ok(assets.some((f) => f.endsWith(".wasm")), `no .wasm among the built assets: ${assets}`);
  roots["/vite/"] = join(project, "dist");
  const r = await runPage(`${base}/vite/index.html`);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.done, { code: -32009, id: "a", redacted: "password=[REDACTED:secret-assignment]", kind: "method-not-found" });
});
