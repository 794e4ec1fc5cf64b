//! Test-only: `__panicForTest(via)` panics inside the addon, so that the tests can show a
//! panic reaching JavaScript as an `Error`, with the process going on working. It is not
//! part of the API: left out of the typings, documented as test-only in `README.md`, and
//! harmless (it throws). `via` picks the boundary the panic crosses:
//!
//! - `"entry"`: the wrapper every raw entry point, the `ChunkStream` class and the
//!   adapters run their body in (`entry::run`);
//! - `"payload"`: the same, with a panic payload that is not a message;
//! - `"napi"`: a `#[napi(catch_unwind)]` function, as the format readers are.

use napi::bindgen_prelude::{Env, Result, Status};
use napi_derive::napi;

use super::entry;

#[napi(js_name = "__panicForTest", catch_unwind, skip_typescript)]
pub fn panic_for_test(env: &Env, via: String) -> Result<()> {
    match via.as_str() {
        "napi" => panic!("a test panic in a #[napi(catch_unwind)] function"),
        "entry" | "payload" => {
            let outcome = unsafe {
                entry::with_state(env.raw(), "__panicForTest", |_| {
                    if via == "payload" {
                        std::panic::panic_any(7_u8);
                    }
                    panic!("a test panic in the entry wrapper")
                })
            };
            outcome
                .map(|_| ())
                .ok_or_else(|| napi::Error::new(Status::PendingException, "exception pending"))
        }
        other => Err(napi::Error::new(
            Status::InvalidArg,
            format!("__panicForTest: unknown boundary {other:?}"),
        )),
    }
}
