//! A live conversation written out as an AI SDK UI message stream, as it grows: what a
//! backend on agent-chunks sends to a `useChat` frontend.
//!
//! Each assistant message is one UI message: `start` (its id as `messageId`) and
//! `start-step`, then its chunks as parts — text and system chunks as `text-start` /
//! `text-delta` / `text-end`, thinking as `reasoning-*` (the metadata on `reasoning-end`
//! as `providerMetadata`), each call as `tool-input-available` and its result as
//! `tool-output-available` (`tool-output-error` with the result as `errorText` when
//! `isError`), files as `file` — and `finish-step` / `start-step` after a tool batch, and
//! `finish-step` / `finish` once the message is done. The SDK's `readUIMessageStream` makes
//! of it the `UIMessage` that [`crate::formats::ai_sdk::chunks::write_message`] writes for the message.
//! Error chunks and shell output have no part (as there); user and system messages are the
//! client's own and are not written.
//!
//! What the writer has written is part of a conversation's resume state ([`UiWriter::save`]),
//! so that a backend that goes on from the state (restarted mid-stream, or handing the
//! stream to another process) writes only what is new: the chunks written before the cut
//! and those after make the same UI messages as one stream.

use std::collections::HashSet;

use crate::model::{Chunk, MessageRole};

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::reading::fold::{Folded, Rewrite};
use crate::reading::resume::{self, count, flag, number, whole};
use crate::reading::writer::LiveWriter;

/// What has been written of one message.
#[derive(Debug, Default, Clone)]
struct Written {
    started: bool,
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
    /// Its chunks were replaced after some were written (see [`UiWriter::rewritten`]):
    /// it goes out whole once finished.
    replaced: bool,
}

/// The writer: what it wrote so far, per message.
#[derive(Debug, Default)]
pub struct UiWriter {
    written: Vec<Written>,
    /// Messages before this one are finished.
    first_open: usize,
    /// The SSE end marker (`data: [DONE]`) was written after the last chunk written.
    marked: bool,
    /// Chunks decided since the last write (a message replaced after some of it was
    /// written), written first by the next.
    pending: Vec<Json>,
}

impl Written {
    /// As plain JSON; of the results, whether the one the call has now was written.
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
            ("replaced", Json::Bool(self.replaced)),
            (
                "openThinking",
                Json::Array(self.open_thinking.iter().map(|&j| number(j)).collect()),
            ),
        ])
    }

    /// What [`Written::save`] wrote, checked against the message's chunks.
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
        Ok(Written {
            started: flag(state, "started")?,
            finished: flag(state, "finished")?,
            chunk,
            begun: flag(state, "begun")?,
            ended: flag(state, "ended")?,
            text,
            calls,
            results,
            after_tools: flag(state, "afterTools")?,
            open_thinking,
            replaced: flag(state, "replaced")?,
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

impl LiveWriter for UiWriter {
    fn write(&mut self, messages: &Folded, ended: bool, touched: &[(usize, usize)]) -> Vec<Json> {
        UiWriter::write(self, messages, ended, touched)
    }

    fn wants(&self, message: usize, chunk: usize) -> bool {
        UiWriter::wants(self, message, chunk)
    }

    fn rewritten(&mut self, rewrite: &Rewrite, messages: &Folded) {
        UiWriter::rewritten(self, rewrite, messages)
    }

    fn save(&self, messages: &Folded, touched: &[(usize, usize)]) -> Json {
        UiWriter::save(self, messages, touched)
    }

    fn mark_end(&mut self) -> bool {
        UiWriter::mark_end(self)
    }
}

impl UiWriter {
    /// Whether a change to chunk `j` of message `index` is for [`UiWriter::write`] to
    /// look at: a chunk already passed of a message being written (a result that landed
    /// on an earlier tool batch). Others are written, or not, as the message goes on.
    pub fn wants(&self, index: usize, j: usize) -> bool {
        self.written
            .get(index)
            .is_some_and(|w| w.started && !w.finished && j < w.chunk)
    }

    /// What was written, as plain JSON for a resume state, with `touched` (the chunks
    /// changed since the last write).
    pub fn save(&self, messages: &Folded, touched: &[(usize, usize)]) -> Json {
        let open = self.written.iter().enumerate().skip(self.first_open);
        Json::object([
            ("from", number(self.first_open)),
            ("marked", Json::Bool(self.marked)),
            ("pending", Json::Array(self.pending.clone())),
            (
                "messages",
                Json::Array(open.map(|(i, w)| w.save(messages.message(i).2)).collect()),
            ),
            (
                "touched",
                Json::Array(
                    touched
                        .iter()
                        .map(|&(i, j)| Json::Array(vec![number(i), number(j)]))
                        .collect(),
                ),
            ),
        ])
    }

    /// What [`UiWriter::save`] wrote (`null`: nothing written), checked against `messages`;
    /// the error names the field, after `.ui`.
    pub fn restore(state: &Json, messages: &Folded) -> Result<(Self, Vec<(usize, usize)>), String> {
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
        match state.get("messages") {
            None | Some(Json::Null | Json::Undefined) => {}
            Some(Json::Array(items)) if first_open + items.len() <= messages.len() => {
                for (k, item) in items.iter().enumerate() {
                    let chunks = messages.message(first_open + k).2;
                    written
                        .push(Written::restore(item, chunks).map_err(|e| format!(".ui.messages[{k}]{e}"))?);
                }
            }
            Some(Json::Array(_)) => return Err(".ui.messages holds more messages than were given".into()),
            Some(_) => return Err(".ui.messages must be an array".into()),
        }
        let touched = match state.get("touched") {
            None | Some(Json::Null | Json::Undefined) => Vec::new(),
            Some(Json::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Json::Array(pair) => match pair.as_slice() {
                        [i, j] => whole(i).zip(whole(j)).filter(|&(i, _)| i < messages.len()),
                        _ => None,
                    },
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
            },
            touched,
        ))
    }

    /// The UI message stream chunks for what `messages` gained since the last call; with
    /// `done`, every message is finished (the stream ended).
    /// `touched` are the chunks changed since: a result that landed on a call of a batch
    /// already written (a message's earlier batch) is written then.
    pub fn write(&mut self, messages: &Folded, done: bool, touched: &[(usize, usize)]) -> Vec<Json> {
        let mut out = std::mem::take(&mut self.pending);
        self.written.resize(messages.len(), Written::default());
        for &(index, j) in touched {
            let written = &self.written[index];
            if !written.started || written.finished || j >= written.chunk {
                continue;
            }
            // (A chunk since removed, by a message replaced, has nothing to write.)
            if let Some(Chunk::ToolBatch { calls }) = messages.message(index).2.get(j) {
                for call in calls {
                    out.extend(call.result.as_ref().map(|result| output(call, result)));
                }
            }
        }
        for index in self.first_open..messages.len() {
            let finished = done || index + 1 < messages.len();
            write_message(messages, index, &mut self.written[index], finished, &mut out);
        }
        self.first_open = messages.len().saturating_sub(usize::from(!done));
        self.marked &= out.is_empty();
        out
    }

    /// A message's chunks were replaced (see [`Rewrite`]). When that changes what was
    /// written of it — a part already closed, or the one being written — the stream cannot
    /// take it back. The parts still open are closed, the calls not written yet are
    /// written (so that their results can follow), and once the message is finished it
    /// goes out whole as a transient `data-message-replaced` chunk before its `finish`
    /// (the SDK hands it to `onData` and keeps it out of the message; a client puts it in
    /// place of the message with the same id). Otherwise its new chunks are written as
    /// they come.
    pub fn rewritten(&mut self, rewrite: &Rewrite, messages: &Folded) {
        let Some(written) = self.written.get_mut(rewrite.message) else {
            return;
        };
        let contradicted = written.started
            && !written.finished
            && (rewrite.changed < written.chunk || (rewrite.from == written.chunk && written.begun));
        if !contradicted {
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
        for call in now.iter().flat_map(|c| batch(Some(c))) {
            if !sent.contains(&call.id) {
                out.push(input(call));
            }
        }
        // The message so far counts as written: what it gains is written as parts, the
        // results of its last batch as they come (of an earlier one, as they change).
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
                after_tools: written.after_tools,
                ..Written::default()
            },
        };
        written.started = true;
        written.replaced = true;
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

/// The `reasoning-end` of thinking part `j`, with its seal as `providerMetadata`.
fn end_thinking(j: usize, seal: Option<&Json>, part_id: &impl Fn(usize) -> Json, out: &mut Vec<Json>) {
    let mut fields = vec![("id", part_id(j))];
    fields.extend(seal.map(|m| ("providerMetadata", m.clone())));
    out.push(chunk("reasoning-end", fields));
}

/// The calls of a tool batch (none for another chunk).
fn batch(chunk: Option<&Chunk<Wtf8, Json>>) -> &[crate::model::ToolCallEntry<Wtf8, Json>] {
    match chunk {
        Some(Chunk::ToolBatch { calls }) => calls,
        _ => &[],
    }
}

/// A call as its UI chunk.
fn input(call: &crate::model::ToolCallEntry<Wtf8, Json>) -> Json {
    chunk(
        "tool-input-available",
        [
            ("toolCallId", Json::String(call.id.clone())),
            ("toolName", Json::String(call.name.clone())),
            ("input", call.arguments.clone()),
        ],
    )
}

/// A call's result as its UI chunk.
fn output(call: &crate::model::ToolCallEntry<Wtf8, Json>, (result, is_error): &(Json, Json)) -> Json {
    let id = ("toolCallId", Json::String(call.id.clone()));
    match is_error {
        Json::Bool(true) => {
            let text = match result {
                Json::String(text) => text.clone(),
                other => Wtf8::from_wtf8_unchecked(other.to_json()),
            };
            chunk("tool-output-error", [id, ("errorText", Json::String(text))])
        }
        _ => chunk("tool-output-available", [id, ("output", result.clone())]),
    }
}

fn write_message(
    messages: &Folded,
    index: usize,
    written: &mut Written,
    finished: bool,
    out: &mut Vec<Json>,
) {
    let (id, role, chunks) = messages.message(index);
    if role != MessageRole::Assistant || written.finished {
        return;
    }
    let part_id = |j: usize| Json::String(Wtf8::from(format!("{index}-{j}").as_str()));
    if !written.started {
        out.push(chunk("start", [("messageId", Json::string(id))]));
        out.push(chunk("start-step", []));
        written.started = true;
    }
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
        if !written.begun && written.after_tools && !matches!(chunks[j], Chunk::Error { .. }) {
            // The SDK forgets a step's open parts when it finishes: they end with it.
            for j in std::mem::take(&mut written.open_thinking) {
                end_thinking(j, sealed(&chunks[j]), &part_id, out);
            }
            out.push(chunk("finish-step", []));
            out.push(chunk("start-step", []));
            written.after_tools = false;
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
                }
                written.calls = calls.len();
                written.results.resize(calls.len(), None);
                for (call, sent) in calls.iter().zip(written.results.iter_mut()) {
                    let Some((result, is_error)) = call.result.as_ref().filter(|&r| sent.as_ref() != Some(r))
                    else {
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
                    let url =
                        crate::formats::ai_sdk::chunks::file_url(media_type, data.as_ref(), url.as_ref());
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
            replaced: written.replaced,
            ..Written::default()
        };
    }
    if finished {
        for j in std::mem::take(&mut written.open_thinking) {
            end_thinking(j, sealed(&chunks[j]), &part_id, out);
        }
        if written.replaced {
            let message = crate::reading::fold::owned_message(messages, index);
            out.push(chunk(
                "data-message-replaced",
                [
                    ("id", Json::string(id)),
                    ("data", crate::formats::ai_sdk::chunks::write_message(&message)),
                    ("transient", Json::Bool(true)),
                ],
            ));
        }
        out.push(chunk("finish-step", []));
        out.push(chunk("finish", []));
        written.finished = true;
    }
}
