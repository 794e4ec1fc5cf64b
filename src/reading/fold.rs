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
    /// The messages were replaced whole since [`Folded::take_reset`] was last called: for
    /// each message now, the index it had before when it is the same message, unchanged.
    reset: Option<Vec<Option<usize>>>,
    /// Calls changed on their own since [`Folded::take_call_touches`] was last called,
    /// each also in `touched`.
    call_touches: Vec<CallTouch>,
}

/// A call of a tool batch changed on its own ([`Folded::call_at_mut`],
/// [`Folded::push_call_at`], [`Folded::grow_call_args`]): what a binding holding the
/// batch can make anew, or append to, instead of the whole batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallTouch {
    pub message: usize,
    pub chunk: usize,
    pub call: usize,
    /// All the call's change was its arguments text growing by appending.
    pub grown: Option<Growth>,
}

/// A call's arguments text grown by appending ([`Folded::grow_call_args`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Growth {
    /// The text's length in bytes before it grew.
    pub from: usize,
    /// The call's `meta[mirror].arguments` holds the same text, grown with it.
    pub mirror: Option<&'static str>,
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
            reset: None,
            call_touches: Vec::new(),
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
        folded.call_touches.clear();
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

    /// The calls changed on their own since the last call, in order. They tell all of
    /// a chunk's change only when each time the chunk was touched since, it was one.
    pub fn take_call_touches(&mut self) -> Vec<CallTouch> {
        std::mem::take(&mut self.call_touches)
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
        if self.open && !self.messages.is_empty() {
            self.replace_chunks(self.messages.len() - 1, chunks);
        }
    }

    /// Replaces the chunks of message `index` with `chunks`, whichever message it is (a
    /// stream whose events name the message they change, in ways events of the drop-in
    /// cannot: a text put before a tool batch, content replaced whole). Nothing changes
    /// when they are equal; the chunks that differ are reported as changed, and the
    /// message as rewritten ([`Rewrite`]).
    pub fn replace_chunks(&mut self, index: usize, chunks: Vec<FormatChunk>) {
        let line = self.line;
        let Some(message) = self.messages.get_mut(index) else {
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

    /// Puts `chunks` in place of chunks `range` of message `index` (see
    /// [`Folded::replace_chunks`]).
    pub fn splice_chunks(&mut self, index: usize, range: std::ops::Range<usize>, chunks: Vec<FormatChunk>) {
        let Some(message) = self.messages.get(index) else {
            return;
        };
        let mut all = message.chunks.chunks().to_vec();
        let range = range.start.min(all.len())..range.end.min(all.len());
        all.splice(range, chunks);
        self.replace_chunks(index, all);
    }

    /// Appends `delta` to the text of chunk `chunk` (a text or thinking chunk, sealed or
    /// not) of message `index`, whichever message it is.
    pub fn extend_text_at(&mut self, index: usize, chunk: usize, delta: Wtf8) {
        let line = self.line;
        let message = &mut self.messages[index];
        if delta.is_empty() || chunk >= message.chunks.chunks().len() {
            return;
        }
        let Ok(()) = message.chunks.extend_text(chunk, delta);
        message.origin.lines.1 = line;
        note(&mut message.origin, chunk, line);
        self.touched.push((index, Some(chunk)));
    }

    /// Seals the thinking chunk `chunk` of message `index` with `metadata`, or seals it
    /// again (the last seal wins).
    pub fn seal_at(&mut self, index: usize, chunk: usize, metadata: Json) {
        let line = self.line;
        let message = &mut self.messages[index];
        if !matches!(message.chunks.chunks().get(chunk), Some(Chunk::Thinking { .. })) {
            return;
        }
        let Ok(()) = message.chunks.seal_thinking(chunk, metadata);
        message.origin.lines.1 = line;
        note(&mut message.origin, chunk, line);
        self.touched.push((index, Some(chunk)));
    }

    /// Adds `chunk` after the chunks of message `index`, whichever message it is.
    pub fn push_chunk_at(&mut self, index: usize, chunk: FormatChunk) {
        let line = self.line;
        if let Chunk::ToolBatch { calls } = &chunk {
            for call in calls {
                self.calls.insert(call.id.clone(), index);
            }
        }
        let message = &mut self.messages[index];
        let Ok(()) = message.chunks.push_chunk(chunk);
        let at = message.chunks.chunks().len() - 1;
        message.origin.lines.1 = line;
        note(&mut message.origin, at, line);
        self.touched.push((index, Some(at)));
    }

    /// Adds `call` to the tool batch at chunk `chunk` of message `index`.
    pub fn push_call_at(
        &mut self,
        index: usize,
        chunk: usize,
        call: crate::model::ToolCallEntry<Wtf8, Json>,
    ) {
        let line = self.line;
        let message = &mut self.messages[index];
        if !matches!(message.chunks.chunks().get(chunk), Some(Chunk::ToolBatch { .. })) {
            return;
        }
        self.calls.insert(call.id.clone(), index);
        let Ok(()) = message.chunks.push_call(chunk, call);
        message.origin.lines.1 = line;
        note(&mut message.origin, chunk, line);
        self.touched.push((index, Some(chunk)));
        let calls = message.chunks.chunks()[chunk].calls().map_or(0, <[_]>::len);
        self.call_touches.push(CallTouch {
            message: index,
            chunk,
            call: calls.saturating_sub(1),
            grown: None,
        });
    }

    /// Call `call` of the tool batch at chunk `chunk` of message `index`, to change in
    /// place (its id stays as it is); the chunk is reported as changed.
    pub fn call_at_mut(
        &mut self,
        index: usize,
        chunk: usize,
        call: usize,
    ) -> Option<&mut crate::model::ToolCallEntry<Wtf8, Json>> {
        let line = self.line;
        let message = self.messages.get_mut(index)?;
        message.chunks.call_at_mut(chunk, call)?;
        message.origin.lines.1 = line;
        note(&mut message.origin, chunk, line);
        self.touched.push((index, Some(chunk)));
        self.call_touches.push(CallTouch {
            message: index,
            chunk,
            call,
            grown: None,
        });
        message.chunks.call_at_mut(chunk, call)
    }

    /// Appends `delta` to the arguments text of a call (`arguments` a string, and the
    /// same string at `meta[mirror].arguments` when `mirror` is given) through `append`,
    /// which does exactly that; the chunk is reported as changed, and the growth noted
    /// ([`Folded::take_call_touches`]).
    pub fn grow_call_args(
        &mut self,
        index: usize,
        chunk: usize,
        call: usize,
        mirror: Option<&'static str>,
        append: impl FnOnce(&mut crate::model::ToolCallEntry<Wtf8, Json>),
    ) {
        let Some(entry) = self.call_at_mut(index, chunk, call) else {
            return;
        };
        let from = match &entry.arguments {
            Json::String(text) => text.as_bytes().len(),
            _ => usize::MAX,
        };
        append(entry);
        if let Some(touch) = self.call_touches.last_mut() {
            touch.grown = Some(Growth { from, mirror });
        }
    }

    /// Puts `messages` in place of every message (a stream that restates the whole
    /// conversation). When the messages keep their places (the same ids in the same
    /// order, more after them), each is changed as [`Folded::replace_chunks`] changes it
    /// and the new ones are added, so the change is reported as any other; otherwise the
    /// messages are replaced whole ([`Folded::take_reset`]).
    pub fn replace_messages(&mut self, messages: Vec<FormatMessage>) {
        let open = self.open;
        let in_place = messages.len() >= self.messages.len()
            && self
                .messages
                .iter()
                .zip(&messages)
                .all(|(old, new)| old.id == new.id && old.role == new.role);
        if in_place {
            let mut messages = messages.into_iter();
            for index in 0..self.messages.len() {
                let message = messages.next().expect("as many as before");
                self.replace_chunks(index, message.chunks);
            }
            for message in messages {
                self.add(message);
            }
            self.open = open && !self.messages.is_empty();
            return;
        }
        let line = self.line;
        let mut first: HashMap<&str, usize> = HashMap::new();
        for (i, old) in self.messages.iter().enumerate() {
            first.entry(old.id.as_str()).or_insert(i);
        }
        // A message changed since the changes were last taken is not as it was then.
        let changed: std::collections::HashSet<usize> = self.touched.iter().map(|&(m, _)| m).collect();
        let kept: Vec<Option<usize>> = messages
            .iter()
            .map(|new| {
                first.get(new.id.as_str()).copied().filter(|&i| {
                    let old = &self.messages[i];
                    !changed.contains(&i)
                        && old.role == new.role
                        && old.chunks.chunks() == new.chunks.as_slice()
                })
            })
            .collect();
        let mut old: Vec<Option<Building>> =
            std::mem::take(&mut self.messages).into_iter().map(Some).collect();
        for (message, &was) in messages.into_iter().zip(&kept) {
            let building = match was.and_then(|i| old[i].take()) {
                Some(building) => building,
                None => Building {
                    id: message.id,
                    role: message.role,
                    origin: Origin {
                        lines: (line, line),
                        chunks: vec![Some((line, line)); message.chunks.len()],
                    },
                    chunks: IndexedChunks::from(message.chunks),
                },
            };
            self.messages.push(building);
        }
        // A message kept twice (a repeated id) is the same message once; after an earlier
        // replacement not taken yet, what was before is what was before that one.
        let mut seen = vec![false; old.len()];
        let earlier = self.reset.take();
        let kept = kept
            .into_iter()
            .map(|was| was.filter(|&i| !std::mem::replace(&mut seen[i], true)))
            .map(|was| match &earlier {
                Some(earlier) => was.and_then(|i| earlier.get(i).copied().flatten()),
                None => was,
            })
            .collect();
        self.calls.clear();
        for (index, message) in self.messages.iter().enumerate() {
            for chunk in message.chunks.chunks() {
                if let Chunk::ToolBatch { calls } = chunk {
                    for call in calls {
                        self.calls.insert(call.id.clone(), index);
                    }
                }
            }
        }
        self.touched.clear();
        self.call_touches.clear();
        self.rewrites.clear();
        self.reset = Some(kept);
        self.open = open && !self.messages.is_empty();
    }

    /// Whether the messages were replaced whole since the last call, and if so, for each
    /// message now, the index it had before when it is the same message, unchanged since
    /// (messages changed after the replacement are not); what changed after it is
    /// reported by it.
    pub fn take_reset(&mut self) -> Option<Vec<Option<usize>>> {
        let mut kept = self.reset.take()?;
        // Messages added since are new; messages removed since are gone.
        kept.resize(self.messages.len(), None);
        for (index, _) in self.touched.drain(..) {
            if let Some(slot) = kept.get_mut(index) {
                *slot = None;
            }
        }
        self.call_touches.clear();
        self.rewrites.clear();
        Some(kept)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolCallEntry;

    fn text(t: &str) -> FormatChunk {
        Chunk::Text { text: Wtf8::from(t) }
    }

    fn batch(ids: &[&str]) -> FormatChunk {
        Chunk::ToolBatch {
            calls: ids
                .iter()
                .map(|id| ToolCallEntry::new(Wtf8::from(*id), Wtf8::from("f"), Json::Null))
                .collect(),
        }
    }

    fn message(id: &str, chunks: Vec<FormatChunk>) -> FormatMessage {
        ChatMessage {
            id: id.into(),
            role: MessageRole::Assistant,
            chunks,
        }
    }

    fn two() -> Folded {
        let mut folded = Folded::resume(
            "m",
            vec![message("a", vec![batch(&["c1"])]), message("b", vec![text("x")])],
        );
        folded.take_touched();
        folded
    }

    #[test]
    fn any_message_grows_in_place_and_says_which_chunk() {
        let mut folded = two();
        folded.extend_text_at(1, 0, Wtf8::from("y"));
        folded.push_call_at(
            0,
            0,
            ToolCallEntry::new(Wtf8::from("c2"), Wtf8::from("f"), Json::Null),
        );
        folded.push_chunk_at(0, text("after"));
        assert_eq!(folded.take_touched(), [(1, Some(0)), (0, Some(0)), (0, Some(1))]);
        assert!(folded.take_rewrites().is_empty());
        assert_eq!(folded.message(1).2, [text("xy")]);
        assert_eq!(folded.message(0).2, [batch(&["c1", "c2"]), text("after")]);
        assert!(folded.has_call(&Wtf8::from("c2")));
        let call = folded.call_at_mut(0, 0, 1).unwrap();
        call.name = Wtf8::from("renamed");
        assert_eq!(folded.take_touched(), [(0, Some(0))]);
        assert!(
            folded.call_at_mut(0, 1, 0).is_none(),
            "a text chunk holds no call"
        );
    }

    #[test]
    fn a_chunk_put_before_others_is_a_rewrite_from_there() {
        let mut folded = two();
        folded.splice_chunks(0, 0..0, vec![text("before")]);
        assert_eq!(folded.message(0).2, [text("before"), batch(&["c1"])]);
        assert_eq!(folded.take_touched(), [(0, Some(0)), (0, Some(1))]);
        let rewrites = folded.take_rewrites();
        assert_eq!(rewrites.len(), 1);
        assert_eq!(
            (rewrites[0].message, rewrites[0].changed, rewrites[0].from),
            (0, 0, 0)
        );
        assert_eq!(rewrites[0].old, [batch(&["c1"])]);
        // The calls are found where they went.
        assert!(folded.call_at_mut(0, 1, 0).is_some());
    }

    #[test]
    fn messages_restated_in_place_are_changes_and_additions() {
        let mut folded = two();
        folded.replace_messages(vec![
            message("a", vec![batch(&["c1"])]),
            message("b", vec![text("x, corrected")]),
            message("c", vec![text("new")]),
        ]);
        assert_eq!(folded.take_reset(), None);
        assert_eq!(folded.len(), 3);
        let touched = folded.take_touched();
        assert!(
            touched.contains(&(1, Some(0))) && touched.contains(&(2, None)),
            "{touched:?}"
        );
        assert!(
            !touched.iter().any(|&(m, _)| m == 0),
            "an unchanged message is not touched"
        );
    }

    #[test]
    fn messages_removed_or_moved_are_a_reset_that_names_what_stayed() {
        let mut folded = two();
        folded.replace_messages(vec![
            message("b", vec![text("x")]),
            message("a", vec![batch(&["c1"])]),
            message("b2", vec![text("new")]),
        ]);
        // Changed after the reset in the same push: no longer the same.
        folded.extend_text_at(0, 0, Wtf8::from("!"));
        assert_eq!(folded.take_reset(), Some(vec![None, Some(0), None]));
        assert_eq!(folded.take_touched(), []);
        assert_eq!(folded.message(0).2, [text("x!")]);
        assert!(folded.has_call(&Wtf8::from("c1")));
        folded.replace_messages(vec![message("a", vec![batch(&["c1"])])]);
        folded.add(message("later", vec![text("added after, in the same push")]));
        assert_eq!(folded.take_reset(), Some(vec![Some(1), None]));
        assert!(!folded.has_call(&Wtf8::from("nothing")));
    }

    #[test]
    fn a_message_changed_before_a_reset_in_the_same_push_is_not_kept() {
        let mut folded = two();
        folded.extend_text_at(1, 0, Wtf8::from("y"));
        folded.replace_messages(vec![
            message("b", vec![text("xy")]),
            message("a", vec![batch(&["c1"])]),
        ]);
        // And a second replacement before the changes are taken: measured from before both.
        folded.replace_messages(vec![
            message("a", vec![batch(&["c1"])]),
            message("b", vec![text("xy")]),
        ]);
        assert_eq!(folded.take_reset(), Some(vec![Some(0), None]));
    }

    #[test]
    fn a_repeated_id_keeps_its_message_once() {
        let mut folded = two();
        folded.replace_messages(vec![message("b", vec![text("x")]), message("b", vec![text("x")])]);
        assert_eq!(folded.take_reset(), Some(vec![Some(1), None]));
    }
}
