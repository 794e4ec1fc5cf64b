fn main() {
    if std::env::var_os("CARGO_FEATURE_NODE").is_none() {
        return;
    }
    if std::env::var("TARGET").as_deref() == Ok("wasm32-wasip1") {
        wasm::link();
    } else {
        // Link flags for the Node addon (only matters on macOS / Windows).
        napi_build::setup();
    }
}

/// The WebAssembly build of the binding (`npm run build:wasm`, see `scripts/wasm/`).
///
/// napi-build knows this target, but looks for the reactor startup object in rustc's
/// sysroot, where only rustup's `wasm32-wasip1` component puts it. Debian's rustc
/// builds the standard library from source (`-Zbuild-std`) and its `wasi-libc` package
/// has the object in `/usr/lib/wasm32-wasi`. So the link lines are written here, the
/// ones napi-build 2.6 writes for a target without threads, with that directory.
mod wasm {
    use std::env;
    use std::path::PathBuf;

    pub fn link() {
        println!("cargo:rerun-if-env-changed=EMNAPI_LINK_DIR");
        println!("cargo:rerun-if-env-changed=WASI_LIBC_DIR");
        let emnapi = env::var("EMNAPI_LINK_DIR")
            .expect("EMNAPI_LINK_DIR must name emnapi's lib/wasm32-wasip1 (scripts/wasm/build.mjs sets it)");
        let libc = PathBuf::from(env::var("WASI_LIBC_DIR").unwrap_or_else(|_| "/usr/lib/wasm32-wasi".into()));
        let reactor = libc.join("crt1-reactor.o");
        assert!(
            reactor.is_file(),
            "{} is missing: install Debian's wasi-libc (npm run setup:wasm)",
            reactor.display()
        );
        println!("cargo:rustc-link-search=native={emnapi}");
        println!("cargo:rustc-link-search=native={}", libc.display());
        // emnapi's N-API in C, for napi-rs: the `napi_*` calls it does not define stay
        // imports, which `@emnapi/core` provides in JavaScript.
        println!("cargo:rustc-link-lib=static=emnapi-basic-napi-rs");
        let args = [
            // What `@emnapi/core` calls: the allocator, the environment's life, the module.
            "--export=malloc",
            "--export=free",
            "--export=emnapi_create_env",
            "--export=emnapi_delete_env",
            "--export=napi_register_wasm_v1",
            "--export-if-defined=node_api_module_get_api_version_v1",
            "--export-table",
            // A reactor: `_initialize` runs the constructors once, then exports are called.
            &reactor.display().to_string(),
            "--export=_initialize",
            // The memory is the loader's, so it can read strings and buffers in it.
            "--import-memory",
            "--import-undefined",
            "--max-memory=4294967296",
            // lld's default stack is 1 MiB; the JSON readers recurse.
            "-zstack-size=8388608",
            "--no-check-features",
        ];
        for arg in args {
            println!("cargo:rustc-cdylib-link-arg={arg}");
        }
    }
}
