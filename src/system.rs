//! Routing a system notice to the right message when no assistant turn is in flight.
//!
//! If the newest message is a `system` message, the notice becomes one more `system`
//! chunk in it (chunks never coalesce); otherwise a new `system` message holding just that
//! chunk is pushed. Either way the id of the message used is returned.

use crate::model::{ChatMessage, Chunk, MessageRole, SystemChunkKind};

/// The mechanics of a message list, as [`route_system_event`] needs them.
pub trait MessageList {
    /// The `system` chunk to record (built by the caller from a kind and a text).
    type Chunk;
    type Id;
    type Error;

    /// Whether there is a newest message and its role is `system`.
    fn last_is_system(&self) -> Result<bool, Self::Error>;
    /// Pushes the chunk into the newest message's chunks and returns that message's id.
    fn push_to_last(&mut self, chunk: Self::Chunk) -> Result<Self::Id, Self::Error>;
    /// Pushes a new `system` message `{ id, role: "system", chunks: [chunk] }`.
    fn push_system_message(&mut self, id: &Self::Id, chunk: Self::Chunk) -> Result<(), Self::Error>;
}

/// Applies one system notice. `new_id` is called once, and only when a message is created.
pub fn route_system_event<L: MessageList>(
    messages: &mut L,
    chunk: L::Chunk,
    new_id: impl FnOnce() -> Result<L::Id, L::Error>,
) -> Result<L::Id, L::Error> {
    if messages.last_is_system()? {
        return messages.push_to_last(chunk);
    }
    let id = new_id()?;
    messages.push_system_message(&id, chunk)?;
    Ok(id)
}

impl<S, V> MessageList for Vec<ChatMessage<S, V>> {
    type Chunk = (SystemChunkKind, S);
    type Id = String;
    type Error = std::convert::Infallible;

    fn last_is_system(&self) -> Result<bool, Self::Error> {
        Ok(self.last().is_some_and(|m| m.role == MessageRole::System))
    }

    fn push_to_last(&mut self, (kind, text): Self::Chunk) -> Result<String, Self::Error> {
        match self.last_mut() {
            Some(last) => {
                last.chunks.push(Chunk::System { kind, text });
                Ok(last.id.clone())
            }
            None => unreachable!("route_system_event checks last_is_system first"),
        }
    }

    fn push_system_message(&mut self, id: &String, (kind, text): Self::Chunk) -> Result<(), Self::Error> {
        self.push(ChatMessage {
            id: id.clone(),
            role: MessageRole::System,
            chunks: vec![Chunk::System { kind, text }],
        });
        Ok(())
    }
}

/// A random (version 4) UUID in its lowercase hyphenated form, as `crypto.randomUUID()`
/// makes it.
pub fn random_uuid() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        hex(&bytes[0..4]),
        hex(&bytes[4..6]),
        hex(&bytes[6..8]),
        hex(&bytes[8..10]),
        hex(&bytes[10..16])
    ))
}
