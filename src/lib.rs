//! # agent-chunks
//!
//! The exact reducer for AI-agent chat streams: each event of an agent's stream is folded
//! into the ordered chunks of a message, by one set of rules, so a message built live from
//! streamed events equals the message loaded later from history.
//!
//! ```
//! use agent_chunks::{append_event, AgentEvent, Chunk};
//!
//! let mut chunks: Vec<Chunk> = Vec::new();
//! for delta in ["Hel", "lo"] {
//!     append_event(&mut chunks, AgentEvent::TextDelta { delta: delta.to_string() }).unwrap();
//! }
//! append_event(&mut chunks, AgentEvent::ReasoningDelta { delta: "hmm".into() }).unwrap();
//! assert_eq!(chunks[0], Chunk::Text { text: "Hello".into() });
//! assert_eq!(chunks.len(), 2);
//! ```
//!
//! The rules are generic over where the chunks live ([`ChunkStore`]): a `Vec<Chunk>` here,
//! the caller's JavaScript array in the Node binding (feature `node`).
//!
//! The crate root holds the model and its rules. Above them, each layer importing only
//! from those below: [`bytes`] (JSON text exactly as JavaScript holds it), [`reading`]
//! (what every format reads with), [`views`], [`formats`] (a folder per format, and
//! [`formats::FORMATS`], the one table of them), then [`live`] (streams folded as they
//! arrive) and [`history`] (histories loaded), which reach a format only through its row.

pub mod bytes;
pub mod decode;
pub mod formats;
pub mod history;
pub mod json;
pub mod live;
pub mod model;
pub mod owned;
pub mod reading;
pub mod reducer;
pub mod system;
pub mod views;

// The binding registers itself with Node at load time; unit-test builds leave it out.
#[cfg(all(feature = "node", not(test)))]
mod napi;

pub use decode::{decode_event, EventSource, InvalidEvent};
pub use model::{
    AgentEvent, ChatMessage, Chunk, EventType, LifecycleKind, MessageRole, ShellOutput, ShellStream,
    SystemChunkKind, ToolCallEntry,
};
pub use reducer::{append_event, ChunkStore, ChunkType, TextPart};
pub use system::{random_uuid, route_system_event, MessageList};
