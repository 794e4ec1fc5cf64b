//! Live streams folded into messages: the face every stream format gives the registry.
//!
//! A [`LiveFold`] reads one stream value at a time (a JSON line, or an SSE frame's data)
//! and tells a [`Folded`] what it means: the agent events it stands for, and where a
//! stored message begins or ends. [`Folded`] runs the events through
//! [`append_event`](crate::append_event), so a stream folds by the same rules as the
//! history written from it, and it remembers which lines built each chunk, so that a
//! disagreement can be traced to the stream.

use crate::model::{AgentEvent, ChatMessage, Chunk, MessageRole};
use crate::owned::IndexedChunks;
use std::collections::HashMap;

use crate::reducer::{append_event, ChunkStore};

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::{FormatResult, Skips};
use crate::reading::model_json::{FormatChunk, FormatEvent, FormatMessage};

/// A stream format's rules: what each value of the stream does to the messages.
pub trait LiveFold {
    /// Folds the value at `line` into `out`; unknown values are counted in `skips`.
    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()>;

    /// Folds the frame `bytes` at `line` straight from its bytes, when the fold can,
    /// without building its value first; `None` when it leaves the frame to
    /// [`LiveFold::push`] of its parsed value. A frame it takes must fold exactly as that
    /// would: the same messages, skips and errors. `utf8`: the bytes are known to be UTF-8
    /// (the framer checked them with the lines around them). The default takes none.
    fn push_frame(
        &mut self,
        _bytes: &[u8],
        _utf8: bool,
        _line: usize,
        _out: &mut Folded,
        _skips: &mut Skips,
    ) -> Option<FormatResult<()>> {
        None
    }

    /// SSE field names besides `data` whose lines carry the stream's events (a server that
    /// writes some events under names of their own); none by default.
    fn sse_data_fields(&self) -> &'static [&'static [u8]] {
        &[]
    }

    /// Takes up what the fold remembers between values from messages folded before (a
    /// history loaded, going on live), as well as messages can say it. A fold that
    /// remembers nothing the messages do not hold needs nothing here.
    fn resume(&mut self, _messages: &Folded) {}

    /// What the fold remembers between values, as JSON (see [`crate::reading::resume`]): with the
    /// messages, all a conversation needs to go on exactly. `null` for a fold that
    /// remembers nothing the messages do not hold.
    fn save(&self) -> Json {
        Json::Null
    }

    /// Takes up a state [`LiveFold::save`] gave, with the messages it went with. The
    /// error says which field is wrong (after `fold`).
    /// A fold that remembers nothing takes back only the `null` it saved.
    fn restore(&mut self, state: &Json, _messages: &Folded) -> Result<(), String> {
        match state {
            Json::Null => Ok(()),
            other => Err(format!(" must be null, got {}", other.kind().name())),
        }
    }
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
    pub(crate) line: usize,
    /// What changed since [`Folded::take_touched`] was last called: a message (its head,
    /// `None`) or one of its chunks.
    touched: Vec<(usize, Option<usize>)>,
    /// Messages whose chunks were replaced since [`Folded::take_rewrites`] was last called.
    rewrites: Vec<Rewrite>,
}

/// The open message's chunks replaced by others ([`Folded::replace_open`]): what changed
/// in a way events cannot change a message.
#[derive(Debug, Clone, PartialEq)]
pub struct Rewrite {
    pub message: usize,
    /// The first chunk that changed (extended or replaced); the chunks before it are as
    /// they were.
    pub changed: usize,
    /// The first chunk that was not only extended (its text grown, calls or a seal
    /// added): from here on the chunks are new (the message may have fewer than before).
    pub from: usize,
    /// The chunks it had from `changed` on.
    pub old: Vec<FormatChunk>,
}

/// Whether `new` is `old` grown as events grow a chunk: its text appended to (a thinking
/// chunk's while not sealed), calls added after the same calls, a result or seal added.
fn extends(old: &FormatChunk, new: &FormatChunk) -> bool {
    let grown = |a: &Wtf8, b: &Wtf8| {
        b.as_bytes().starts_with(a.as_bytes()) || b.to_utf16().starts_with(&a.to_utf16())
    };
    match (old, new) {
        (Chunk::Text { text: a }, Chunk::Text { text: b }) => grown(a, b),
        (
            Chunk::Thinking {
                text: a,
                metadata: None,
            },
            Chunk::Thinking { text: b, .. },
        ) => grown(a, b),
        (Chunk::System { kind: k, text: a }, Chunk::System { kind: l, text: b }) => k == l && grown(a, b),
        (Chunk::ToolBatch { calls: a }, Chunk::ToolBatch { calls: b }) => {
            a.len() <= b.len()
                && a.iter()
                    .zip(b)
                    .all(|(a, b)| a.id == b.id && a.name == b.name && a.arguments == b.arguments)
        }
        (old, new) => old == new,
    }
}

impl Folded {
    pub fn new(prefix: &'static str) -> Self {
        Folded {
            messages: Vec::new(),
            calls: HashMap::new(),
            open: false,
            prefix,
            line: 0,
            touched: Vec::new(),
            rewrites: Vec::new(),
        }
    }

    /// Messages already folded (a history loaded before the stream goes on): the last one
    /// stays open, as it was when the history was written mid-turn.
    pub fn resume(prefix: &'static str, messages: Vec<FormatMessage>) -> Self {
        let mut folded = Folded::new(prefix);
        for message in messages {
            folded.add(message);
        }
        folded.open = !folded.messages.is_empty();
        folded.touched.clear();
        folded
    }

    /// Whether the last message still takes events.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Sets whether the last message still takes events (a resume state says so).
    pub fn set_open(&mut self, open: bool) {
        self.open = open && !self.messages.is_empty();
    }

    /// How many messages there are.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Message `index`: its id, role and chunks.
    pub fn message(&self, index: usize) -> (&str, MessageRole, &[FormatChunk]) {
        let m = &self.messages[index];
        (&m.id, m.role, m.chunks.chunks())
    }

    /// What changed since the last call, in the order it changed (repeats included).
    pub fn take_touched(&mut self) -> Vec<(usize, Option<usize>)> {
        std::mem::take(&mut self.touched)
    }

    /// The messages whose chunks were replaced since the last call.
    pub fn take_rewrites(&mut self) -> Vec<Rewrite> {
        std::mem::take(&mut self.rewrites)
    }

    /// Replaces the open message's chunks with `chunks` (a format whose message ends with
    /// the whole of it, which may differ from what its events built). Nothing changes
    /// when they are equal; the chunks that differ are reported as changed, and the
    /// message as rewritten ([`Rewrite`]). Whether the open message is an assistant's,
    /// or any message is open, is the caller's to know.
    pub fn replace_open(&mut self, chunks: Vec<FormatChunk>) {
        let index = self.messages.len().wrapping_sub(1);
        let line = self.line;
        let Some(message) = self.messages.last_mut().filter(|_| self.open) else {
            return;
        };
        let old = message.chunks.chunks();
        let Some(changed) = (0..old.len().max(chunks.len())).find(|&j| old.get(j) != chunks.get(j)) else {
            return;
        };
        let from = (changed..old.len().max(chunks.len()))
            .find(|&j| match (old.get(j), chunks.get(j)) {
                (Some(a), Some(b)) => !extends(a, b),
                (Some(_), None) => true,
                (None, _) => false,
            })
            .unwrap_or(chunks.len())
            .min(chunks.len());
        for call in old.iter().flat_map(|chunk| match chunk {
            Chunk::ToolBatch { calls } => calls.as_slice(),
            _ => &[],
        }) {
            if self.calls.get(&call.id) == Some(&index) {
                self.calls.remove(&call.id);
            }
        }
        for chunk in &chunks {
            if let Chunk::ToolBatch { calls } = chunk {
                for call in calls {
                    self.calls.insert(call.id.clone(), index);
                }
            }
        }
        let len = chunks.len();
        let old = old[changed..].to_vec();
        message.chunks = IndexedChunks::from(chunks);
        message.origin.lines.1 = line;
        message.origin.chunks.truncate(len);
        for j in changed..len {
            note(&mut message.origin, j, line);
            self.touched.push((index, Some(j)));
        }
        self.rewrites.push(Rewrite {
            message: index,
            changed,
            from,
            old,
        });
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
        self.touched.push((self.messages.len() - 1, None));
        self.open = true;
    }

    /// Ends the open message, renaming it `id` when given.
    pub fn end(&mut self, id: Option<String>) {
        if let Some(id) = id {
            self.rename_open(id);
        }
        self.open = false;
    }

    /// Renames the open message `id`; it stays open.
    pub fn rename_open(&mut self, id: String) {
        if let (true, Some(last)) = (self.open, self.messages.last_mut()) {
            if last.id != id {
                last.id = id;
                self.touched.push((self.messages.len() - 1, None));
            }
        }
    }

    /// The role of the open message.
    pub fn open_role(&self) -> Option<MessageRole> {
        self.open.then(|| self.messages.last().map(|m| m.role)).flatten()
    }

    /// Folds `event` into the open message, beginning an assistant message when none is.
    /// An event that builds nothing (a `reasoning-end` with no thinking to seal) begins
    /// no message, as a history read from the same stream has none.
    pub fn apply(&mut self, event: FormatEvent) {
        let begun = !self.open;
        if begun {
            self.begin(MessageRole::Assistant, None);
        }
        let index = self.messages.len() - 1;
        self.apply_at(index, event);
        if begun && self.messages[index].chunks.chunks().is_empty() {
            self.messages.pop();
            self.touched.retain(|&(message, _)| message != index);
            self.open = false;
        }
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
        // Shell output lands on the newest batch's last call, and a reasoning end seals the
        // newest thinking chunk: either may have chunks after it.
        let shell = matches!(event, AgentEvent::ShellOutput { .. });
        let seal = matches!(event, AgentEvent::ReasoningEnd { .. });
        let Ok(()) = append_event(&mut message.chunks, event);
        let len = message.chunks.chunks().len();
        let touched = if len > before {
            Some(len - 1)
        } else if shell {
            message
                .chunks
                .chunks()
                .iter()
                .rposition(|chunk| matches!(chunk, Chunk::ToolBatch { .. }))
        } else if seal {
            message
                .chunks
                .chunks()
                .iter()
                .rposition(|chunk| matches!(chunk, Chunk::Thinking { .. }))
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
            self.touched.push((index, Some(at)));
        }
    }

    /// Whether a call with this id was folded (in any message).
    pub fn has_call(&self, id: &Wtf8) -> bool {
        self.calls.contains_key(id)
    }

    /// A call folded so far, by id, to change in place (a format whose updates replace a
    /// call's fields).
    pub fn call_mut(&mut self, id: &Wtf8) -> Option<&mut crate::model::ToolCallEntry<Wtf8, Json>> {
        let &index = self.calls.get(id)?;
        let chunks = &mut self.messages[index].chunks;
        let (chunk, _) = chunks.newest_call(id).ok().flatten()?;
        self.touched.push((index, Some(chunk)));
        chunks.call_mut(id)
    }

    /// How many chunks the open message has (0 when none is open).
    pub fn open_len(&self) -> usize {
        match (self.open, self.messages.last()) {
            (true, Some(message)) => message.chunks.chunks().len(),
            _ => 0,
        }
    }

    /// Folds what a value of a stream of parts stands for into the open message
    /// (beginning an assistant message when none is).
    pub fn fold_open(&mut self, folded: crate::reading::steps::ChunkStep) {
        use crate::reading::steps::ChunkStep as Step;
        match folded {
            // A tool's output may come in a later message than its call.
            Step::Event(event @ AgentEvent::ToolResult { .. }) => self.apply_result(event),
            Step::Event(event) => self.apply(event),
            Step::Chunk(chunk) => self.push_chunk(chunk),
            Step::Meta(id, meta) => {
                if let Some(call) = self.call_mut(&id) {
                    call.meta = Some(meta);
                }
            }
            step @ (Step::Extend(..) | Step::Seal(..)) => {
                let at = match &step {
                    Step::Extend(at, _) | Step::Seal(at, _) => *at,
                    _ => 0,
                };
                let line = self.line;
                let index = self.messages.len().wrapping_sub(1);
                let Some(message) = self.messages.last_mut().filter(|_| self.open) else {
                    return;
                };
                if at < message.chunks.chunks().len() {
                    crate::reading::steps::apply_owned(&mut message.chunks, step);
                    message.origin.lines.1 = line;
                    note(&mut message.origin, at, line);
                    // A part's delta or end may land on any open part, not only the last.
                    self.touched.push((index, Some(at)));
                }
            }
        }
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
        self.touched.push((self.messages.len() - 1, Some(at)));
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

/// Message `index` as owned, for comparisons.
pub fn owned_message(messages: &Folded, index: usize) -> FormatMessage {
    let (id, role, chunks) = messages.message(index);
    FormatMessage {
        id: id.to_string(),
        role,
        chunks: chunks.to_vec(),
    }
}

/// Every message as owned.
pub fn owned_messages(messages: &Folded) -> Vec<FormatMessage> {
    (0..messages.len()).map(|i| owned_message(messages, i)).collect()
}
