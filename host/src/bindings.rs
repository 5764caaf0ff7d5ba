//! The component's WIT world as Rust types and calls (wasmtime's `bindgen!`), in a module of its own below
//! the library's others: they import the WIT types from here, never from the crate root that uses them.

wasmtime::component::bindgen!({
    path: "../wit",
    world: "jsonrpc-errors",
});
