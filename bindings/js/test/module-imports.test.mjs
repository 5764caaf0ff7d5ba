// Imports form a one-way stack: no module of the package's sources reaches itself again through the modules it
// imports (host/tests/module_imports.rs holds the Rust crates to the same rule, bindings/python's
// test_module_imports.py the Python package). An edge is any import of another source file, as TypeScript
// reads the file (`ts.preProcessFile`): `import`, `import type`, `export … from` and `import("…")` alike (a
// type-only import is erased from the output, but it is a dependency all the same).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "..", "src");

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "wasm" ? [] : sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Each source file (relative to src/) and the source files it imports. */
function edges() {
  const graph = new Map();
  for (const file of sources(SRC)) {
    const imported = ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles;
    const targets = new Set();
    for (const { fileName } of imported) {
      if (!fileName.startsWith(".")) continue; // a package, not one of ours
      const target = resolve(dirname(file), fileName).replace(/\.js$/, ".ts");
      if (existsSync(target)) targets.add(relative(SRC, target));
    }
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

/** One cycle, as the files along it (the first repeated at the end), or null. */
function findCycle(graph) {
  const done = new Set();
  const path = [];
  const onPath = new Set();
  function visit(node) {
    path.push(node);
    onPath.add(node);
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (onPath.has(next)) return [...path.slice(path.indexOf(next)), next];
      if (!done.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path.pop();
    onPath.delete(node);
    done.add(node);
    return null;
  }
  for (const start of [...graph.keys()].sort()) {
    if (!done.has(start)) {
      const found = visit(start);
      if (found) return found;
    }
  }
  return null;
}

test("the package's sources import one another without a cycle", () => {
  const cycle = findCycle(edges());
  assert.equal(cycle, null, `an import cycle: ${(cycle ?? []).join(" -> ")}`);
});

test("the cycle finder finds a cycle, and the edges are read", () => {
  // The finder itself, so that the test above cannot pass by finding nothing.
  const graph = (pairs) => new Map(Object.entries(pairs).map(([k, v]) => [k, new Set(v)]));
  assert.deepEqual(findCycle(graph({ a: ["b"], b: ["c"], c: ["a"] })), ["a", "b", "c", "a"]);
  assert.equal(findCycle(graph({ a: ["b"], b: [], c: ["a", "b"] })), null);
  const read = edges();
  assert.ok(read.get("mcp.ts").has(join("mcp", "transport.ts")), "export … from");
  assert.ok(read.get("api.ts").has("errors.ts"), "import");
  assert.ok(read.get("guard-schema.ts").has("taxonomy.ts"), "import type");
});
