// Bundlers from the npm registry (pinned: Vite is the package's devDependency, esbuild and webpack are in
// test/bundlers/package.json, which bindings/js/setup.sh installs) each build a page from the packed tarball in
// a fresh project; headless Chromium (Debian's, through playwright-core) loads it from a loopback server and
// makes real calls. Every page's answers are the Node entries' answers to the same code.
//
// - the README's browser quick start, followed literally: its install line, its index.html and main.js, built
//   by Vite (zero-config `await init()`);
// - a page with the main entry and jsonrpc-errors/mcp (test/bundlers/app.js and scenario.js: an error mapped, a
//   secret redacted, a tool call through guardTransport) built by Vite and by webpack 5 (zero-config: they emit
//   the module from `new URL(..., import.meta.url)`), and by esbuild with --target=es2020 (which refuses
//   top-level await) with `init({ wasm })` naming the module on another origin, as a CDN would serve it.
//   The page must download exactly one module, the guard one, for both entries.
//
// Each test prints how long an empty project took to reach a working call (install, build, page), and what the
// page downloaded (raw and gzip level 9).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { PKG_DIR } from "./helpers.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".css": "text/css" };
const TOOLS = join(PKG_DIR, "test", "bundlers");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

let work;
let tarball;
let browser;
let site; // serves each built page under /<name>/
let cdn; // another origin, with CORS: a module served as a CDN serves it
const sites = {};
const cdnFiles = {};
let expected;

function serve(handler) {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` })));
}

function sendFile(res, file, headers = {}) {
  if (!existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end("not found");
  res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store", ...headers });
  res.end(readFileSync(file));
}

before(async () => {
  if (!existsSync(join(TOOLS, "node_modules", "webpack"))) throw new Error("test/bundlers is not installed: run bindings/js/setup.sh");
  work = mkdtempSync(join(tmpdir(), "jsonrpc-errors-bundlers-"));
  // The tarball a registry would serve (packed once; every project below starts empty and installs it).
  const [info] = JSON.parse(execFileSync(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", work], { cwd: PKG_DIR, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
  tarball = join(work, info.filename);
  site = await serve((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const [, name] = path.split("/");
    const root = sites[name];
    if (root === undefined) return void res.writeHead(404).end("not found");
    const file = normalize(join(root, path.slice(name.length + 2) || "index.html"));
    if (file !== root && !file.startsWith(root + sep)) return void res.writeHead(404).end("not found");
    sendFile(res, file);
  });
  cdn = await serve((req, res) => {
    const file = cdnFiles[new URL(req.url, "http://x").pathname];
    if (file === undefined) return void res.writeHead(404).end("not found");
    sendFile(res, file, { "access-control-allow-origin": "*" });
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  // The right answers: the same scenario on the Node entries (and the SDK's InMemoryTransport).
  const lib = {
    ...(await import(pathToFileURL(join(PKG_DIR, "dist", "node.js")).href)),
    ...(await import(pathToFileURL(join(PKG_DIR, "dist", "mcp-node.js")).href)),
    ...(await import(pathToFileURL(join(PKG_DIR, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "inMemory.js")).href)),
  };
  const { scenario } = await import(pathToFileURL(join(TOOLS, "scenario.js")).href);
  expected = await scenario(lib);
});

after(async () => {
  await browser?.close();
  for (const s of [site, cdn]) if (s) await new Promise((resolve) => s.server.close(resolve));
  if (work) rmSync(work, { recursive: true, force: true });
});

/** An empty project with the tarball installed (and the MCP SDK, linked from this package's pinned copy). */
function emptyProjectWith(name, { sdk }) {
  const project = join(work, name);
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: `page-${name}`, private: true, type: "module" }, null, 2));
  execFileSync(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], { cwd: project, stdio: ["ignore", "ignore", "inherit"] });
  if (sdk) {
    // What `npm install @modelcontextprotocol/sdk` gives, without a download: its dependencies resolve from
    // the real path, this package's node_modules.
    mkdirSync(join(project, "node_modules", "@modelcontextprotocol"), { recursive: true });
    symlinkSync(join(PKG_DIR, "node_modules", "@modelcontextprotocol", "sdk"), join(project, "node_modules", "@modelcontextprotocol", "sdk"), "dir");
  }
  return project;
}

function vite(project) {
  execFileSync(process.execPath, [join(PKG_DIR, "node_modules", "vite", "bin", "vite.js"), "build", "--logLevel", "warn", "--base", "./"], { cwd: project, stdio: ["ignore", "inherit", "inherit"] });
  return join(project, "dist");
}

async function webpack(project, entry) {
  const { default: webpackOf } = await import(pathToFileURL(join(TOOLS, "node_modules", "webpack", "lib", "index.js")).href);
  const out = join(project, "dist");
  const stats = await new Promise((resolve, reject) =>
    webpackOf({ mode: "production", context: project, entry, output: { path: out, filename: "app.js" }, performance: { hints: false } }, (e, s) => (e ? reject(e) : resolve(s))),
  );
  assert.ok(!stats.hasErrors(), stats.toString("errors-only"));
  writeFileSync(join(out, "index.html"), `<!doctype html><meta charset="utf-8"><title>webpack</title><script src="./app.js"></script>`);
  return out;
}

function esbuild(project, entry, args) {
  const out = join(project, "dist");
  execFileSync(join(TOOLS, "node_modules", ".bin", "esbuild"), [entry, "--bundle", "--format=esm", `--outfile=${join(out, "app.js")}`, "--log-level=warning", ...args], { cwd: project, stdio: ["ignore", "inherit", "inherit"] });
  writeFileSync(join(out, "index.html"), `<!doctype html><meta charset="utf-8"><title>esbuild</title><script type="module" src="./app.js"></script>`);
  return out;
}

/** Loads the page built in `dir` in Chromium; waits for `ready` (evaluated in the page); returns it and every
 *  response the page received (url, body). */
async function loadPage(name, dir, ready) {
  sites[name] = dir;
  const page = await browser.newPage();
  const errors = [];
  const bodies = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("response", (r) => {
    // Chromium asks for /favicon.ico on its own; anything else the page asks for must be there.
    if (r.status() >= 400 && new URL(r.url()).pathname !== "/favicon.ico") errors.push(`${r.status()} ${r.url()}`);
    bodies.push(r.body().then((body) => ({ url: r.url(), body }), () => ({ url: r.url(), body: Buffer.alloc(0) })));
  });
  try {
    const response = await page.goto(`${site.origin}/${name}/`);
    assert.equal(response?.status(), 200);
    await page.waitForFunction(ready, null, { timeout: 60_000 });
    const value = await page.evaluate(ready);
    return { value, errors, responses: await Promise.all(bodies) };
  } finally {
    await page.close();
  }
}

function kb(n) {
  return `${(n / 1024).toFixed(1)} KiB`;
}

/** Prints what the page downloaded; returns the .wasm responses. */
function downloads(label, responses) {
  const wasm = responses.filter((r) => r.url.endsWith(".wasm"));
  const js = responses.filter((r) => r.url.endsWith(".js"));
  const size = (list) => list.reduce((n, r) => n + r.body.length, 0);
  const gz = (list) => list.reduce((n, r) => n + gzipSync(r.body, { level: 9 }).length, 0);
  console.log(`# ${label}: the page downloaded ${wasm.length} .wasm (${kb(size(wasm))} raw, ${kb(gz(wasm))} gzip -9) and ${js.length} .js (${kb(size(js))} raw, ${kb(gz(js))} gzip -9)`);
  return wasm;
}

function timing(label, t) {
  const s = (a, b) => ((b - a) / 1000).toFixed(1);
  console.log(`# ${label}: empty project to a working call in ${s(t.start, t.done)} s (install ${s(t.start, t.installed)} s, build ${s(t.installed, t.built)} s, page ${s(t.built, t.done)} s)`);
}

/** The scenario page (main entry + jsonrpc-errors/mcp) built by `build`, loaded and checked. */
async function scenarioPage(name, build, { cdnModule = false } = {}) {
  const t = { start: Date.now() };
  const project = emptyProjectWith(name, { sdk: true });
  t.installed = Date.now();
  for (const f of ["app.js", "scenario.js"]) copyFileSync(join(TOOLS, f), join(project, f));
  writeFileSync(join(project, "index.html"), `<!doctype html><meta charset="utf-8"><title>${name}</title><script type="module" src="./app.js"></script>`);
  const guardModule = join(project, "node_modules", "jsonrpc-errors", "dist", "wasm", "jsonrpc_errors_guard_bg.wasm");
  let wasmUrl;
  if (cdnModule) {
    cdnFiles[`/${name}/jsonrpc_errors_guard_bg.wasm`] = guardModule;
    wasmUrl = `${cdn.origin}/${name}/jsonrpc_errors_guard_bg.wasm`;
  }
  const dir = await build(project, wasmUrl);
  t.built = Date.now();
  const { value, errors, responses } = await loadPage(name, dir, () => window.__done);
  t.done = Date.now();
  assert.deepEqual(errors, []);
  assert.equal(value.error, undefined, value.error);
  timing(name, t);

  // The page's answers are the Node entries' answers; nothing of the upstream's secrets reached the client.
  assert.deepEqual(value.result, expected);
  const { TOKEN } = await import(pathToFileURL(join(TOOLS, "scenario.js")).href);
  assert.ok(!JSON.stringify(value.result).includes(TOKEN));
  assert.equal(value.result.toolAnswer.result?.isError, true, JSON.stringify(value.result.toolAnswer));
  // One module for both entries: the guard module, byte for byte, and from the CDN when init named it.
  const wasm = downloads(name, responses);
  assert.equal(wasm.length, 1, `modules fetched: ${wasm.map((r) => r.url)}`);
  assert.ok(wasm[0].body.equals(readFileSync(guardModule)), `${wasm[0].url} is not the guard module`);
  if (cdnModule) assert.equal(wasm[0].url, wasmUrl);
  else assert.ok(wasm[0].url.startsWith(`${site.origin}/${name}/`), wasm[0].url);
}

test("vite 7, zero-config: the main entry and jsonrpc-errors/mcp in one page download one module, and work", async () => {
  await scenarioPage("vite", (project) => vite(project));
});

test("webpack 5, zero-config: the module is emitted from new URL(..., import.meta.url) and the page works", async () => {
  await scenarioPage("webpack", (project) => webpack(project, "./app.js"));
});

test("esbuild --target=es2020 (no top-level await), init({ wasm }) naming the module on another origin", async () => {
  await scenarioPage("esbuild", (project, wasmUrl) => esbuild(project, "./app.js", ["--target=es2020", `--define:WASM_URL=${JSON.stringify(wasmUrl)}`]), { cdnModule: true });
});

// ------------------------------------------------------------------------ the README, followed literally

/** The fenced code blocks of bindings/js/README.md's "In a browser" section: the first line names each file. */
function readmeQuickStart() {
  const readme = readFileSync(join(PKG_DIR, "README.md"), "utf8");
  const start = readme.indexOf("\n## In a browser");
  assert.ok(start >= 0, "README.md has no '## In a browser' section");
  const section = readme.slice(start + 1, readme.indexOf("\n## ", start + 1));
  const blocks = [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map(([, lang, body]) => ({ lang, body }));
  const file = (first) => {
    const block = blocks.find((b) => b.body.startsWith(first));
    assert.ok(block, `no block starting with ${first} in the README's browser section`);
    return block.body;
  };
  const install = blocks.find((b) => b.lang === "sh" && /^npm install /m.test(b.body));
  assert.ok(install, "no `npm install` line in the README's browser section");
  const packages = install.body.match(/^npm install ([^\n#]*)/m)[1].trim().split(/\s+/);
  return { html: file("<!-- index.html -->"), main: file("// main.js"), packages };
}

test("the README's browser quick start, followed from an empty project, gives a working call (Vite, Chromium)", async () => {
  const { html, main, packages } = readmeQuickStart();
  assert.deepEqual(packages.sort(), ["jsonrpc-errors", "vite"], "the quick start installs the package and Vite (this test's pinned Vite stands in)");
  const t = { start: Date.now() };
  const project = emptyProjectWith("readme", { sdk: false });
  t.installed = Date.now();
  writeFileSync(join(project, "index.html"), html);
  writeFileSync(join(project, "main.js"), main);
  const dir = vite(project);
  t.built = Date.now();
  const { value, errors, responses } = await loadPage("readme", dir, () => document.querySelector("#out")?.textContent || undefined);
  t.done = Date.now();
  assert.deepEqual(errors, []);
  timing("the README's quick start (Vite)", t);
  downloads("the README's quick start (Vite)", responses);
  // The same main.js run by Node on the package's Node entry (installed in the same project) writes the same text.
  const out = { textContent: "" };
  globalThis.document = { querySelector: () => out };
  try {
    cpSync(join(project, "main.js"), join(project, "main.node.mjs"));
    await import(pathToFileURL(join(project, "main.node.mjs")).href);
  } finally {
    delete globalThis.document;
  }
  assert.ok(out.textContent.length > 0);
  assert.equal(value, out.textContent);
});
