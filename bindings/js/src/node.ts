// Node entry point (`node` export condition): reads the module from the package with `fs` and instantiates
// it synchronously, so importing the package needs no top-level await.

import { webcrypto } from "node:crypto";
import { readFileSync } from "node:fs";
import { install } from "./runtime.js";
import * as glue from "./wasm/jsonrpc_errors.js";

glue.initSync({ module: readFileSync(new URL("./wasm/jsonrpc_errors_bg.wasm", import.meta.url)) });
install({ glue, randomFill: (array) => void webcrypto.getRandomValues(array) });

export * from "./public.js";
