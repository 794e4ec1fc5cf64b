//! The open/close rules: how one [`AgentEvent`] changes a message's chunk list.
//!
//! The rules are written once, against [`ChunkStore`], the mechanics of "a list of
//! chunks". [`Vec<Chunk>`] implements it for Rust-owned data; the Node binding implements
//! it over the caller's JavaScript array, mutating it in place.
//!
//! | event | effect |
//! | --- | --- |
//! | `text-delta` | extends the last chunk if it is `text`, else opens a `text` chunk |
//! | `reasoning-delta` | extends the last chunk if it is an unsealed `thinking`, else opens one |
//! | `reasoning-end` | seals the newest `thinking` chunk with the metadata, unless it is sealed already |
//! | `tool-call` | joins the last chunk if it is a `tool-batch`, else opens one |
//! | `tool-result` | lands on the first call with that id in the newest batch that has one |
//! | `shell-output` | rebuilds the `shellOutput` of the newest batch's last call |
//! | `error`, `notice`, `model-changed`, `config-reload` | always a new chunk |
//! | lifecycle and unknown events | nothing |

use crate::model::{AgentEvent, Chunk, ShellStream, SystemChunkKind, ToolCallEntry};

/// The chunk types a rule extends or searches for. Every other chunk (and, in a caller's
/// array, a hole or a non-object) is passed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkType {
    Text,
    Thinking,
    ToolBatch,
}

/// A piece of a text the rules compose (`Switched to ${modelId} (${keyId})`).
#[derive(Debug, Clone, Copy)]
pub enum TextPart<'a, S> {
    Literal(&'static str),
    Given(&'a S),
}

/// The mechanics of a chunk list. Indexes are positions in the list; `call` indexes are
/// positions in a `tool-batch` chunk's `calls`.
///
/// Queries come before mutations in every rule, so a store that fails a query (a caller's
/// malformed chunk) leaves the list exactly as it was.
// `len` is a count of chunks, not a collection API: an `is_empty` would add nothing.
#[allow(clippy::len_without_is_empty)]
pub trait ChunkStore {
    type Text;
    type Value;
    type Error;

    fn len(&self) -> Result<usize, Self::Error>;
    /// Whether the chunk at `index` is of type `ty`.
    fn is(&self, index: usize, ty: ChunkType) -> Result<bool, Self::Error>;
    /// Whether the `thinking` chunk at `index` carries metadata, which seals it.
    fn is_sealed(&self, index: usize) -> Result<bool, Self::Error>;
    /// Appends `delta` to the `text` of the `text` or `thinking` chunk at `index`.
    fn extend_text(&mut self, index: usize, delta: Self::Text) -> Result<(), Self::Error>;
    fn push_chunk(&mut self, chunk: Chunk<Self::Text, Self::Value>) -> Result<(), Self::Error>;
    fn compose_text(&mut self, parts: &[TextPart<'_, Self::Text>]) -> Result<Self::Text, Self::Error>;
    fn seal_thinking(&mut self, index: usize, metadata: Self::Value) -> Result<(), Self::Error>;
    fn push_call(
        &mut self,
        index: usize,
        call: ToolCallEntry<Self::Text, Self::Value>,
    ) -> Result<(), Self::Error>;
    /// The first call in the batch at `index` whose id equals `id`.
    fn find_call(&self, index: usize, id: &Self::Text) -> Result<Option<usize>, Self::Error>;
    fn set_result(
        &mut self,
        index: usize,
        call: usize,
        result: Self::Value,
        is_error: Self::Value,
    ) -> Result<(), Self::Error>;
    /// The batch's last call, or `None` when it has none (or, in a caller's array, a hole).
    fn last_call(&self, index: usize) -> Result<Option<usize>, Self::Error>;
    /// Replaces the call's `shellOutput` with a new one: the previous streams (empty when
    /// there was none) with `data` appended to the one `stream` names.
    fn append_shell_output(
        &mut self,
        index: usize,
        call: usize,
        stream: ShellStream,
        data: Self::Text,
    ) -> Result<(), Self::Error>;

    /// The newest chunk of type `ty`. The default walks back through the list; a store
    /// that keeps an index answers at once.
    fn newest(&self, ty: ChunkType) -> Result<Option<usize>, Self::Error> {
        for index in (0..self.len()?).rev() {
            if self.is(index, ty)? {
                return Ok(Some(index));
            }
        }
        Ok(None)
    }

    /// The newest `tool-batch` holding a call whose id equals `id`, and the first such
    /// call in it. The default walks back through the list and searches each batch.
    fn newest_call(&self, id: &Self::Text) -> Result<Option<(usize, usize)>, Self::Error> {
        for index in (0..self.len()?).rev() {
            if !self.is(index, ChunkType::ToolBatch)? {
                continue;
            }
            if let Some(call) = self.find_call(index, id)? {
                return Ok(Some((index, call)));
            }
        }
        Ok(None)
    }
}

/// Where an event lands, found by [`locate`] before anything is changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A new chunk at the end of the list.
    Push,
    /// The chunk at this index: text appended, a call joined, a thinking block sealed.
    Chunk(usize),
    /// A call (second index) of the `tool-batch` chunk at the first index.
    Call(usize, usize),
    /// Nowhere: the event changes nothing.
    Nowhere,
}

/// What [`locate`] needs to know of an event: its kind, and the id a result looks for.
#[derive(Debug, Clone, Copy)]
pub enum Lookup<'a, T> {
    /// Extends the last chunk of this type, or pushes one.
    Last(ChunkType),
    /// Seals the newest `thinking` chunk (`reasoning-end` with metadata).
    NewestThinking,
    /// The first call with this id in the newest batch that has one (`tool-result`).
    CallWithId(&'a T),
    /// The last call of the newest batch (`shell-output`).
    LastCallOfNewestBatch,
    /// Always a new chunk.
    Push,
    /// Changes nothing (`reasoning-end` without metadata, lifecycle and unknown events).
    Nothing,
}

impl<T, V> AgentEvent<T, V> {
    /// What [`locate`] needs of this event.
    pub fn lookup(&self) -> Lookup<'_, T> {
        match self {
            AgentEvent::TextDelta { .. } => Lookup::Last(ChunkType::Text),
            AgentEvent::ReasoningDelta { .. } => Lookup::Last(ChunkType::Thinking),
            AgentEvent::ReasoningEnd { metadata: Some(_) } => Lookup::NewestThinking,
            AgentEvent::ToolCall { .. } => Lookup::Last(ChunkType::ToolBatch),
            AgentEvent::ToolResult { tool_call_id, .. } => Lookup::CallWithId(tool_call_id),
            AgentEvent::ShellOutput { .. } => Lookup::LastCallOfNewestBatch,
            AgentEvent::Error { .. }
            | AgentEvent::Notice { .. }
            | AgentEvent::ModelChanged { .. }
            | AgentEvent::ConfigReload => Lookup::Push,
            AgentEvent::ReasoningEnd { metadata: None } | AgentEvent::Lifecycle(_) | AgentEvent::Unknown => {
                Lookup::Nothing
            }
        }
    }
}

/// Folds one event into `chunks`. The only entry point of the rules: [`locate`], then
/// [`apply`].
pub fn append_event<C: ChunkStore>(
    chunks: &mut C,
    event: AgentEvent<C::Text, C::Value>,
) -> Result<(), C::Error> {
    let target = locate(chunks, event.lookup())?;
    apply(chunks, target, event)
}

/// Where an event of this kind lands. Only reads the list, so a caller that must read the
/// event's payload after the list (as the original helper does) can call this first.
pub fn locate<C: ChunkStore>(chunks: &C, lookup: Lookup<'_, C::Text>) -> Result<Target, C::Error> {
    Ok(match lookup {
        Lookup::Last(ty) => match last_of_type(chunks, ty)? {
            // A sealed block is finished: a new delta starts the next block.
            Some(last) if ty == ChunkType::Thinking && chunks.is_sealed(last)? => Target::Push,
            Some(last) => Target::Chunk(last),
            None => Target::Push,
        },
        // Metadata for a block that is already sealed, or with no thinking chunk at all,
        // has no home and is dropped.
        Lookup::NewestThinking => match chunks.newest(ChunkType::Thinking)? {
            Some(index) if !chunks.is_sealed(index)? => Target::Chunk(index),
            _ => Target::Nowhere,
        },
        // Results can arrive after later text, so search every batch, newest first.
        Lookup::CallWithId(id) => match chunks.newest_call(id)? {
            Some((index, call)) => Target::Call(index, call),
            None => Target::Nowhere,
        },
        // Only the newest batch counts, even with text streamed after it.
        Lookup::LastCallOfNewestBatch => match chunks.newest(ChunkType::ToolBatch)? {
            Some(index) => match chunks.last_call(index)? {
                Some(call) => Target::Call(index, call),
                None => Target::Nowhere,
            },
            None => Target::Nowhere,
        },
        Lookup::Push => Target::Push,
        Lookup::Nothing => Target::Nowhere,
    })
}

/// Changes `chunks` for `event` at `target`, which [`locate`] found for this event's
/// [`AgentEvent::lookup`]. A target of another event's kind changes nothing.
pub fn apply<C: ChunkStore>(
    chunks: &mut C,
    target: Target,
    event: AgentEvent<C::Text, C::Value>,
) -> Result<(), C::Error> {
    match (event, target) {
        (AgentEvent::TextDelta { delta } | AgentEvent::ReasoningDelta { delta }, Target::Chunk(index)) => {
            chunks.extend_text(index, delta)
        }
        (AgentEvent::TextDelta { delta }, Target::Push) => chunks.push_chunk(Chunk::Text { text: delta }),
        (AgentEvent::ReasoningDelta { delta }, Target::Push) => chunks.push_chunk(Chunk::Thinking {
            text: delta,
            metadata: None,
        }),
        (
            AgentEvent::ReasoningEnd {
                metadata: Some(metadata),
            },
            Target::Chunk(index),
        ) => chunks.seal_thinking(index, metadata),
        (AgentEvent::ToolCall { id, name, arguments }, target) => {
            let call = ToolCallEntry::new(id, name, arguments);
            match target {
                Target::Chunk(index) => chunks.push_call(index, call),
                _ => chunks.push_chunk(Chunk::ToolBatch { calls: vec![call] }),
            }
        }
        (AgentEvent::ToolResult { result, is_error, .. }, Target::Call(index, call)) => {
            chunks.set_result(index, call, result, is_error)
        }
        (AgentEvent::ShellOutput { stream, data }, Target::Call(index, call)) => {
            chunks.append_shell_output(index, call, stream, data)
        }
        (AgentEvent::Error { error, status_code }, _) => chunks.push_chunk(Chunk::Error {
            message: error,
            status_code,
        }),
        (AgentEvent::Notice { message }, _) => chunks.push_chunk(Chunk::System {
            kind: SystemChunkKind::Notice,
            text: message,
        }),
        (AgentEvent::ModelChanged { model_id, key_id }, _) => {
            let text = chunks.compose_text(&[
                TextPart::Literal("Switched to "),
                TextPart::Given(&model_id),
                TextPart::Literal(" ("),
                TextPart::Given(&key_id),
                TextPart::Literal(")"),
            ])?;
            chunks.push_chunk(Chunk::System {
                kind: SystemChunkKind::ModelChanged,
                text,
            })
        }
        (AgentEvent::ConfigReload, _) => {
            let text = chunks.compose_text(&[TextPart::Literal("Configuration reloaded")])?;
            chunks.push_chunk(Chunk::System {
                kind: SystemChunkKind::ConfigReload,
                text,
            })
        }
        _ => Ok(()),
    }
}

/// The index of the last chunk when it is of type `ty`.
fn last_of_type<C: ChunkStore>(chunks: &C, ty: ChunkType) -> Result<Option<usize>, C::Error> {
    match chunks.len()? {
        0 => Ok(None),
        len => Ok(chunks.is(len - 1, ty)?.then_some(len - 1)),
    }
}
