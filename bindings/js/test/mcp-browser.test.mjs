// jsonrpc-errors/mcp in a real browser: Debian's Chromium (playwright-core, headless) runs a page that Vite 7
// builds from test/mcp-fixture (the package's browser entry, the official SDK's Client, McpServer and
// InMemoryTransport): a client and a server through the adapter, failing tools answered cleanly.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize, sep } from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { PKG_DIR } from "./helpers.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css" };

let built;
let server;
let browser;

before(async () => {
  built = mkdtempSync(join(tmpdir(), "jsonrpc-errors-mcp-page-"));
  const vite = join(PKG_DIR, "node_modules", "vite", "bin", "vite.js");
  execFileSync(process.execPath, [vite, "build", join(PKG_DIR, "test", "mcp-fixture"), "--outDir", built, "--emptyOutDir", "--base", "./", "--logLevel", "error"], {
    cwd: PKG_DIR,
    stdio: ["ignore", "inherit", "inherit"],
  });
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const file = normalize(join(built, path === "/" ? "index.html" : path));
    if (!file.startsWith(built + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
    res.end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  if (built) rmSync(built, { recursive: true, force: true });
});

test("chromium: an SDK client and server through the adapter; failures answered cleanly, the guard module fetched as an asset", async () => {
  const assets = readdirSync(join(built, "assets"));
  assert.ok(assets.some((f) => f.startsWith("jsonrpc_errors_guard_bg") && f.endsWith(".wasm")), `no guard .wasm among ${assets}`);
  const page = await browser.newPage();
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  try {
    const response = await page.goto(`http://127.0.0.1:${server.address().port}/`);
    assert.equal(response?.status(), 200);
    await page.waitForFunction(() => window.__done !== undefined, null, { timeout: 30_000 });
    const done = await page.evaluate(() => window.__done);
    assert.deepEqual(pageErrors, []);
    assert.equal(done.error, undefined, done.error);
    assert.equal(done.echo, "hello from the page");
    assert.deepEqual(done.failing, { isError: true, redacted: true });
    // guardTool: McpServer's own isError result for the failure, its text scrubbed by the guard; onError got
    // the failure redacted for the operator (the token gone, the path kept).
    assert.deepEqual(done.guarded, { content: [{ type: "text", text: "lookup with [REDACTED:github-token] in /home/[REDACTED:home-user]/app/db.js failed" }], isError: true });
    assert.deepEqual(done.toolErrors, ["guarded_query: true"]);
    assert.deepEqual(done.charges, { code: -32019, message: "MCP error -32019: Upstream error", type: "upstream-error" });
    assert.deepEqual(done.crash, { code: -32000, message: "MCP error -32000: Upstream connection failed", type: "upstream-connection-failed" });
    assert.deepEqual(done.leaked, []);
    assert.deepEqual(done.events, ["redacted", "sanitized", "upstream-ended", "answered"]);
  } finally {
    await page.close();
  }
});
