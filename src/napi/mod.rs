//! The Node binding: JavaScript values in and out, over the rules of the core.
//!
//! - `types.rs` declares the JavaScript shapes and signatures (the source of `index.d.ts`);
//! - `entry.rs` holds the raw entry points and installs them;
//! - `chunks.rs` and `messages.rs` adapt the caller's arrays to the core's traits;
//! - `js.rs` wraps the few N-API calls all of them use; `mechanics.rs` runs the writes,
//!   pushes and walks inside V8 (`mechanics.js`), which also holds the drop-in's
//!   compiled front: the reads the helper makes first, then one call into `entry.rs`;
//! - `adapters.rs` holds the format adapters' entry points, reading the caller's values
//!   through `source.rs` and building results in `render.rs`; `webui_types.rs` declares
//!   their shapes; `readers.rs` puts a compiled front (`readers.js`) before
//!   `adaptACPMessages` and `adaptJSONLMessages`, which reads their input into a snapshot
//!   (`snapshot.rs`) the same rules run over, and builds the rows in V8;
//! - `formats.rs` and `timeline.rs` bind the wire formats and the timeline view
//!   (`format_types.rs` declares their shapes, `json_bridge.rs` moves data as JSON text);
//! - `stream.rs` is the bytes path: `ChunkStream`, `reduceEvents`;
//! - `conversation.rs` folds a stream format's conversation live: `Conversation`;
//! - `history.rs` loads whole histories: `loadHistory` (off the main thread), `loadHistorySync`;
//! - `registry.rs` binds the table of formats: `formats`, `detectFormat`, `readHistory`,
//!   `foldStream`;
//! - `testing.rs` holds `__panicForTest` and the other test-only exports (see its documentation).

mod bytes;
mod conversation;
mod formats;
// The WebAssembly build reads histories on the calling thread: the reading thread and
// its plumbing are unused there.
#[cfg_attr(target_family = "wasm", allow(dead_code, unused_imports))]
mod history;
mod json_bridge;
mod raw;
mod registry;
mod stream;
mod testing;
mod transcripts;
mod types;
mod views;

use napi::bindgen_prelude::{Env, Object, Result};
use napi::JsValue;
use napi_derive::napi;

/// Installs the raw entry points over the generated wrappers, once per environment
/// (the main thread, each worker, each Electron context). Loading runs outside every
/// other wrapper, so a panic here is caught here: it must not unwind into Node.
#[napi(module_exports)]
pub fn install(exports: Object, env: Env) -> Result<()> {
    // `AGENT_CHUNKS_BINDING=wasm` chooses the WebAssembly build: the native addon refuses
    // to load, and the generated `index.js` goes on to its WebAssembly candidate.
    #[cfg(not(target_family = "wasm"))]
    if std::env::var_os("AGENT_CHUNKS_BINDING").is_some_and(|choice| choice == "wasm") {
        return Err(napi::Error::from_reason(
            "agent-chunks: AGENT_CHUNKS_BINDING=wasm, so the native addon is not loaded",
        ));
    }
    raw::call::install_panic_hook();
    let installed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
        install_raw(env.raw(), exports.raw())
    }));
    match installed {
        Ok(result) => {
            result.map_err(|e| napi::Error::from_reason(format!("agent-chunks failed to load: {e:?}")))
        }
        Err(_) => Err(napi::Error::from_reason("agent-chunks failed to load: a panic")),
    }
}

/// Installs every raw entry point on `exports`, replacing the generated wrappers: the
/// drop-in's (which makes the environment's state), then the classes and the adapters'
/// fronts.
///
/// # Safety
/// `env` and `exports` must be the module's environment and exports object.
unsafe fn install_raw(env: napi::sys::napi_env, exports: napi::sys::napi_value) -> raw::js::JsResult<()> {
    let state = unsafe { raw::install::install(env, exports)? };
    unsafe { stream::install_class(env, exports, state)? };
    unsafe { views::readers::install(env, &*state, exports)? };
    let served = formats::conversation_methods();
    unsafe { conversation::install_class(env, exports, state, &served) }
}
