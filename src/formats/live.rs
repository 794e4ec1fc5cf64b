//! Live streams folded into messages: the face every stream format gives the registry.
//!
//! A [`LiveFold`] reads one stream value at a time (a JSON line, or an SSE frame's data)
//! and tells a [`Folded`] what it means: the agent events it stands for, and where a
//! stored message begins or ends. [`Folded`] runs the events through
//! [`append_event`](crate::append_event), so a stream folds by the same rules as the
//! history written from it, and it remembers which lines built each chunk, so that a
//! disagreement can be traced to the stream.

use crate::bytes::{Framer, Framing};
use crate::model::{AgentEvent, ChatMessage, Chunk, MessageRole};
use crate::owned::IndexedChunks;
use std::collections::HashMap;

use crate::reducer::{append_event, ChunkStore};

use super::check::{unreadable_kind, FormatError, FormatResult, Skips, NOT_UTF8};
use super::model_json::{FormatChunk, FormatEvent, FormatMessage};
use super::value::{self, Json};
use super::wtf8::Wtf8;

/// A stream format's rules: what each value of the stream does to the messages.
pub trait LiveFold {
    /// Folds the value at `line` into `out`; unknown values are counted in `skips`.
    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()>;
}

/// Which lines of the stream built a message and each of its chunks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// First and last line.
    pub lines: (usize, usize),
    /// Per chunk: its first and last line (`None` for a chunk no line touched).
    pub chunks: Vec<Option<(usize, usize)>>,
}

struct Building {
    id: String,
    role: MessageRole,
    chunks: IndexedChunks<Wtf8, Json>,
    origin: Origin,
}

/// The messages a stream has built so far.
pub struct Folded {
    messages: Vec<Building>,
    /// The message holding each tool call (the newest, for a repeated id).
    calls: HashMap<Wtf8, usize>,
    /// The last message takes more events.
    open: bool,
    /// What unnamed messages are called: `<prefix>-<n>`.
    prefix: &'static str,
    line: usize,
}

impl Folded {
    pub fn new(prefix: &'static str) -> Self {
        Folded {
            messages: Vec::new(),
            calls: HashMap::new(),
            open: false,
            prefix,
            line: 0,
        }
    }

    /// Starts a new message (named `id`, else `<prefix>-<n>`); the open one is done.
    pub fn begin(&mut self, role: MessageRole, id: Option<String>) {
        let id = id.unwrap_or_else(|| format!("{}-{}", self.prefix, self.messages.len() + 1));
        self.messages.push(Building {
            id,
            role,
            chunks: IndexedChunks::new(),
            origin: Origin {
                lines: (self.line, self.line),
                chunks: Vec::new(),
            },
        });
        self.open = true;
    }

    /// Ends the open message, renaming it `id` when given.
    pub fn end(&mut self, id: Option<String>) {
        if let (true, Some(id), Some(last)) = (self.open, id, self.messages.last_mut()) {
            last.id = id;
        }
        self.open = false;
    }

    /// The role of the open message.
    pub fn open_role(&self) -> Option<MessageRole> {
        self.open.then(|| self.messages.last().map(|m| m.role)).flatten()
    }

    /// Folds `event` into the open message, beginning an assistant message when none is.
    pub fn apply(&mut self, event: FormatEvent) {
        if !self.open {
            self.begin(MessageRole::Assistant, None);
        }
        let index = self.messages.len() - 1;
        self.apply_at(index, event);
    }

    /// Folds a tool result into the newest message holding its call (results come after
    /// the message that made the call has ended), else into the open message.
    pub fn apply_result(&mut self, event: FormatEvent) {
        if let AgentEvent::ToolResult { tool_call_id, .. } = &event {
            if let Some(&index) = self.calls.get(tool_call_id) {
                return self.apply_at(index, event);
            }
        }
        self.apply(event);
    }

    fn apply_at(&mut self, index: usize, event: FormatEvent) {
        let line = self.line;
        let message = &mut self.messages[index];
        let before = message.chunks.chunks().len();
        let result_of = match &event {
            AgentEvent::ToolResult { tool_call_id, .. } => Some(tool_call_id.clone()),
            AgentEvent::ToolCall { id, .. } => {
                self.calls.insert(id.clone(), index);
                None
            }
            _ => None,
        };
        let Ok(()) = append_event(&mut message.chunks, event);
        let len = message.chunks.chunks().len();
        let touched = if len > before {
            Some(len - 1)
        } else if let Some(id) = result_of {
            message
                .chunks
                .newest_call(&id)
                .ok()
                .flatten()
                .map(|(chunk, _)| chunk)
        } else {
            len.checked_sub(1)
        };
        message.origin.lines.1 = line;
        if let Some(at) = touched {
            note(&mut message.origin, at, line);
        }
    }

    /// A call folded so far, by id, to change in place (a format whose updates replace a
    /// call's fields).
    pub fn call_mut(&mut self, id: &Wtf8) -> Option<&mut crate::model::ToolCallEntry<Wtf8, Json>> {
        let &index = self.calls.get(id)?;
        self.messages[index].chunks.call_mut(id)
    }

    /// Adds a chunk no event makes (a file) to the open message.
    pub fn push_chunk(&mut self, chunk: FormatChunk) {
        if !self.open {
            self.begin(MessageRole::Assistant, None);
        }
        let line = self.line;
        if let Chunk::ToolBatch { calls } = &chunk {
            for call in calls {
                self.calls.insert(call.id.clone(), self.messages.len() - 1);
            }
        }
        let message = self.messages.last_mut().expect("begun above");
        let Ok(()) = message.chunks.push_chunk(chunk);
        let at = message.chunks.chunks().len() - 1;
        message.origin.lines.1 = line;
        note(&mut message.origin, at, line);
    }

    /// Adds a whole stored message (a user's, a summary); the open one is done.
    pub fn add(&mut self, message: FormatMessage) {
        self.begin(message.role, Some(message.id));
        for chunk in message.chunks {
            self.push_chunk(chunk);
        }
        self.open = false;
    }

    /// The messages and where each came from.
    pub fn finish(self) -> (Vec<FormatMessage>, Vec<Origin>) {
        self.messages
            .into_iter()
            .map(|m| {
                (
                    ChatMessage {
                        id: m.id,
                        role: m.role,
                        chunks: m.chunks.into_chunks(),
                    },
                    m.origin,
                )
            })
            .unzip()
    }
}

fn note(origin: &mut Origin, at: usize, line: usize) {
    if origin.chunks.len() <= at {
        origin.chunks.resize(at + 1, None);
    }
    let span = origin.chunks[at].get_or_insert((line, line));
    span.1 = line;
}

/// A folded stream: its messages, their origins, the values skipped.
#[derive(Debug)]
pub struct FoldedStream {
    pub messages: Vec<FormatMessage>,
    pub origins: Vec<Origin>,
    pub skips: Skips,
}

/// Folds a whole recorded stream (NDJSON, or SSE when its first line is an SSE field)
/// with `fold`. A value that is not JSON is an error at its line.
pub fn fold_stream(
    fold: &mut dyn LiveFold,
    prefix: &'static str,
    bytes: &[u8],
    strict: bool,
) -> FormatResult<FoldedStream> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut out = Folded::new(prefix);
    let mut skips = Skips::new(strict);
    let mut framer = Framer::new(Framing::Auto);
    // A value that cannot be read is skipped and counted once one was read (refused when
    // strict); values written back to back are each read.
    let mut read_any = false;
    let mut each = |frame: crate::bytes::Frame<'_>| -> FormatResult<()> {
        let line = frame.line as usize;
        if &*frame.bytes == b"[DONE]" {
            // The AI SDK's end marker: no value.
            return Ok(());
        }
        let mut fold_one = |value: Json, skips: &mut Skips| {
            out.line = line;
            fold.push(value, line, &mut out, skips).map_err(|e| match e.line {
                Some(_) => e,
                None => e.at_line(line),
            })
        };
        let e = match value::parse(&frame.bytes) {
            Ok(value) => {
                read_any = true;
                return fold_one(value, &mut skips);
            }
            Err(e) => e,
        };
        if strict || !read_any {
            return Err(FormatError::new("", e.to_string()).at_line(line));
        }
        let Ok(text) = std::str::from_utf8(&frame.bytes) else {
            return skips.unreadable(line, NOT_UTF8, "invalid UTF-8");
        };
        let (values, torn) = value::split_values(text, &value::parse_str);
        for (at, problem) in torn {
            skips.unreadable(line, unreadable_kind(at, &problem, !values.is_empty()), problem)?;
        }
        for range in values {
            let value = value::parse_str(&text[range])
                .map_err(|e| FormatError::new("", e.to_string()).at_line(line))?;
            fold_one(value, &mut skips)?;
        }
        Ok(())
    };
    framer.push(bytes, &mut each)?;
    framer.finish(&mut each)?;
    let (messages, origins) = out.finish();
    Ok(FoldedStream {
        messages,
        origins,
        skips,
    })
}
