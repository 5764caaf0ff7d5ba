//! How the component is built: the one way, shared by the host's build script (`host/build.rs`, which builds it
//! whenever the host is compiled, in this workspace or as another project's dependency) and by
//! `cargo xtask component` (which also precompiles it for this machine). Both run the same cargo command in
//! the same target directory, so the second build of a checkout is a no-op and both encode the same bytes.
//!
//! The guest (`guest/`) is built for `wasm32-unknown-unknown` with the workspace's `component` profile and
//! feature, then made a component by wit-component from the component-type section wit-bindgen embedded.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Rust target the guest is built for.
pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// The cargo profile of the component build (the workspace's Cargo.toml: speed over size).
pub const PROFILE: &str = "component";

/// The component's own compiler flags. SIMD128 lets `memchr` (string and line scanning in the guard and the
/// redaction engine) use 16-byte vector instructions, which wasmtime compiles to the host's SSE/AVX or NEON:
/// every wasmtime and browser engine supports it.
const RUSTFLAGS: &str = "-Ctarget-feature=+simd128";

/// `--remap-path-prefix` flags that cut the build machine's paths out of a wasm module. Panic locations name
/// the file of the crate they come from: unmapped, the cargo home of whoever built it
/// (`/root/.cargo/registry/src/index.crates.io-…/serde_json-1.0.154/src/raw.rs`) and rustc's source path
/// (`/rustc/<commit>/library/…`) ship in the module: ~70 paths, 6.5 KB raw, different on every machine.
/// Mapped, they read `serde_json-1.0.154/src/raw.rs` and `library/core/…`. Used by the component's build and
/// the npm modules' (`cargo xtask js`). `rustc`: the compiler of the build (its commit names its sources).
pub fn path_remaps(rustc: &Path) -> Vec<String> {
    let mut flags = Vec::new();
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    if let Some(registry) = home.map(|h| h.join("registry/src")) {
        // One directory per registry index (`index.crates.io-<hash>`); the crates' own directories stay.
        let mut indexes: Vec<PathBuf> = std::fs::read_dir(&registry)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        // In a fixed order: the flags are part of the build's fingerprint.
        indexes.sort();
        for index in indexes {
            flags.push(format!("--remap-path-prefix={}/=", index.display()));
        }
    }
    let version = Command::new(rustc)
        .arg("-vV")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if let Some(commit) = version
        .lines()
        .find_map(|l| l.strip_prefix("commit-hash: "))
    {
        flags.push(format!("--remap-path-prefix=/rustc/{commit}/="));
    }
    flags
}

/// Variables a calling cargo sets for build scripts (or a user sets for the host's build) that must not reach
/// the guest's build: its flags and target are the component's own, whoever asks for it. So is its compiler:
/// under `cargo clippy` the workspace wrapper is clippy-driver, which would lint the component's build (and
/// fail it under `-D warnings`) and fingerprint it apart from the one `cargo build` and `cargo test` make, so
/// that each switch between them rebuilt it.
const INHERITED: &[&str] = &[
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTFLAGS",
    "CARGO_BUILD_RUSTFLAGS",
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
    "CLIPPY_ARGS",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET",
    "CARGO_BUILD_TARGET_DIR",
    "CARGO_BUILD_BUILD_DIR",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_MANIFEST_PATH",
];

/// The core module and the component it became.
#[allow(dead_code)] // each user reads its part
pub struct Built {
    /// `<target>/wasm32-unknown-unknown/component/jsonrpc_errors_guest.wasm`
    pub core: PathBuf,
    pub component: Vec<u8>,
    /// The sources the core module was built from (cargo's dep-info, outside the target directory): what a
    /// build script watches so that the component is rebuilt when the guest changes.
    pub sources: Vec<PathBuf>,
}

/// Fails with the command that installs the wasm target when `rustc`'s sysroot lacks it.
pub fn check_target(rustc: &Path) -> Result<(), String> {
    let out = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| format!("cannot run {} --print sysroot: {e}", rustc.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} --print sysroot failed: {}",
            rustc.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if sysroot
        .join("lib/rustlib")
        .join(WASM_TARGET)
        .join("lib")
        .is_dir()
    {
        return Ok(());
    }
    // A rustup toolchain lives in .../toolchains/<name>: name it, so the command installs the target for the
    // toolchain this build uses (a rust-toolchain file or `+toolchain` may differ from the default).
    let toolchain = match (
        sysroot.parent().and_then(Path::file_name),
        sysroot.file_name(),
    ) {
        (Some(dir), Some(name)) if dir == "toolchains" => {
            format!(" --toolchain {}", name.to_string_lossy())
        }
        _ => String::new(),
    };
    Err(format!(
        "the Rust target {WASM_TARGET} is not installed (looked in {sysroot}/lib/rustlib). jsonrpc-errors builds its \
         WebAssembly component from the guest's sources for it. Install it with\n\n    \
         rustup target add {WASM_TARGET}{toolchain}\n\n(without rustup: add the {WASM_TARGET} standard library to \
         this compiler's sysroot), or point JSONRPC_ERRORS_COMPONENT at a built jsonrpc-errors.wasm.",
        sysroot = sysroot.display()
    ))
}

/// Builds the guest in `target_dir` with `cargo` and `rustc` (a build script's `CARGO` and `RUSTC`) and
/// encodes the component. `root`: the repository (the workspace holding `guest/`).
pub fn build(cargo: &Path, rustc: &Path, root: &Path, target_dir: &Path) -> Result<Built, String> {
    check_target(rustc)?;
    let manifest = root.join("guest").join("Cargo.toml");
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args([
            "build",
            "--lib",
            "--target",
            WASM_TARGET,
            "--profile",
            PROFILE,
            "--features",
            "component",
        ])
        .arg("--manifest-path")
        .arg(&manifest)
        .arg("--target-dir")
        .arg(target_dir)
        .env("RUSTC", rustc);
    for var in INHERITED {
        cmd.env_remove(var);
    }
    let mut flags = vec![RUSTFLAGS.to_string()];
    flags.extend(path_remaps(rustc));
    cmd.env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"));
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", cargo.display()))?;
    if !status.success() {
        return Err(format!(
            "building the guest for {WASM_TARGET} failed ({status}): {cmd:?}"
        ));
    }
    let out = target_dir.join(WASM_TARGET).join(PROFILE);
    let core = out.join("jsonrpc_errors_guest.wasm");
    let module = std::fs::read(&core).map_err(|e| format!("reading {}: {e}", core.display()))?;
    let component = wit_component::ComponentEncoder::default()
        .module(&module)
        .map_err(|e| format!("{}: no component-type section: {e:?}", core.display()))?
        .validate(true)
        .encode()
        .map_err(|e| format!("encoding the component from {}: {e:?}", core.display()))?;
    let depinfo = out.join("jsonrpc_errors_guest.d");
    let text = std::fs::read_to_string(&depinfo)
        .map_err(|e| format!("reading {}: {e}", depinfo.display()))?;
    let target_dir = target_dir
        .canonicalize()
        .unwrap_or_else(|_| target_dir.to_path_buf());
    Ok(Built {
        core,
        component,
        sources: sources(&text, &target_dir),
    })
}

/// The files a dep-info file lists as the artifact's inputs, but those inside the target directory (generated
/// by the guest's own build script, which cargo reruns by itself) and the duplicates.
fn sources(depinfo: &str, target_dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for line in depinfo.lines() {
        let Some((_, deps)) = line.split_once(": ") else {
            continue;
        };
        // Paths are space separated, a space inside one escaped as `\ `.
        let mut current = String::new();
        let mut chars = deps.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&' ') => current.push(chars.next().unwrap()),
                ' ' => files.push(std::mem::take(&mut current)),
                c => current.push(c),
            }
        }
        files.push(current);
    }
    let mut paths: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| !f.is_empty())
        .map(PathBuf::from)
        .filter(|p| !p.starts_with(target_dir))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}
