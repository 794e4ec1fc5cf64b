//! [`ChunkStore`] for Rust-owned chunks: `Vec<Chunk<S, V>>`, and [`IndexedChunks`], the
//! same with an index for long messages.

use std::collections::HashMap;
use std::convert::Infallible;
use std::hash::Hash;

use crate::model::{Chunk, ShellOutput, ShellStream, ToolCallEntry};
use crate::reducer::{ChunkStore, ChunkType, TextPart};

/// A text type the owned store can build: appended to, compared, made from literals.
pub trait Text: PartialEq + Sized {
    fn empty() -> Self;
    fn push_text(&mut self, other: &Self);
    fn push_literal(&mut self, literal: &str);
}

impl Text for String {
    fn empty() -> Self {
        String::new()
    }
    fn push_text(&mut self, other: &Self) {
        self.push_str(other);
    }
    fn push_literal(&mut self, literal: &str) {
        self.push_str(literal);
    }
}

fn batch<S, V>(chunks: &[Chunk<S, V>], index: usize) -> &[ToolCallEntry<S, V>] {
    match &chunks[index] {
        Chunk::ToolBatch { calls } => calls,
        _ => &[],
    }
}

fn call_mut<S, V>(chunks: &mut [Chunk<S, V>], index: usize, call: usize) -> Option<&mut ToolCallEntry<S, V>> {
    match &mut chunks[index] {
        Chunk::ToolBatch { calls } => calls.get_mut(call),
        _ => None,
    }
}

impl<S: Text, V> ChunkStore for Vec<Chunk<S, V>> {
    type Text = S;
    type Value = V;
    type Error = Infallible;

    fn len(&self) -> Result<usize, Infallible> {
        Ok(Vec::len(self))
    }

    fn is(&self, index: usize, ty: ChunkType) -> Result<bool, Infallible> {
        Ok(matches!(
            (&self[index], ty),
            (Chunk::Text { .. }, ChunkType::Text)
                | (Chunk::Thinking { .. }, ChunkType::Thinking)
                | (Chunk::ToolBatch { .. }, ChunkType::ToolBatch)
        ))
    }

    fn is_sealed(&self, index: usize) -> Result<bool, Infallible> {
        Ok(matches!(
            &self[index],
            Chunk::Thinking {
                metadata: Some(_),
                ..
            }
        ))
    }

    fn extend_text(&mut self, index: usize, delta: S) -> Result<(), Infallible> {
        if let Chunk::Text { text } | Chunk::Thinking { text, .. } = &mut self[index] {
            text.push_text(&delta);
        }
        Ok(())
    }

    fn push_chunk(&mut self, chunk: Chunk<S, V>) -> Result<(), Infallible> {
        self.push(chunk);
        Ok(())
    }

    fn compose_text(&mut self, parts: &[TextPart<'_, S>]) -> Result<S, Infallible> {
        let mut text = S::empty();
        for part in parts {
            match part {
                TextPart::Literal(literal) => text.push_literal(literal),
                TextPart::Given(given) => text.push_text(given),
            }
        }
        Ok(text)
    }

    fn seal_thinking(&mut self, index: usize, metadata: V) -> Result<(), Infallible> {
        if let Chunk::Thinking { metadata: slot, .. } = &mut self[index] {
            *slot = Some(metadata);
        }
        Ok(())
    }

    fn push_call(&mut self, index: usize, call: ToolCallEntry<S, V>) -> Result<(), Infallible> {
        if let Chunk::ToolBatch { calls } = &mut self[index] {
            calls.push(call);
        }
        Ok(())
    }

    fn find_call(&self, index: usize, id: &S) -> Result<Option<usize>, Infallible> {
        Ok(batch(self, index).iter().position(|call| call.id == *id))
    }

    fn set_result(&mut self, index: usize, call: usize, result: V, is_error: V) -> Result<(), Infallible> {
        if let Some(call) = call_mut(self, index, call) {
            call.result = Some((result, is_error));
        }
        Ok(())
    }

    fn last_call(&self, index: usize) -> Result<Option<usize>, Infallible> {
        Ok(batch(self, index).len().checked_sub(1))
    }

    fn append_shell_output(
        &mut self,
        index: usize,
        call: usize,
        stream: ShellStream,
        data: S,
    ) -> Result<(), Infallible> {
        if let Some(call) = call_mut(self, index, call) {
            if call.shell_output.is_none() && call.result.is_none() {
                call.shell_output_first = true;
            }
            let output = call.shell_output.get_or_insert_with(|| ShellOutput {
                stdout: S::empty(),
                stderr: S::empty(),
            });
            match stream {
                ShellStream::Stdout => output.stdout.push_text(&data),
                ShellStream::Stderr => output.stderr.push_text(&data),
                ShellStream::Other => {}
            }
        }
        Ok(())
    }
}

/// `Vec<Chunk>` with an index: the newest chunk of each type the rules look for, and for
/// each tool call id the newest batch holding it with the first such call there. Every
/// event then costs the same however long the message has grown; with a plain
/// `Vec<Chunk>` a `tool-result` searches the batches and their calls, so a batch of a
/// million calls and their million results costs 5 × 10¹¹ comparisons.
///
/// It gives exactly the chunks a `Vec<Chunk>` gives. The readers of untrusted input (the
/// bytes path, the histories read from files) fold into it; the index stays right
/// because the chunks change only through the rules.
#[derive(Debug, Clone)]
pub struct IndexedChunks<S, V> {
    chunks: Vec<Chunk<S, V>>,
    /// By [`ChunkType`].
    newest: [Option<usize>; 3],
    calls: HashMap<S, (usize, usize)>,
}

impl<S: Text + Clone + Eq + Hash, V> IndexedChunks<S, V> {
    pub fn new() -> Self {
        Self::from(Vec::new())
    }

    pub fn chunks(&self) -> &[Chunk<S, V>] {
        &self.chunks
    }

    /// The newest call with this id, to change in place (its id stays as it is).
    pub fn call_mut(&mut self, id: &S) -> Option<&mut ToolCallEntry<S, V>> {
        let &(chunk, call) = self.calls.get(id)?;
        call_mut(&mut self.chunks, chunk, call)
    }

    /// Call `call` of the tool batch at chunk `chunk`, to change in place (its id stays as
    /// it is): a stream that names the message and the call it changes.
    pub fn call_at_mut(&mut self, chunk: usize, call: usize) -> Option<&mut ToolCallEntry<S, V>> {
        match self.chunks.get_mut(chunk)? {
            Chunk::ToolBatch { calls } => calls.get_mut(call),
            _ => None,
        }
    }

    pub fn into_chunks(self) -> Vec<Chunk<S, V>> {
        self.chunks
    }

    fn note_chunk(&mut self, index: usize, chunk: &Chunk<S, V>) {
        let ty = match chunk {
            Chunk::Text { .. } => ChunkType::Text,
            Chunk::Thinking { .. } => ChunkType::Thinking,
            Chunk::ToolBatch { calls } => {
                for (call, entry) in calls.iter().enumerate() {
                    self.note_call(index, call, &entry.id);
                }
                ChunkType::ToolBatch
            }
            Chunk::Error { .. } | Chunk::System { .. } | Chunk::File { .. } => return,
        };
        self.newest[ty as usize] = Some(index);
    }

    fn note_call(&mut self, index: usize, call: usize, id: &S) {
        match self.calls.get_mut(id) {
            // A newer batch wins; within a batch, the first call.
            Some(place) if place.0 < index => *place = (index, call),
            Some(_) => {}
            None => {
                self.calls.insert(id.clone(), (index, call));
            }
        }
    }
}

impl<S: Text + Clone + Eq + Hash, V> Default for IndexedChunks<S, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Text + Clone + Eq + Hash, V> From<Vec<Chunk<S, V>>> for IndexedChunks<S, V> {
    fn from(chunks: Vec<Chunk<S, V>>) -> Self {
        let mut indexed = IndexedChunks {
            chunks: Vec::new(),
            newest: [None; 3],
            calls: HashMap::new(),
        };
        for (index, chunk) in chunks.iter().enumerate() {
            indexed.note_chunk(index, chunk);
        }
        indexed.chunks = chunks;
        indexed
    }
}

impl<S: Text + Clone + Eq + Hash, V> ChunkStore for IndexedChunks<S, V> {
    type Text = S;
    type Value = V;
    type Error = Infallible;

    fn len(&self) -> Result<usize, Infallible> {
        Ok(self.chunks.len())
    }

    fn is(&self, index: usize, ty: ChunkType) -> Result<bool, Infallible> {
        self.chunks.is(index, ty)
    }

    fn is_sealed(&self, index: usize) -> Result<bool, Infallible> {
        self.chunks.is_sealed(index)
    }

    fn extend_text(&mut self, index: usize, delta: S) -> Result<(), Infallible> {
        self.chunks.extend_text(index, delta)
    }

    fn push_chunk(&mut self, chunk: Chunk<S, V>) -> Result<(), Infallible> {
        self.note_chunk(self.chunks.len(), &chunk);
        self.chunks.push_chunk(chunk)
    }

    fn compose_text(&mut self, parts: &[TextPart<'_, S>]) -> Result<S, Infallible> {
        self.chunks.compose_text(parts)
    }

    fn seal_thinking(&mut self, index: usize, metadata: V) -> Result<(), Infallible> {
        self.chunks.seal_thinking(index, metadata)
    }

    fn push_call(&mut self, index: usize, call: ToolCallEntry<S, V>) -> Result<(), Infallible> {
        if let Chunk::ToolBatch { calls } = &self.chunks[index] {
            self.note_call(index, calls.len(), &call.id);
        }
        self.chunks.push_call(index, call)
    }

    fn find_call(&self, index: usize, id: &S) -> Result<Option<usize>, Infallible> {
        self.chunks.find_call(index, id)
    }

    fn set_result(&mut self, index: usize, call: usize, result: V, is_error: V) -> Result<(), Infallible> {
        self.chunks.set_result(index, call, result, is_error)
    }

    fn last_call(&self, index: usize) -> Result<Option<usize>, Infallible> {
        self.chunks.last_call(index)
    }

    fn append_shell_output(
        &mut self,
        index: usize,
        call: usize,
        stream: ShellStream,
        data: S,
    ) -> Result<(), Infallible> {
        self.chunks.append_shell_output(index, call, stream, data)
    }

    fn newest(&self, ty: ChunkType) -> Result<Option<usize>, Infallible> {
        Ok(self.newest[ty as usize])
    }

    fn newest_call(&self, id: &S) -> Result<Option<(usize, usize)>, Infallible> {
        Ok(self.calls.get(id).copied())
    }
}
