//! [`ChunkStore`] for Rust-owned chunks: `Vec<Chunk<S, V>>`.

use std::convert::Infallible;

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
