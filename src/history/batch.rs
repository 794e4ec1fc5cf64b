//! Messages as JSON text in slices of bounded size, so a host can turn them into objects
//! a slice at a time (between slices its event loop runs).
//!
//! A slice is a JSON array of items to append to one of the arrays being built: the
//! result (depth 0), the `chunks` of the last message (depth 1), or the `calls` of that
//! message's last chunk (depth 2). A message that does not fit in a slice is sent as its
//! head (`{id, role, chunks: []}`, flagged `open`), then its chunks at depth 1; a tool
//! batch that does not fit likewise, its calls at depth 2. All text is ASCII.

use crate::bytes::text::{JsonText, Payload};
use crate::bytes::value::{write_str_with, Json};
use crate::bytes::write as bytes_write;
use crate::bytes::wtf8::Wtf8;
use crate::model::{Chunk, MessageRole, ToolCallEntry};
use crate::reading::model_json::{role_name, write_call, write_chunk, FormatChunk, TOOL_BATCH_HEAD};

use crate::history::Message;

/// One slice: `[item, item, …]` for the array at `depth`. With `open`, the last item's
/// array (`chunks` at depth 0, `calls` at depth 1) is where the next slices go. With
/// `replaces`, the slice is one whole message that replaces the result's element at that
/// index (a message handed on early that changed: [`Message::Settled`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slice {
    pub depth: u8,
    pub open: bool,
    pub replaces: Option<usize>,
    pub json: Vec<u8>,
}

/// Cuts messages into slices of about `limit` bytes and hands each to `send`, which
/// returns `false` when nobody wants more.
pub struct Slicer<F> {
    limit: usize,
    depth: u8,
    json: Vec<u8>,
    send: F,
    stopped: bool,
    /// Messages written so far.
    count: usize,
}

impl<F: FnMut(Slice) -> bool> Slicer<F> {
    pub fn new(limit: usize, send: F) -> Self {
        Slicer {
            limit,
            depth: 0,
            json: Vec::new(),
            send,
            stopped: false,
            count: 0,
        }
    }

    /// Whether the receiver has gone.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    fn flush(&mut self, open: bool) {
        if self.json.is_empty() {
            return;
        }
        self.json.push(b']');
        let json = std::mem::replace(
            &mut self.json,
            Vec::with_capacity(self.limit.min(1 << 20) * 5 / 4),
        );
        if !self.stopped {
            self.stopped = !(self.send)(Slice {
                depth: self.depth,
                open,
                replaces: None,
                json,
            });
        }
    }

    /// Adds one item at `depth`; `open` items end their slice.
    fn item(&mut self, depth: u8, open: bool, write: impl FnOnce(&mut Vec<u8>)) {
        if self.depth != depth {
            self.flush(false);
            self.depth = depth;
        }
        self.json.push(if self.json.is_empty() { b'[' } else { b',' });
        write(&mut self.json);
        if open {
            self.flush(true);
        } else if self.json.len() >= self.limit {
            self.flush(false);
        }
    }

    pub fn message(&mut self, message: &Message) {
        match message {
            Message::Format(m) => self.format_message(&m.id, m.role, &m.chunks),
            &Message::Settled {
                index,
                id,
                role,
                chunks,
            } if index >= self.count => self.format_message(id, role, chunks),
            &Message::Settled {
                index,
                id,
                role,
                chunks,
            } => {
                // Whole, in a slice of its own, however large: a message changes after it
                // was handed on rarely, and at most once more at the end.
                self.flush(false);
                let mut json = vec![b'['];
                whole(&mut json, &json_string(id), role, chunks, |out, c| {
                    write_chunk::<true>(out, c)
                });
                json.push(b']');
                if !self.stopped {
                    self.stopped = !(self.send)(Slice {
                        depth: 0,
                        open: false,
                        replaces: Some(index),
                        json,
                    });
                }
                return;
            }
        }
        self.count += 1;
    }

    fn format_message(&mut self, id: &str, role: MessageRole, chunks: &[FormatChunk]) {
        self.write(&json_string(id), role, chunks, format_size, |out, c| {
            write_chunk::<true>(out, c)
        })
    }

    /// Sends what is left.
    pub fn finish(&mut self) {
        self.flush(false);
    }
}

/// A call of either chunk model as JSON.
trait CallJson {
    fn write_call(&self, out: &mut Vec<u8>);
}

impl CallJson for ToolCallEntry<Wtf8, Json> {
    fn write_call(&self, out: &mut Vec<u8>) {
        write_call::<true>(out, self);
    }
}

impl CallJson for ToolCallEntry<JsonText, Payload> {
    fn write_call(&self, out: &mut Vec<u8>) {
        let mut text = String::new();
        bytes_write::call_json(self, &mut text);
        out.extend_from_slice(text.as_bytes());
    }
}

impl<F: FnMut(Slice) -> bool> Slicer<F> {
    /// `id` is the message's id as a JSON string.
    fn write<S, V>(
        &mut self,
        id: &[u8],
        role: MessageRole,
        chunks: &[Chunk<S, V>],
        size: impl Fn(&Chunk<S, V>) -> usize,
        chunk_json: impl Fn(&mut Vec<u8>, &Chunk<S, V>),
    ) where
        ToolCallEntry<S, V>: CallJson,
    {
        let sizes: Vec<usize> = chunks.iter().map(&size).collect();
        if sizes.iter().sum::<usize>() + 64 <= self.limit {
            self.item(0, false, |out| whole(out, id, role, chunks, &chunk_json));
            return;
        }
        self.item(0, true, |out| whole(out, id, role, &[], &chunk_json));
        for (chunk, size) in chunks.iter().zip(sizes) {
            match chunk.calls() {
                Some(calls) if size > self.limit => {
                    self.item(1, true, |out| {
                        out.extend_from_slice(TOOL_BATCH_HEAD);
                        out.extend_from_slice(b"]}");
                    });
                    for call in calls {
                        self.item(2, false, |out| call.write_call(out));
                    }
                }
                _ => self.item(1, false, |out| chunk_json(out, chunk)),
            }
            if self.stopped {
                return;
            }
        }
    }
}

/// A message's id as a JSON string.
fn json_string(id: &str) -> Vec<u8> {
    let mut json = Vec::new();
    write_str_with::<true>(&mut json, id.as_bytes());
    json
}

/// A message whole as JSON, `id` already a JSON string.
fn whole<S, V>(
    out: &mut Vec<u8>,
    id: &[u8],
    role: MessageRole,
    chunks: &[Chunk<S, V>],
    chunk_json: impl Fn(&mut Vec<u8>, &Chunk<S, V>),
) {
    out.extend_from_slice(b"{\"id\":");
    out.extend_from_slice(id);
    out.extend_from_slice(b",\"role\":\"");
    out.extend_from_slice(role_name(role).as_bytes());
    out.extend_from_slice(b"\",\"chunks\":[");
    for (i, chunk) in chunks.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        chunk_json(out, chunk);
    }
    out.extend_from_slice(b"]}");
}

/// About the JSON size of a chunk read from a wire format.
fn format_size(chunk: &FormatChunk) -> usize {
    fn json(value: &Json) -> usize {
        match value {
            Json::Undefined | Json::Null | Json::Bool(_) => 5,
            Json::Number(n) => n.len(),
            Json::String(s) => s.as_bytes().len() + 2,
            Json::Array(items) => 2 + items.iter().map(|i| json(i) + 1).sum::<usize>(),
            Json::Object(fields) => {
                2 + fields
                    .iter()
                    .map(|(k, v)| k.as_bytes().len() + 4 + json(v))
                    .sum::<usize>()
            }
        }
    }
    32 + match chunk {
        Chunk::Text { text } => text.as_bytes().len(),
        Chunk::Thinking { text, metadata } => text.as_bytes().len() + metadata.as_ref().map_or(0, json),
        Chunk::ToolBatch { calls } => calls
            .iter()
            .map(|call| {
                48 + call.id.as_bytes().len()
                    + call.name.as_bytes().len()
                    + json(&call.arguments)
                    + call.result.as_ref().map_or(0, |(r, e)| json(r) + json(e))
                    + call
                        .shell_output
                        .as_ref()
                        .map_or(0, |s| s.stdout.as_bytes().len() + s.stderr.as_bytes().len() + 32)
            })
            .sum(),
        Chunk::Error { message, .. } => message.as_bytes().len() + 16,
        Chunk::System { text, .. } => text.as_bytes().len() + 32,
        Chunk::File {
            media_type,
            data,
            url,
            filename,
        } => [Some(media_type), data.as_ref(), url.as_ref(), filename.as_ref()]
            .into_iter()
            .flatten()
            .map(|text| text.as_bytes().len() + 16)
            .sum(),
    }
}
