//! The raw N-API room: the drop-in's entry points as raw callbacks, and the thin, checked
//! layer over N-API that every raw entry point of the binding stands on. It exists for
//! speed (see `napi-facts.md`): few need to enter it; the rest of the binding uses
//! [`js::Js`] and [`call`] and never `napi::sys` directly.
//!
//! - `js.rs` wraps the few N-API calls the hot paths use; `mechanics.rs` runs writes,
//!   pushes and walks inside V8 (`mechanics.js`), which also holds the drop-in's compiled
//!   front: the reads the helper makes first, then one call into `entry.rs`;
//! - `call.rs` runs an entry point: state, panics, exceptions;
//! - `entry.rs` holds `appendEventToChunks` and `applySystemEvent` and installs them;
//!   `batch.rs` is `appendEventsToChunks`;
//! - `chunks.rs` and `messages.rs` adapt the caller's arrays to the core's traits.

pub mod batch;
pub mod call;
pub mod chunks;
pub mod entry;
pub mod install;
pub mod js;
pub mod mechanics;
pub mod messages;
