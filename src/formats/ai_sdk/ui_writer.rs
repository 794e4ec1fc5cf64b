//! A live conversation written out as an AI SDK UI message stream, as it grows: what a
//! backend on agent-chunks sends to a `useChat` frontend.
//!
//! One response is one UI message, as `useChat` keeps it: each run of assistant messages
//! (between two messages of another role) is written as one message — `start` (its first
//! message's id as `messageId`) — whose steps are its messages, each begun by `start-step`
//! before its first part and ended by `finish-step`, and a new step after each tool batch,
//! as `streamText(…).toUIMessageStream()` writes a multi-step agent turn. `finish` ends it
//! when a message of another role follows, or the stream ends; assistant messages added
//! after that `finish` with nothing between go on with the same message (`start` again
//! with its id, as the SDK continues a message). In a step, text and system chunks are
//! `text-start` / `text-delta` / `text-end` parts, thinking `reasoning-*` (the metadata on
//! `reasoning-end` as `providerMetadata`), each call `tool-input-available` and its result
//! `tool-output-available` (`tool-output-error` with the result as `errorText` when
//! `isError`), files `file`. The SDK makes of it the `UIMessage` that
//! [`super::chunks::write_messages`] writes for the messages. Error chunks and shell output
//! have no part (as there); user and system messages are the client's own and are not
//! written.
//!
//! A stream cannot take back what it wrote. A call written before its name or input were
//! known is written again, with the same `toolCallId`, while its step is the one being
//! written (the SDK updates the part in place); any other change to what was written (a
//! message replaced, a call changed after its step, the response's first message renamed)
//! sends the response whole before its `finish`, as a transient `data-message-replaced`
//! chunk for the client to put in place of the message it holds.
//!
//! What the writer has written is part of a conversation's resume state ([`UiWriter::save`]),
//! so that a backend that goes on from the state (restarted mid-stream, or handing the
//! stream to another process) writes only what is new: the chunks written before the cut
//! and those after make the same UI messages as one stream. A client reconnecting to a
//! response gets it again from its `start` ([`UiWriter::replay`]).

use std::collections::HashSet;

use crate::model::{Chunk, MessageRole, ToolCallEntry};

use super::chunks::{call_meta, carried, is_dynamic, is_provider_metadata, result_error_text};
use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::reading::fold::{Folded, Rewrite};
use crate::reading::resume::{self, count, flag, number, whole};
use crate::reading::writer::LiveWriter;

type Call = ToolCallEntry<Wtf8, Json>;

/// What has been written of one message.
#[derive(Debug, Default, Clone)]
struct Written {
    /// Its parts began to be written: it is a step (or steps) of a response.
    started: bool,
    /// All its parts were written and closed.
    finished: bool,
    /// The chunk being written; those before it are closed.
    chunk: usize,
    /// Whether that chunk's part was begun, and ended (a thinking part ends when sealed).
    begun: bool,
    ended: bool,
    /// Bytes of its text written.
    text: usize,
    /// Calls of its batch written, and the results written for them (a later result for
    /// the same call replaces the first, and is written again).
    calls: usize,
    results: Vec<Option<(Json, Json)>>,
    /// A tool batch was written since the step began.
    after_tools: bool,
    /// Thinking parts passed while not sealed: left open, so that a `reasoning-end` that
    /// comes after later chunks still carries its metadata (until the step ends).
    open_thinking: Vec<usize>,
    /// The step being written (its `start-step` sent, its `finish-step` not): the chunk
    /// it began at.
    step: Option<usize>,
    /// Each call written, as it was written (see [`fingerprint`]), in the order written.
    inputs: Vec<u64>,
}

/// The response being written: one UI message.
#[derive(Debug, Clone)]
struct Response {
    /// Its first message.
    first: usize,
    /// The `messageId` its last `start` gave it: the id the client knows it by.
    id: String,
    /// The id it went out whole under before its `finish` (see [`UiWriter::finish_response`]):
    /// the client's once it put it in place, which a client that read the `finish` did.
    renamed: Option<String>,
    /// `start` was written and `finish` not yet.
    open: bool,
    /// It changed in a way the stream cannot write: it goes out whole before `finish`.
    replaced: bool,
}

/// The writer: what it wrote so far, per message.
#[derive(Debug, Default)]
pub struct UiWriter {
    written: Vec<Written>,
    /// Messages before this one are finished and no response holds them.
    first_open: usize,
    /// The SSE end marker (`data: [DONE]`) was written after the last chunk written.
    marked: bool,
    /// Chunks decided since the last write (a message replaced after some of it was
    /// written), written first by the next.
    pending: Vec<Json>,
    /// The last response begun, while the assistant messages go on.
    response: Option<Response>,
}

/// A call's name, input and `meta` as a 64-bit FNV-1a hash: whether a call written is
/// still what was written.
fn fingerprint(call: &Call) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes.iter().chain([0xff].iter()) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(call.name.as_bytes());
    feed(&call.arguments.to_json());
    feed(&call.meta.as_ref().map(Json::to_json).unwrap_or_default());
    hash
}

/// Where the calls of chunk `j` begin in [`Written::inputs`]: the calls of the batches
/// before it.
fn calls_before(chunks: &[Chunk<Wtf8, Json>], j: usize) -> usize {
    chunks[..j.min(chunks.len())]
        .iter()
        .map(|c| batch(Some(c)).len())
        .sum()
}

/// The fingerprints of the calls of `chunks[..end]`, and of the first `calls` of
/// `chunks[end]`: what was written of them when it was written as they are now.
fn inputs_now(chunks: &[Chunk<Wtf8, Json>], end: usize, calls: usize) -> Vec<u64> {
    let mut inputs: Vec<u64> = chunks[..end.min(chunks.len())]
        .iter()
        .flat_map(|c| batch(Some(c)))
        .map(fingerprint)
        .collect();
    let current = batch(chunks.get(end));
    inputs.extend(current[..calls.min(current.len())].iter().map(fingerprint));
    inputs
}

impl Written {
    /// As plain JSON; of the results, whether the one the call has now was written; of the
    /// calls, how each was written (its fingerprint, in hexadecimal).
    fn save(&self, chunks: &[Chunk<Wtf8, Json>]) -> Json {
        let sent = match chunks.get(self.chunk) {
            Some(Chunk::ToolBatch { calls }) => self
                .results
                .iter()
                .zip(calls)
                .map(|(sent, call)| Json::Bool(sent.is_some() && *sent == call.result))
                .collect(),
            _ => Vec::new(),
        };
        Json::object([
            ("started", Json::Bool(self.started)),
            ("finished", Json::Bool(self.finished)),
            ("chunk", number(self.chunk)),
            ("begun", Json::Bool(self.begun)),
            ("ended", Json::Bool(self.ended)),
            ("text", number(self.text)),
            ("calls", number(self.calls)),
            ("sent", Json::Array(sent)),
            ("afterTools", Json::Bool(self.after_tools)),
            (
                "openThinking",
                Json::Array(self.open_thinking.iter().map(|&j| number(j)).collect()),
            ),
            ("step", self.step.map_or(Json::Null, number)),
            (
                "inputs",
                Json::Array(
                    self.inputs
                        .iter()
                        .map(|print| Json::string(format!("{print:016x}").as_str()))
                        .collect(),
                ),
            ),
        ])
    }

    /// What [`Written::save`] wrote, checked against the message's chunks. A state saved
    /// before steps were kept (no `step`) has the step it was in open from its chunk on.
    fn restore(state: &Json, chunks: &[Chunk<Wtf8, Json>]) -> Result<Self, String> {
        resume::object(state)?;
        let chunk = count(state, "chunk")?;
        if chunk > chunks.len() {
            return Err(format!(
                ".chunk {chunk} is past the message's {} chunks",
                chunks.len()
            ));
        }
        let text = count(state, "text")?;
        let calls = count(state, "calls")?;
        let (text_len, calls_len) = match chunks.get(chunk) {
            Some(Chunk::Text { text } | Chunk::System { text, .. } | Chunk::Thinking { text, .. }) => {
                (text.as_bytes().len(), 0)
            }
            Some(Chunk::ToolBatch { calls }) => (0, calls.len()),
            _ => (0, 0),
        };
        if text > text_len {
            return Err(format!(
                ".text {text} is more than the chunk's {text_len} bytes of text"
            ));
        }
        if calls > calls_len {
            return Err(format!(
                ".calls {calls} is more than the chunk's {calls_len} calls"
            ));
        }
        let results = match (state.get("sent"), chunks.get(chunk)) {
            (None | Some(Json::Null | Json::Undefined), _) => Vec::new(),
            (Some(Json::Array(sent)), _) if sent.is_empty() => Vec::new(),
            (Some(Json::Array(sent)), batch) => {
                let calls = match batch {
                    Some(Chunk::ToolBatch { calls }) if sent.len() <= calls.len() => calls,
                    _ => {
                        return Err(format!(
                            ".sent names {} calls, more than the chunk has",
                            sent.len()
                        ))
                    }
                };
                sent.iter()
                    .zip(calls)
                    .map(|(sent, call)| match sent {
                        Json::Bool(sent) => Ok(call.result.clone().filter(|_| *sent)),
                        _ => Err(".sent must hold booleans only".to_string()),
                    })
                    .collect::<Result<_, _>>()?
            }
            _ => return Err(".sent must be an array of booleans".into()),
        };
        let open_thinking = match state.get("openThinking") {
            None | Some(Json::Null | Json::Undefined) => Vec::new(),
            Some(Json::Array(items)) => items
                .iter()
                .map(|item| {
                    whole(item)
                        .filter(|&j| j < chunk && matches!(chunks.get(j), Some(Chunk::Thinking { .. })))
                })
                .collect::<Option<_>>()
                .ok_or(".openThinking must hold the indexes of thinking chunks before .chunk only")?,
            Some(_) => return Err(".openThinking must be an array of chunk indexes".into()),
        };
        let started = flag(state, "started")?;
        let finished = flag(state, "finished")?;
        let step = match state.get("step") {
            None | Some(Json::Undefined) => (started && !finished).then_some(chunk),
            Some(Json::Null) => None,
            Some(value) => Some(
                whole(value)
                    .filter(|&j| j <= chunk)
                    .ok_or(".step must be null or the index of a chunk up to .chunk")?,
            ),
        };
        // A state without them (an earlier version's): the calls as they are now.
        let inputs = match state.get("inputs") {
            None | Some(Json::Null | Json::Undefined) => inputs_now(chunks, chunk, calls),
            Some(Json::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str()
                        .filter(|hex| hex.as_bytes().len() == 16)
                        .and_then(|hex| u64::from_str_radix(&hex.to_string_lossy(), 16).ok())
                })
                .collect::<Option<_>>()
                .ok_or(".inputs must hold the calls written, as 16 hexadecimal digits each")?,
            Some(_) => return Err(".inputs must be an array".into()),
        };
        let written = calls_before(chunks, chunk) + calls;
        if inputs.len() != written {
            return Err(format!(
                ".inputs must hold the {written} calls written, not {}",
                inputs.len()
            ));
        }
        Ok(Written {
            started,
            finished,
            chunk,
            begun: flag(state, "begun")?,
            ended: flag(state, "ended")?,
            text,
            calls,
            results,
            after_tools: flag(state, "afterTools")?,
            open_thinking,
            step,
            inputs,
        })
    }
}

fn chunk(ty: &str, fields: impl IntoIterator<Item = (&'static str, Json)>) -> Json {
    let mut all = vec![(Wtf8::from("type"), Json::string(ty))];
    all.extend(fields.into_iter().map(|(k, v)| (Wtf8::from(k), v)));
    Json::Object(all)
}

fn suffix(text: &Wtf8, from: usize) -> Json {
    Json::String(text.tail_from(from))
}

fn start(id: &str) -> Json {
    chunk("start", [("messageId", Json::string(id))])
}

impl LiveWriter for UiWriter {
    fn write(&mut self, messages: &Folded, ended: bool, touched: &[(usize, Option<usize>)]) -> Vec<Json> {
        UiWriter::write(self, messages, ended, touched)
    }

    fn wants(&self, messages: &Folded, message: usize, chunk: Option<usize>) -> bool {
        UiWriter::wants(self, messages, message, chunk)
    }

    fn rewritten(&mut self, rewrite: &Rewrite, messages: &Folded) {
        UiWriter::rewritten(self, rewrite, messages)
    }

    fn replay(&mut self, messages: &Folded) {
        UiWriter::replay(self, messages)
    }

    fn save(&self, messages: &Folded, touched: &[(usize, Option<usize>)]) -> Json {
        UiWriter::save(self, messages, touched)
    }

    fn mark_end(&mut self) -> bool {
        UiWriter::mark_end(self)
    }

    fn pushed(&mut self) {
        // A response after the one marked ends with a marker of its own, though it write
        // nothing else (a turn of the user's message alone).
        self.marked = false;
    }

    fn reset(&mut self, messages: &Folded) {
        // A UI message stream cannot take messages back or move them: what was written
        // stays as it was, and the messages now count as written to their end; messages
        // added after them are written as any other.
        let done = Written {
            started: true,
            finished: true,
            ..Written::default()
        };
        self.written = vec![done; messages.len()];
        self.first_open = messages.len();
        // The response being written is over: its messages are no more where they were.
        if self.response.take().is_some_and(|r| r.open) {
            self.pending.push(chunk("finish", []));
        }
    }
}

impl UiWriter {
    /// Whether a change to chunk `j` of message `index` (`None`: its id) is for
    /// [`UiWriter::write`] to look at: a change to what was written of a message of the
    /// response — a chunk passed, the tool batch being written, any chunk of a message
    /// finished — or the response's first message renamed. Others are written, or not, as
    /// the message goes on.
    pub fn wants(&self, messages: &Folded, index: usize, j: Option<usize>) -> bool {
        let Some(response) = &self.response else {
            return false;
        };
        let Some(written) = self
            .written
            .get(index)
            .filter(|w| w.started && index >= response.first)
        else {
            return false;
        };
        match j {
            None => index == response.first,
            Some(j) => {
                written.finished
                    || j < written.chunk
                    || (j == written.chunk
                        && written.begun
                        && matches!(messages.message(index).2.get(j), Some(Chunk::ToolBatch { .. })))
            }
        }
    }

    /// What was written, as plain JSON for a resume state, with `touched` (the chunks
    /// changed since the last write).
    pub fn save(&self, messages: &Folded, touched: &[(usize, Option<usize>)]) -> Json {
        let open = self.written.iter().enumerate().skip(self.first_open);
        let response = match &self.response {
            Some(r) => Json::object([
                ("first", number(r.first)),
                ("id", Json::string(r.id.as_str())),
                ("renamed", r.renamed.as_deref().map_or(Json::Null, Json::string)),
                ("open", Json::Bool(r.open)),
                ("replaced", Json::Bool(r.replaced)),
            ]),
            None => Json::Null,
        };
        Json::object([
            ("from", number(self.first_open)),
            ("marked", Json::Bool(self.marked)),
            ("pending", Json::Array(self.pending.clone())),
            ("response", response),
            (
                "messages",
                Json::Array(open.map(|(i, w)| w.save(messages.message(i).2)).collect()),
            ),
            (
                "touched",
                Json::Array(
                    touched
                        .iter()
                        .map(|&(i, j)| Json::Array(vec![number(i), j.map_or(Json::Null, number)]))
                        .collect(),
                ),
            ),
        ])
    }

    /// What [`UiWriter::save`] wrote (`null`: nothing written), checked against `messages`;
    /// the error names the field, after `.ui`. A state saved before responses were kept
    /// (no `response`) has the message it was writing as its response.
    #[allow(clippy::type_complexity)]
    pub fn restore(state: &Json, messages: &Folded) -> Result<(Self, Vec<(usize, Option<usize>)>), String> {
        if matches!(state, Json::Null | Json::Undefined) {
            return Ok(Default::default());
        }
        resume::object(state).map_err(|e| format!(".ui{e}"))?;
        let first_open = count(state, "from").map_err(|e| format!(".ui{e}"))?;
        if first_open > messages.len() {
            return Err(format!(
                ".ui.from {first_open} is past the {} messages",
                messages.len()
            ));
        }
        // Messages before `from` were written to their end.
        let done = Written {
            started: true,
            finished: true,
            ..Written::default()
        };
        let mut written = vec![done; first_open];
        let mut replaced = false;
        match state.get("messages") {
            None | Some(Json::Null | Json::Undefined) => {}
            Some(Json::Array(items)) if first_open + items.len() <= messages.len() => {
                for (k, item) in items.iter().enumerate() {
                    let chunks = messages.message(first_open + k).2;
                    written
                        .push(Written::restore(item, chunks).map_err(|e| format!(".ui.messages[{k}]{e}"))?);
                    replaced |= flag(item, "replaced").map_err(|e| format!(".ui.messages[{k}]{e}"))?;
                }
            }
            Some(Json::Array(_)) => return Err(".ui.messages holds more messages than were given".into()),
            Some(_) => return Err(".ui.messages must be an array".into()),
        }
        let response = match state.get("response") {
            None | Some(Json::Undefined) => written
                .iter()
                .position(|w| w.started && !w.finished)
                .filter(|&i| messages.message(i).1 == MessageRole::Assistant)
                .map(|first| Response {
                    first,
                    id: messages.message(first).0.to_string(),
                    renamed: None,
                    open: true,
                    replaced,
                }),
            Some(Json::Null) => None,
            Some(r) => {
                resume::object(r).map_err(|e| format!(".ui.response{e}"))?;
                let first = count(r, "first").map_err(|e| format!(".ui.response{e}"))?;
                if first < first_open || first >= written.len().max(first_open + 1) || first >= messages.len()
                {
                    return Err(".ui.response.first must be a message of .ui.messages".into());
                }
                Some(Response {
                    first,
                    id: resume::text(r, "id")
                        .map_err(|e| format!(".ui.response{e}"))?
                        .to_string_lossy()
                        .into_owned(),
                    renamed: resume::optional_text(r, "renamed")
                        .map_err(|e| format!(".ui.response{e}"))?
                        .map(|id| id.to_string_lossy().into_owned()),
                    open: flag(r, "open").map_err(|e| format!(".ui.response{e}"))?,
                    replaced: flag(r, "replaced").map_err(|e| format!(".ui.response{e}"))?,
                })
            }
        };
        let touched = match state.get("touched") {
            None | Some(Json::Null | Json::Undefined) => Vec::new(),
            Some(Json::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Json::Array(pair) => match pair.as_slice() {
                        [i, Json::Null] => whole(i).map(|i| (i, None)),
                        [i, j] => whole(i).zip(whole(j)).map(|(i, j)| (i, Some(j))),
                        _ => None,
                    }
                    .filter(|&(i, _)| i < messages.len()),
                    _ => None,
                })
                .collect::<Option<_>>()
                .ok_or(".ui.touched must hold [message, chunk] pairs of the messages given")?,
            Some(_) => return Err(".ui.touched must be an array".into()),
        };
        let marked = flag(state, "marked").map_err(|e| format!(".ui{e}"))?;
        let pending = match state.get("pending") {
            None | Some(Json::Null | Json::Undefined) => Vec::new(),
            Some(Json::Array(items)) if items.iter().all(|c| matches!(c, Json::Object(_))) => items.clone(),
            Some(_) => return Err(".ui.pending must be an array of UI message chunks".into()),
        };
        Ok((
            UiWriter {
                written,
                first_open,
                marked,
                pending,
                response,
            },
            touched,
        ))
    }

    /// Forgets what was written of the last response, so that the next write sends it
    /// again from its `start`: for a client that reconnects to it (`useChat`'s
    /// `resumeStream()`, whose transport takes a resumed stream as the response replayed
    /// from its start, as the SDK's resumable streams send it).
    pub fn replay(&mut self, messages: &Folded) {
        if let Some(response) = self.response.as_mut() {
            for written in self.written.iter_mut().skip(response.first) {
                *written = Written::default();
            }
            self.first_open = response.first;
            // Begun again under the id of its `start`, which a client that did not read its
            // `finish` has (one that did has the id it was sent whole with, and drops that
            // message when this one is put in place: see docs/live.md); renamed since, it
            // goes out whole before its `finish`, under its name now.
            response.renamed = None;
            response.open = false;
            response.replaced =
                response.first < messages.len() && messages.message(response.first).0 != response.id;
        }
        self.pending.clear();
        self.marked = false;
    }

    /// The UI message stream chunks for what `messages` gained since the last call; with
    /// `done`, every message is finished (the stream ended).
    /// `touched` are the chunks changed since that [`UiWriter::wants`] looks at.
    pub fn write(&mut self, messages: &Folded, done: bool, touched: &[(usize, Option<usize>)]) -> Vec<Json> {
        let mut out = std::mem::take(&mut self.pending);
        self.written.resize(messages.len(), Written::default());
        for &(index, j) in touched {
            self.correct(messages, index, j, &mut out);
        }
        for index in self.first_open..messages.len() {
            let (id, role, _) = messages.message(index);
            if role != MessageRole::Assistant {
                // The response before it is over; the client holds this message itself.
                self.finish_response(messages, index, &mut out);
                self.response = None;
                self.written[index] = Written {
                    started: true,
                    finished: true,
                    ..Written::default()
                };
                continue;
            }
            if self.written[index].finished {
                continue;
            }
            self.open_response(index, id, &mut out);
            let finished = done || index + 1 < messages.len();
            write_message(messages, index, &mut self.written[index], finished, &mut out);
        }
        if done {
            self.finish_response(messages, messages.len(), &mut out);
        }
        self.first_open = match &self.response {
            Some(response) => response.first,
            None => messages.len().saturating_sub(usize::from(!done)),
        };
        self.marked &= out.is_empty();
        out
    }

    /// `start`s the response that message `index` (an assistant message) is a step of,
    /// unless it is being written: a new one, or the last one again (its `finish` was
    /// written, then more came) under the id the client has for it.
    fn open_response(&mut self, index: usize, id: &str, out: &mut Vec<Json>) {
        match &mut self.response {
            Some(response) if response.open => {}
            Some(response) => {
                // Going on after its `finish` (a next request): the client has it under the
                // id it was sent whole with, if it was.
                if let Some(renamed) = response.renamed.take() {
                    response.id = renamed;
                }
                out.push(start(&response.id));
                response.open = true;
            }
            None => {
                out.push(start(id));
                self.response = Some(Response {
                    first: index,
                    id: id.to_string(),
                    renamed: None,
                    open: true,
                    replaced: false,
                });
            }
        }
    }

    /// The response's `finish` (its messages before `end` are finished), after the whole
    /// response when it changed in a way its stream could not say.
    fn finish_response(&mut self, messages: &Folded, end: usize, out: &mut Vec<Json>) {
        let Some(response) = self.response.as_mut().filter(|r| r.open) else {
            return;
        };
        if response.replaced {
            let group: Vec<_> = (response.first..end)
                .map(|i| crate::reading::fold::owned_message(messages, i))
                .collect();
            if let Some(data) = super::chunks::write_messages(&group).into_iter().next() {
                let now = messages.message(response.first).0.to_string();
                out.push(chunk(
                    "data-message-replaced",
                    [
                        ("id", Json::string(response.id.as_str())),
                        ("data", data),
                        ("transient", Json::Bool(true)),
                    ],
                ));
                // The client puts it in place: it knows the message by its id now.
                response.renamed = Some(now);
            }
            response.replaced = false;
        }
        out.push(chunk("finish", []));
        response.open = false;
    }

    /// A change to what was written of message `index` (see [`UiWriter::wants`]): a result
    /// of a call written, a call written again while its step is being written, else the
    /// response marked to go out whole.
    fn correct(&mut self, messages: &Folded, index: usize, j: Option<usize>, out: &mut Vec<Json>) {
        if !self.wants(messages, index, j) {
            return;
        }
        let (id, _, chunks) = messages.message(index);
        let mut replaced = false;
        let mut reopen = Vec::new();
        let written = &mut self.written[index];
        match (j, j.and_then(|j| chunks.get(j))) {
            (None, _) => {
                replaced = self
                    .response
                    .as_ref()
                    .is_some_and(|r| r.renamed.as_deref().unwrap_or(&r.id) != id)
            }
            (Some(j), Some(Chunk::ToolBatch { calls })) => {
                let in_step = !written.finished && written.step.is_some_and(|from| j >= from);
                let base = calls_before(chunks, j);
                let count = if j == written.chunk && !written.finished {
                    written.calls
                } else {
                    calls.len()
                };
                for (k, call) in calls.iter().enumerate().take(count) {
                    let print = fingerprint(call);
                    match written.inputs.get_mut(base + k) {
                        Some(sent) if *sent == print => {}
                        Some(sent) if in_step => {
                            reopen.push(input(call));
                            *sent = print;
                            if j == written.chunk {
                                if let Some(slot) = written.results.get_mut(k) {
                                    *slot = None;
                                }
                                continue;
                            }
                        }
                        _ => replaced = true,
                    }
                    if j != written.chunk || written.finished {
                        reopen.extend(answer(call).map(|result| output(call, result)));
                    }
                }
                replaced |= count < calls.len() && (j != written.chunk || written.finished);
            }
            // A thinking part left open takes its seal when it comes.
            (Some(j), Some(Chunk::Thinking { .. })) if written.open_thinking.contains(&j) => {}
            (Some(_), Some(_)) => replaced = true,
            (Some(_), None) => {}
        }
        if reopen.is_empty() && !replaced {
            return;
        }
        if let Some(response) = self.response.as_mut() {
            if !response.open {
                out.push(start(&response.id));
                response.open = true;
            }
            response.replaced |= replaced;
        }
        out.extend(reopen);
    }

    /// A message's chunks were replaced (see [`Rewrite`]). When that changes what was
    /// written of it — a part already closed, or the one being written — the stream cannot
    /// take it back. The parts still open are closed, the calls not written yet are
    /// written (so that their results can follow), and the response goes out whole before
    /// its `finish` (see [`UiWriter::finish_response`]). Otherwise its new chunks are
    /// written as they come.
    pub fn rewritten(&mut self, rewrite: &Rewrite, messages: &Folded) {
        let Some(written) = self.written.get_mut(rewrite.message) else {
            return;
        };
        let contradicted = written.started
            && (written.finished
                || rewrite.changed < written.chunk
                || (rewrite.from == written.chunk && written.begun));
        if !contradicted {
            return;
        }
        if let Some(response) = self.response.as_mut() {
            response.replaced = true;
        }
        if written.finished {
            // The response goes out whole at its end: what is kept of the message is made
            // to match its new chunks, all written, so that a state saved now is one that
            // can be taken back (its calls are the calls the message holds).
            let (_, _, chunks) = messages.message(rewrite.message);
            written.chunk = chunks.len();
            written.calls = 0;
            written.results.clear();
            written.inputs = inputs_now(chunks, chunks.len(), 0);
            return;
        }
        let index = rewrite.message;
        let now = messages.message(index).2;
        let before = |j: usize| match j.checked_sub(rewrite.changed) {
            None => now.get(j),
            Some(k) => rewrite.old.get(k),
        };
        let part_id = |j: usize| Json::String(Wtf8::from(format!("{index}-{j}").as_str()));
        let out = &mut self.pending;
        for j in std::mem::take(&mut written.open_thinking) {
            end_thinking(j, None, &part_id, out);
        }
        if written.begun {
            let j = written.chunk;
            match before(j) {
                Some(Chunk::Text { .. } | Chunk::System { .. }) => {
                    out.push(chunk("text-end", [("id", part_id(j))]))
                }
                Some(Chunk::Thinking { .. }) if !written.ended => end_thinking(j, None, &part_id, out),
                _ => {}
            }
        }
        let mut sent: HashSet<&Wtf8> = (0..written.chunk)
            .flat_map(|j| batch(before(j)))
            .map(|call| &call.id)
            .collect();
        let current = batch(before(written.chunk));
        sent.extend(
            current[..written.calls.min(current.len())]
                .iter()
                .map(|call| &call.id),
        );
        let mut fresh = false;
        for call in now.iter().flat_map(|c| batch(Some(c))) {
            if !sent.contains(&call.id) {
                if !fresh && written.step.is_none() {
                    out.push(chunk("start-step", []));
                }
                fresh = true;
                out.push(input(call));
            }
        }
        // The message so far counts as written: what it gains is written as parts, the
        // results of its last batch as they come (of an earlier one, as they change).
        let step = written.step.or(fresh.then_some(0));
        let last = now.len().checked_sub(1);
        *written = match (last, now.last()) {
            (Some(last), Some(Chunk::ToolBatch { calls })) => Written {
                chunk: last,
                begun: true,
                calls: calls.len(),
                results: vec![None; calls.len()],
                after_tools: true,
                ..Written::default()
            },
            _ => Written {
                chunk: now.len(),
                after_tools: written.after_tools || fresh,
                ..Written::default()
            },
        };
        written.started = true;
        // Only what is written from here on is in the step: nothing before is corrected in place.
        written.step = step.map(|_| written.chunk);
        written.inputs = inputs_now(now, written.chunk, written.calls);
    }

    /// Whether the SSE end marker is to be written now, the stream having ended: once
    /// after the last chunk written (a conversation resumed from a state saved after
    /// the marker does not write it again).
    pub fn mark_end(&mut self) -> bool {
        !std::mem::replace(&mut self.marked, true)
    }
}

/// A thinking chunk's seal (its metadata), when it has one.
fn sealed(chunk: &Chunk<Wtf8, Json>) -> Option<&Json> {
    match chunk {
        Chunk::Thinking { metadata, .. } => metadata.as_ref().filter(|m| !matches!(m, Json::Undefined)),
        _ => None,
    }
}

/// The `reasoning-end` of thinking part `j`, with its seal as `providerMetadata` (when the
/// SDK's schema takes it).
fn end_thinking(j: usize, seal: Option<&Json>, part_id: &impl Fn(usize) -> Json, out: &mut Vec<Json>) {
    let mut fields = vec![("id", part_id(j))];
    fields.extend(
        seal.filter(|m| is_provider_metadata(m))
            .map(|m| ("providerMetadata", m.clone())),
    );
    out.push(chunk("reasoning-end", fields));
}

/// The calls of a tool batch (none for another chunk).
fn batch(chunk: Option<&Chunk<Wtf8, Json>>) -> &[Call] {
    match chunk {
        Some(Chunk::ToolBatch { calls }) => calls,
        _ => &[],
    }
}

/// A call as its UI chunk (with the `meta` a `UIMessage` part keeps of it).
fn input(call: &Call) -> Json {
    let mut fields = vec![
        ("toolCallId", Json::String(call.id.clone())),
        ("toolName", Json::String(call.name.clone())),
        ("input", carried(&call.arguments)),
    ];
    if is_dynamic(call.meta.as_ref()) {
        fields.push(("dynamic", Json::Bool(true)));
    }
    for (key, value) in call_meta(call.meta.as_ref()) {
        match key {
            "callProviderMetadata" => fields.push(("providerMetadata", value)),
            "resultProviderMetadata" => {}
            key => fields.push((key, value)),
        }
    }
    chunk("tool-input-available", fields)
}

/// A call's result, if it has one a reload can see: a `tool-result` that carried neither a
/// result nor `isError` leaves nothing in the message's JSON (both `undefined`), so the
/// reloaded call is unanswered, and the stream writes no output for it either.
fn answer(call: &Call) -> Option<&(Json, Json)> {
    call.result
        .as_ref()
        .filter(|(result, is_error)| !matches!((result, is_error), (Json::Undefined, Json::Undefined)))
}

/// A call's result as its UI chunk.
fn output(call: &Call, (result, is_error): &(Json, Json)) -> Json {
    let mut fields = vec![("toolCallId", Json::String(call.id.clone()))];
    let error = matches!(is_error, Json::Bool(true));
    if error {
        fields.push(("errorText", Json::String(result_error_text(result))));
    } else {
        fields.push(("output", carried(result)));
    }
    fields.extend(
        call_meta(call.meta.as_ref())
            .into_iter()
            .filter(|(key, _)| *key == "resultProviderMetadata")
            .map(|(_, value)| ("providerMetadata", value)),
    );
    chunk(
        if error {
            "tool-output-error"
        } else {
            "tool-output-available"
        },
        fields,
    )
}

/// Writes what message `index` (an assistant message of the response being written)
/// gained; with `finished`, to its end.
fn write_message(
    messages: &Folded,
    index: usize,
    written: &mut Written,
    finished: bool,
    out: &mut Vec<Json>,
) {
    let chunks = messages.message(index).2;
    let part_id = |j: usize| Json::String(Wtf8::from(format!("{index}-{j}").as_str()));
    written.started = true;
    // Thinking parts left open end once sealed, or with the message.
    let open = std::mem::take(&mut written.open_thinking);
    for j in open {
        if sealed(&chunks[j]).is_some() || finished {
            end_thinking(j, sealed(&chunks[j]), &part_id, out);
        } else {
            written.open_thinking.push(j);
        }
    }
    while written.chunk < chunks.len() {
        let j = written.chunk;
        let last = j + 1 == chunks.len();
        let closing = !last || finished;
        if !written.begun && !matches!(chunks[j], Chunk::Error { .. }) {
            if std::mem::take(&mut written.after_tools) && written.step.is_some() {
                // The SDK forgets a step's open parts when it finishes: they end with it.
                for j in std::mem::take(&mut written.open_thinking) {
                    end_thinking(j, sealed(&chunks[j]), &part_id, out);
                }
                out.push(chunk("finish-step", []));
                written.step = None;
            }
            if written.step.is_none() {
                out.push(chunk("start-step", []));
                written.step = Some(j);
            }
        }
        match &chunks[j] {
            Chunk::Text { text } | Chunk::System { text, .. } => {
                if !written.begun {
                    out.push(chunk("text-start", [("id", part_id(j))]));
                }
                if text.as_bytes().len() > written.text {
                    out.push(chunk(
                        "text-delta",
                        [("id", part_id(j)), ("delta", suffix(text, written.text))],
                    ));
                    written.text = text.as_bytes().len();
                }
                if closing {
                    out.push(chunk("text-end", [("id", part_id(j))]));
                }
            }
            Chunk::Thinking { text, .. } => {
                if !written.begun {
                    out.push(chunk("reasoning-start", [("id", part_id(j))]));
                }
                if text.as_bytes().len() > written.text {
                    out.push(chunk(
                        "reasoning-delta",
                        [("id", part_id(j)), ("delta", suffix(text, written.text))],
                    ));
                    written.text = text.as_bytes().len();
                }
                let seal = sealed(&chunks[j]);
                if !written.ended && (seal.is_some() || (closing && finished)) {
                    end_thinking(j, seal, &part_id, out);
                    written.ended = true;
                } else if !written.ended && closing {
                    // Passed unsealed: a reasoning end may still come for it.
                    written.open_thinking.push(j);
                    written.ended = true;
                }
            }
            Chunk::ToolBatch { calls } => {
                for call in calls.get(written.calls..).unwrap_or_default() {
                    out.push(input(call));
                    written.inputs.push(fingerprint(call));
                }
                written.calls = calls.len();
                written.results.resize(calls.len(), None);
                for (call, sent) in calls.iter().zip(written.results.iter_mut()) {
                    let Some((result, is_error)) = answer(call).filter(|&r| sent.as_ref() != Some(r)) else {
                        continue;
                    };
                    *sent = call.result.clone();
                    out.push(output(call, &(result.clone(), is_error.clone())));
                }
                written.after_tools = true;
            }
            Chunk::File {
                media_type,
                data,
                url,
                ..
            } => {
                if !written.begun {
                    let url = super::chunks::file_url(media_type, data.as_ref(), url.as_ref());
                    out.push(chunk(
                        "file",
                        [
                            ("url", Json::String(url)),
                            ("mediaType", Json::String(media_type.clone())),
                        ],
                    ));
                }
            }
            Chunk::Error { .. } => {}
        }
        written.begun = true;
        if !closing {
            return;
        }
        *written = Written {
            chunk: j + 1,
            after_tools: written.after_tools,
            started: true,
            open_thinking: std::mem::take(&mut written.open_thinking),
            step: written.step,
            inputs: std::mem::take(&mut written.inputs),
            ..Written::default()
        };
    }
    if finished {
        for j in std::mem::take(&mut written.open_thinking) {
            end_thinking(j, sealed(&chunks[j]), &part_id, out);
        }
        if written.step.take().is_some() {
            out.push(chunk("finish-step", []));
        }
        written.after_tools = false;
        written.finished = true;
    }
}
