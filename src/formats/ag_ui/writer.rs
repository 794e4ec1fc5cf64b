//! A live conversation written out as AG-UI events as it grows: what a backend on
//! agent-chunks sends a CopilotKit (or any `@ag-ui/client`) frontend.
//!
//! Each message is written as its pieces ([`crate::formats::ag_ui::pieces`]), with the ids
//! and markers [`crate::formats::ag_ui::messages`] gives them, so that the client, fed what
//! was written so far, holds `agUi.fromMessages` of the messages so far:
//!
//! - text: `TEXT_MESSAGE_START`, a `TEXT_MESSAGE_CONTENT` per growth, `TEXT_MESSAGE_END`
//!   once the piece is passed (a later piece began, or the message is finished);
//! - thinking: the same as `REASONING_START` / `REASONING_MESSAGE_*` / `REASONING_END`, its
//!   seal as `REASONING_ENCRYPTED_VALUE` (an AG-UI `encryptedValue`) or in the marker;
//! - each call: `TOOL_CALL_START` on its piece, its arguments in one `TOOL_CALL_ARGS`,
//!   `TOOL_CALL_END`; its result a `TOOL_CALL_RESULT` when it lands, also on a piece passed;
//! - system, error and file chunks: `ACTIVITY_SNAPSHOT`s; an error chunk also ends the run
//!   with `RUN_ERROR` (the way the client shows errors), and what follows starts another;
//! - a user message begins a run of its own: `RUN_FINISHED`, then `RUN_STARTED` with the
//!   message in its `input` (the client adds it unless it has it).
//!
//! A piece passed and reopened (text grown after it ended) is started again: the client
//! goes on with the message it has. What events cannot say — a message rewritten or
//! renamed, messages removed or moved, a call's arguments or result replaced — is said
//! by restating the messages: a `MESSAGES_SNAPSHOT` of those before the first that
//! changed (the client drops the rest), then one of all of them (the client appends
//! what it dropped, in order).
//!
//! Messages the conversation was given count as written: they are the request's input,
//! which the client holds. What was written is part of the resume state (`agUi`).

use std::collections::HashMap;

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::ag_ui::events::Type;
use crate::formats::ag_ui::messages::{self, ACTIVITY_TYPES, MARKER};
use crate::formats::ag_ui::pieces::{self, Kind, Piece};
use crate::model::{Chunk, MessageRole, ToolCallEntry};
use crate::reading::fold::{Folded, Rewrite};
use crate::reading::model_json::FormatChunk;
use crate::reading::resume::{self, count, flag, number};
use crate::reading::writer::{LiveWriter, Restored};

/// What was written of a call.
#[derive(Debug, Clone, PartialEq)]
struct CallWritten {
    id: Wtf8,
    name: Wtf8,
    args: Wtf8,
    /// Its `meta` when written (what it says of the call: metadata, `encryptedValue`).
    meta: Option<Json>,
    /// Its shell output's marker when written.
    shell: Option<Json>,
    /// Its result when written, as its `tool` message.
    result: Option<Json>,
    /// Started and not ended: its arguments are still streaming.
    open: bool,
}

/// Whether a call's arguments are still streaming: they are their text, not parsed (an
/// AG-UI call before its end). Written, it is left open until they are parsed.
fn streaming(call: &ToolCallEntry<Wtf8, Json>) -> bool {
    match (
        &call.arguments,
        messages::call_meta(call).and_then(|m| m.get("arguments")),
    ) {
        (Json::String(text), Some(Json::String(raw))) => text == raw,
        _ => false,
    }
}

/// What was written of a piece.
#[derive(Debug, Clone, PartialEq)]
struct PieceWritten {
    kind: Kind,
    /// Bytes of its text or thinking written.
    text: usize,
    /// Its text or thinking was started and not ended.
    open: bool,
    seal: Option<Json>,
    calls: Vec<CallWritten>,
    /// An activity's content.
    activity: Option<Json>,
    /// A piece written whole as a run's input (a user message of parts): the message.
    fixed: Option<Json>,
}

/// What was written of a message.
#[derive(Debug, Clone, Default, PartialEq)]
struct Written {
    /// The id it was written under.
    id: String,
    pieces: Vec<PieceWritten>,
    /// Written to its end: nothing of it is open.
    finished: bool,
    /// Chunks its pieces covered when it was last written.
    covered: usize,
}

/// Whether a value was written, and whether it is still what was written (a resume state
/// keeps this of what it does not copy).
fn tri(written: &Option<Json>, now: Option<&Json>) -> Json {
    match (written, now) {
        (None, _) => Json::Null,
        (Some(w), Some(n)) if w == n => Json::Bool(true),
        _ => Json::Bool(false),
    }
}

/// What [`tri`] wrote, with the value now: a stale value stands for one written that
/// differs.
fn untri(state: Option<&Json>, now: Option<Json>) -> Result<Option<Json>, String> {
    match state {
        None | Some(Json::Null | Json::Undefined) => Ok(None),
        Some(Json::Bool(true)) => Ok(now),
        Some(Json::Bool(false)) => Ok(Some(stale())),
        Some(_) => Err(" must be true, false or null".into()),
    }
}

/// A value no message holds: what a written value that changed since is restored as.
fn stale() -> Json {
    Json::object([(MARKER, Json::string("stale"))])
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::User => "user",
        Kind::System => "system",
        Kind::Assistant {
            text: true,
            calls: true,
        } => "text+calls",
        Kind::Assistant {
            text: true,
            calls: false,
        } => "text",
        Kind::Assistant {
            text: false,
            calls: true,
        } => "calls",
        Kind::Assistant {
            text: false,
            calls: false,
        } => "empty",
        Kind::Reasoning => "reasoning",
        Kind::Activity => "activity",
    }
}

fn kind_of(name: &[u8]) -> Option<Kind> {
    Some(match name {
        b"user" => Kind::User,
        b"system" => Kind::System,
        b"text+calls" => Kind::Assistant {
            text: true,
            calls: true,
        },
        b"text" => Kind::Assistant {
            text: true,
            calls: false,
        },
        b"calls" => Kind::Assistant {
            text: false,
            calls: true,
        },
        b"empty" => Kind::Assistant {
            text: false,
            calls: false,
        },
        b"reasoning" => Kind::Reasoning,
        b"activity" => Kind::Activity,
        _ => return None,
    })
}

/// The writer.
#[derive(Debug, Default)]
pub struct AgUiWriter {
    thread: Option<Wtf8>,
    run: Option<Wtf8>,
    /// Runs started under `run` so far: the first is `run`, the next `<run>.1`, …
    runs: usize,
    /// A run is started and not ended.
    running: bool,
    /// Ids given for the next run (a new request on the same conversation).
    next: Option<(Wtf8, Wtf8)>,
    written: Vec<Written>,
    /// Messages before it are written to their end; only their chunks changed since are
    /// looked at again.
    first_open: usize,
    /// The messages from this one on are to be restated.
    restate: Option<usize>,
    /// How many messages the conversation was given: written already, by the client.
    given: usize,
    /// Where each call written is (message, piece, index): the client finds a call by its
    /// id, so one of an id written elsewhere cannot be streamed.
    calls: HashMap<Wtf8, (usize, usize, usize)>,
}

/// The places of the calls written of `written`, the messages as they are now.
fn written_calls(written: &[Written], messages: &Folded) -> HashMap<Wtf8, (usize, usize, usize)> {
    let mut calls = HashMap::new();
    for (m, w) in written.iter().enumerate().take(messages.len()) {
        let (_, role, chunks) = messages.message(m);
        let cut = pieces::cut(role, chunks);
        for (k, (piece, p)) in w.pieces.iter().zip(&cut).enumerate() {
            let batch = batch_of(p.kind, &chunks[p.start..p.start + p.len]);
            for (i, call) in batch.iter().enumerate().take(piece.calls.len()) {
                calls.entry(call.id.clone()).or_insert((m, k, i));
            }
        }
    }
    calls
}

/// Something events cannot say was found: the messages are restated.
struct Restate;

/// Whether `event` is of type `ty`.
fn is(event: &Json, ty: Type) -> bool {
    event
        .get("type")
        .and_then(Json::as_str)
        .is_some_and(|t| *t == ty.name())
}

/// The event of type `ty` with `fields`.
fn event(ty: Type, fields: Vec<(&str, Json)>) -> Json {
    let mut all = vec![(Wtf8::from("type"), Json::string(ty.name()))];
    all.extend(fields.into_iter().map(|(k, v)| (Wtf8::from(k), v)));
    Json::Object(all)
}

fn marker_metadata(marks: Vec<(&str, Json)>) -> Option<Json> {
    messages::with_marks(None, marks)
}

fn text_of(chunk: Option<&FormatChunk>) -> Option<&Wtf8> {
    match chunk? {
        Chunk::Text { text } | Chunk::Thinking { text, .. } => Some(text),
        _ => None,
    }
}

fn seal_of(chunk: Option<&FormatChunk>) -> Option<&Json> {
    match chunk? {
        Chunk::Thinking { metadata, .. } => metadata.as_ref().filter(|m| !matches!(m, Json::Undefined)),
        _ => None,
    }
}

fn calls_of(chunk: Option<&FormatChunk>) -> &[ToolCallEntry<Wtf8, Json>] {
    match chunk {
        Some(Chunk::ToolBatch { calls }) => calls,
        _ => &[],
    }
}

/// The part of a call's meta that is the call's (not its arguments' or its result's).
fn own_meta(call: &ToolCallEntry<Wtf8, Json>) -> Option<Json> {
    let Some(Json::Object(fields)) = messages::call_meta(call) else {
        return None;
    };
    let fields: Vec<(Wtf8, Json)> = fields
        .iter()
        .filter(|(k, _)| *k == "encryptedValue" || *k == "metadata")
        .cloned()
        .collect();
    (!fields.is_empty()).then_some(Json::Object(fields))
}

/// The chunk holding a piece's text or thinking, of the chunks it holds.
fn content_of(kind: Kind, held: &[FormatChunk]) -> Option<&FormatChunk> {
    match (kind, held) {
        (Kind::Assistant { text: true, .. } | Kind::System | Kind::Reasoning, _) => held.first(),
        // A user message of one text is written as a text message.
        (Kind::User, [text @ Chunk::Text { .. }]) => Some(text),
        _ => None,
    }
}

/// The calls of a piece, of the chunks it holds.
fn batch_of(kind: Kind, held: &[FormatChunk]) -> &[ToolCallEntry<Wtf8, Json>] {
    match kind {
        Kind::Assistant { text, calls: true } => calls_of(held.get(usize::from(text))),
        _ => &[],
    }
}

/// A piece written whole: what a message restated or given counts as.
fn whole(kind: Kind, held: &[FormatChunk]) -> PieceWritten {
    let content = content_of(kind, held);
    PieceWritten {
        kind,
        text: text_of(content).map_or(0, |t| t.as_bytes().len()),
        open: false,
        seal: seal_of(content).cloned(),
        calls: batch_of(kind, held)
            .iter()
            .map(|call| CallWritten {
                id: call.id.clone(),
                name: call.name.clone(),
                args: messages::call_args_text(call),
                meta: own_meta(call),
                shell: marker_metadata(messages::call_marks(call)),
                result: messages::tool_message(call),
                open: false,
            })
            .collect(),
        activity: match kind {
            Kind::Activity => held.first().map(|c| messages::activity(c).1),
            _ => None,
        },
        fixed: None,
    }
}

fn whole_message(messages: &Folded, m: usize) -> Written {
    let (id, role, chunks) = messages.message(m);
    Written {
        id: id.to_string(),
        pieces: pieces::cut(role, chunks)
            .iter()
            .map(|p| whole(p.kind, &chunks[p.start..p.start + p.len]))
            .collect(),
        finished: true,
        covered: chunks.len(),
    }
}

/// The end of a piece's text or thinking (with `metadata`, for a reasoning message).
fn close(id: &str, k: usize, piece: &mut PieceWritten, metadata: Option<Json>, out: &mut Vec<Json>) {
    piece.open = false;
    let pid = Json::String(pieces::piece_id(id, k));
    match piece.kind {
        Kind::Reasoning => {
            let mut fields = vec![("messageId", pid.clone())];
            fields.extend(metadata.map(|m| ("metadata", m)));
            out.push(event(Type::REASONING_MESSAGE_END, fields));
            out.push(event(Type::REASONING_END, vec![("messageId", pid)]));
        }
        _ => out.push(event(Type::TEXT_MESSAGE_END, vec![("messageId", pid)])),
    }
}

/// A reasoning message's marks: the piece's, and a seal no `encryptedValue` holds.
fn reasoning_marks<'a>(marks: &[(&'a str, Json)], seal: Option<&Json>) -> Vec<(&'a str, Json)> {
    let mut all = marks.to_vec();
    if let Some(seal) = seal.filter(|s| messages::encrypted_value(s).is_none()) {
        all.push(("seal", seal.clone()));
    }
    all
}

/// Where the events of one write go.
struct Out<'a> {
    writer: &'a mut AgUiWriter,
    events: Vec<Json>,
}

impl Out<'_> {
    fn run_id(&self, n: usize) -> Wtf8 {
        let mut id = self.writer.run.clone().unwrap_or_default();
        if n > 0 {
            id.push_wtf8(format!(".{n}").as_bytes());
        }
        id
    }

    fn thread(&self) -> Json {
        Json::String(self.writer.thread.clone().unwrap_or_default())
    }

    /// Starts a run, with `input` messages; the run before it, if open, is finished. A
    /// run started by this write that has nothing in it yet takes the input instead.
    fn start_run(&mut self, input: Vec<Json>) {
        let fresh = self.events.last().is_some_and(|e| is(e, Type::RUN_STARTED));
        if self.writer.running && input.is_empty() && fresh {
            // A run started by this write, with nothing in it yet: it is the run.
            return;
        }
        if self.writer.running && !input.is_empty() {
            let thread = self.thread();
            if let Some(started) = self.events.last_mut().filter(|e| is(e, Type::RUN_STARTED)) {
                let run = started.get("runId").cloned().unwrap_or(Json::Null);
                let Json::Object(fields) = started else { return };
                match fields.iter_mut().find(|(k, _)| *k == "input") {
                    Some((_, Json::Object(input_fields))) => {
                        if let Some((_, Json::Array(messages))) =
                            input_fields.iter_mut().find(|(k, _)| *k == "messages")
                        {
                            messages.extend(input);
                        }
                    }
                    _ => fields.push((
                        Wtf8::from("input"),
                        Json::object([
                            ("threadId", thread),
                            ("runId", run),
                            ("messages", Json::Array(input)),
                            ("tools", Json::Array(Vec::new())),
                            ("context", Json::Array(Vec::new())),
                        ]),
                    )),
                }
                return;
            }
        }
        self.finish_run();
        let n = self.writer.runs;
        self.writer.runs += 1;
        let run = Json::String(self.run_id(n));
        let mut fields = vec![("threadId", self.thread()), ("runId", run.clone())];
        if !input.is_empty() {
            fields.push((
                "input",
                Json::object([
                    ("threadId", self.thread()),
                    ("runId", run),
                    ("messages", Json::Array(input)),
                    ("tools", Json::Array(Vec::new())),
                    ("context", Json::Array(Vec::new())),
                ]),
            ));
        }
        self.events.push(event(Type::RUN_STARTED, fields));
        self.writer.running = true;
    }

    /// Ends the pieces left open (but `except`), for a run that ends.
    fn close_open(&mut self, except: Option<(usize, usize)>) {
        for (m, message) in self.writer.written.iter_mut().enumerate() {
            for (k, piece) in message.pieces.iter_mut().enumerate() {
                if piece.open && except != Some((m, k)) {
                    close(&message.id, k, piece, None, &mut self.events);
                }
                for call in piece.calls.iter_mut().filter(|c| c.open) {
                    call.open = false;
                    self.events.push(event(
                        Type::TOOL_CALL_END,
                        vec![("toolCallId", Json::String(call.id.clone()))],
                    ));
                }
            }
        }
    }

    /// Finishes the open run.
    fn finish_run(&mut self) {
        if !self.writer.running {
            return;
        }
        self.close_open(None);
        self.writer.running = false;
        let run = Json::String(self.run_id(self.writer.runs.saturating_sub(1)));
        self.events.push(event(
            Type::RUN_FINISHED,
            vec![("threadId", self.thread()), ("runId", run)],
        ));
    }

    /// An event, in a run.
    fn emit(&mut self, event: Json) {
        if !self.writer.running {
            self.start_run(Vec::new());
        }
        self.events.push(event);
    }
}

/// Writes message `m`; `finished`: nothing more comes to it.
fn write_message(messages: &Folded, m: usize, finished: bool, out: &mut Out) -> Result<(), Restate> {
    let (id, role, chunks) = messages.message(m);
    if out.writer.written.len() <= m {
        out.writer.written.resize(m + 1, Written::default());
    }
    let written = &out.writer.written[m];
    if !written.pieces.is_empty() && written.id != id {
        return Err(Restate);
    }
    let cut = pieces::cut(role, chunks);
    if written.pieces.len() > cut.len() {
        return Err(Restate);
    }
    if role == MessageRole::User && written.pieces.is_empty() {
        // A user message begins a run of its own.
        out.start_run(Vec::new());
    }
    if out.writer.written[m].id != id {
        out.writer.written[m].id = id.to_string();
    }
    for k in 0..cut.len() {
        let passed = finished || k + 1 < cut.len();
        write_piece(messages, m, k, &cut, passed, out)?;
        if out.writer.written[m].pieces.len() <= k {
            // A piece written whole once passed: nothing after it yet.
            break;
        }
    }
    let written = &mut out.writer.written[m];
    written.covered = chunks.len();
    written.finished = finished;
    Ok(())
}

/// Writes piece `k` of message `m`; `passed`: nothing more comes to it.
fn write_piece(
    messages: &Folded,
    m: usize,
    k: usize,
    cut: &[Piece],
    passed: bool,
    out: &mut Out,
) -> Result<(), Restate> {
    let (id, role, chunks) = messages.message(m);
    let piece = cut[k];
    let held = &chunks[piece.start..piece.start + piece.len];
    let pid = Json::String(pieces::piece_id(id, k));
    let marks = messages::piece_marker(id, role, cut, k);
    // A user message of one text is streamed as a text message; one of parts is written
    // whole.
    let single_text = piece.kind == Kind::User && matches!(held, [Chunk::Text { .. }]);
    let existing = out.writer.written[m].pieces.get(k);
    if let Some(w) = existing.filter(|w| piece.kind == Kind::User && (w.fixed.is_some() || !single_text)) {
        // Written whole: what it holds now must be what was written.
        let now = messages::piece_json(id, role, chunks, cut, k);
        return match w.fixed.as_ref() == Some(&now) {
            true => Ok(()),
            false => Err(Restate),
        };
    }
    let mut w = match existing.cloned() {
        Some(w) => {
            let grows = match (w.kind, piece.kind) {
                (Kind::Assistant { text: a, calls: b }, Kind::Assistant { text: c, calls: d }) => {
                    (!a || c) && (!b || d)
                }
                (a, b) => a == b,
            };
            if !grows {
                return Err(Restate);
            }
            w
        }
        None => {
            // Pieces a stream cannot open are written whole, as a run's input.
            let unopenable = match piece.kind {
                Kind::User => !single_text,
                Kind::Assistant {
                    text: false,
                    calls: false,
                } => true,
                Kind::Assistant {
                    text: false,
                    calls: true,
                } => batch_of(piece.kind, held).is_empty(),
                _ => false,
            };
            // Written at once: a message of nothing yet (what it gains goes on it), a user
            // message of parts (restated should it change).
            if unopenable {
                {
                    let message = messages::piece_json(id, role, chunks, cut, k);
                    let mut input = vec![message.clone()];
                    input.extend(messages::result_messages(chunks, &piece));
                    out.start_run(input);
                    let mut w = whole(piece.kind, held);
                    w.fixed = (piece.kind == Kind::User).then_some(message);
                    out.writer.written[m].pieces.push(w);
                }
                return Ok(());
            }
            PieceWritten {
                kind: piece.kind,
                text: 0,
                open: false,
                seal: None,
                calls: Vec::new(),
                activity: None,
                fixed: None,
            }
        }
    };
    let first = out.writer.written[m].pieces.len() <= k;
    // The marker goes on what opens the piece in the client: its text's start, else its
    // first call's.
    w.kind = piece.kind;
    if let Some(j) = piece.content().or(single_text.then_some(piece.start)) {
        let ends = passed || piece.calls().is_some();
        write_text(chunks.get(j), &pid, &marks, first, &mut w, ends, id, k, out)?;
    }
    if piece.calls().is_some() {
        let opens: &[(&str, Json)] = if piece.content().is_none() { &marks } else { &[] };
        write_calls(batch_of(piece.kind, held), &pid, opens, &mut w, (m, k), out)?;
    }
    if piece.kind == Kind::Activity {
        write_activity(&held[0], &pid, first.then(|| marks.clone()), &mut w, (m, k), out);
    }
    let written = &mut out.writer.written[m];
    match written.pieces.get_mut(k) {
        Some(slot) => *slot = w,
        None => written.pieces.push(w),
    }
    Ok(())
}

/// A piece's text or thinking: started (with the piece's `marks`, the `first` time),
/// grown, its seal, ended once `ends`.
#[allow(clippy::too_many_arguments)]
fn write_text(
    chunk: Option<&FormatChunk>,
    pid: &Json,
    marks: &[(&str, Json)],
    first: bool,
    w: &mut PieceWritten,
    ends: bool,
    id: &str,
    k: usize,
    out: &mut Out,
) -> Result<(), Restate> {
    // Borrowed: a write costs what the text grew, not its length.
    let none = Wtf8::new();
    let text = text_of(chunk).unwrap_or(&none);
    let thinking = w.kind == Kind::Reasoning;
    let seal = seal_of(chunk).filter(|_| thinking);
    let len = text.as_bytes().len();
    if len < w.text {
        return Err(Restate);
    }
    let grew = len > w.text;
    if first || (grew && !w.open) {
        // Started, or started again to go on with a piece that ended.
        if thinking {
            out.emit(event(Type::REASONING_START, vec![("messageId", pid.clone())]));
            let mut fields = vec![("messageId", pid.clone()), ("role", Json::string("reasoning"))];
            if first {
                fields.extend(marker_metadata(reasoning_marks(marks, seal)).map(|m| ("metadata", m)));
                w.seal = seal.filter(|s| messages::encrypted_value(s).is_none()).cloned();
            }
            out.emit(event(Type::REASONING_MESSAGE_START, fields));
        } else {
            let role = match w.kind {
                Kind::System => "system",
                Kind::User => "user",
                _ => "assistant",
            };
            let mut fields = vec![("messageId", pid.clone()), ("role", Json::string(role))];
            if first {
                fields.extend(marker_metadata(marks.to_vec()).map(|m| ("metadata", m)));
            }
            out.emit(event(Type::TEXT_MESSAGE_START, fields));
        }
        w.open = true;
    }
    if grew {
        let ty = match thinking {
            true => Type::REASONING_MESSAGE_CONTENT,
            false => Type::TEXT_MESSAGE_CONTENT,
        };
        let delta = Json::String(text.tail_from(w.text));
        out.emit(event(ty, vec![("messageId", pid.clone()), ("delta", delta)]));
        w.text = len;
    }
    // A seal: an `encryptedValue` whenever it comes; another in the marker, on an empty
    // content while open (or a start again, after the end).
    if seal != w.seal.as_ref() {
        match seal.map(messages::encrypted_value) {
            None => return Err(Restate),
            Some(Some(value)) => {
                out.emit(event(
                    Type::REASONING_ENCRYPTED_VALUE,
                    vec![
                        ("subtype", Json::string("message")),
                        ("entityId", pid.clone()),
                        ("encryptedValue", value),
                    ],
                ));
            }
            Some(None) if w.open => {
                let mut fields = vec![("messageId", pid.clone()), ("delta", Json::string(""))];
                fields.extend(marker_metadata(reasoning_marks(marks, seal)).map(|m| ("metadata", m)));
                out.emit(event(Type::REASONING_MESSAGE_CONTENT, fields));
            }
            Some(None) => {
                let mut fields = vec![("messageId", pid.clone()), ("role", Json::string("reasoning"))];
                fields.extend(marker_metadata(reasoning_marks(marks, seal)).map(|m| ("metadata", m)));
                out.emit(event(Type::REASONING_MESSAGE_START, fields));
                out.emit(event(
                    Type::REASONING_MESSAGE_END,
                    vec![("messageId", pid.clone())],
                ));
            }
        }
        w.seal = seal.cloned();
    }
    if ends && w.open {
        let mut events = Vec::new();
        close(id, k, w, None, &mut events);
        for e in events {
            out.emit(e);
        }
    }
    Ok(())
}

/// A piece's calls (the first opening the piece, with the piece's `marks`) and their
/// results.
fn write_calls(
    calls: &[ToolCallEntry<Wtf8, Json>],
    pid: &Json,
    marks: &[(&str, Json)],
    w: &mut PieceWritten,
    (m, k): (usize, usize),
    out: &mut Out,
) -> Result<(), Restate> {
    if calls.len() < w.calls.len() {
        return Err(Restate);
    }
    for (i, call) in calls.iter().enumerate() {
        // The client finds a call by its id: another with the same id is not streamed.
        let elsewhere = *out.writer.calls.entry(call.id.clone()).or_insert((m, k, i)) != (m, k, i);
        let call_id = Json::String(call.id.clone());
        let args = messages::call_args(call);
        let meta = own_meta(call);
        let mut all_marks = if i == 0 { marks.to_vec() } else { Vec::new() };
        all_marks.extend(messages::call_marks(call));
        let shell = marker_metadata(messages::call_marks(call));
        match w.calls.get_mut(i) {
            None if elsewhere => return Err(Restate),
            None => {
                let metadata = messages::with_marks(meta.as_ref().and_then(|m| m.get("metadata")), all_marks);
                let mut fields = vec![
                    ("toolCallId", call_id.clone()),
                    ("toolCallName", Json::String(call.name.clone())),
                    ("parentMessageId", pid.clone()),
                ];
                fields.extend(metadata.map(|m| ("metadata", m)));
                out.emit(event(Type::TOOL_CALL_START, fields));
                if !args.is_empty() {
                    out.emit(event(
                        Type::TOOL_CALL_ARGS,
                        vec![
                            ("toolCallId", call_id.clone()),
                            ("delta", Json::String(args.clone().into_owned())),
                        ],
                    ));
                }
                let open = streaming(call);
                if !open {
                    out.emit(event(Type::TOOL_CALL_END, vec![("toolCallId", call_id.clone())]));
                }
                if let Some(value) = meta.as_ref().and_then(|m| m.get("encryptedValue")) {
                    out.emit(event(
                        Type::REASONING_ENCRYPTED_VALUE,
                        vec![
                            ("subtype", Json::string("tool-call")),
                            ("entityId", call_id.clone()),
                            ("encryptedValue", value.clone()),
                        ],
                    ));
                }
                w.calls.push(CallWritten {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    args: args.into_owned(),
                    meta,
                    shell,
                    result: None,
                    open,
                });
            }
            Some(c) => {
                // A call renamed, its arguments grown or its shell output: started again,
                // what is new sent (the client merges the marker whole).
                if c.meta != meta || !args.grew_from(&c.args) {
                    return Err(Restate);
                }
                let renamed = c.name != call.name;
                let more = args.as_bytes().len() > c.args.as_bytes().len();
                let shelled = c.shell != shell;
                if (renamed || more || shelled) && elsewhere || (renamed || shelled) && c.open {
                    return Err(Restate);
                }
                let open = streaming(call);
                if c.open {
                    // Its arguments go on streaming; it ends when they are parsed.
                    if more {
                        // Only what it gained is copied (a long input streams linearly).
                        let tail = args.tail_from(c.args.as_bytes().len());
                        c.args.push_wtf8(tail.as_bytes());
                        debug_assert!(c.args == *args);
                        out.emit(event(
                            Type::TOOL_CALL_ARGS,
                            vec![("toolCallId", call_id.clone()), ("delta", Json::String(tail))],
                        ));
                    }
                    if !open {
                        out.emit(event(Type::TOOL_CALL_END, vec![("toolCallId", call_id.clone())]));
                        c.open = false;
                    }
                } else if renamed || more || shelled {
                    let mut fields = vec![
                        ("toolCallId", call_id.clone()),
                        ("toolCallName", Json::String(call.name.clone())),
                    ];
                    if shelled {
                        fields.extend(marker_metadata(all_marks).map(|m| ("metadata", m)));
                    }
                    out.emit(event(Type::TOOL_CALL_START, fields));
                    if more {
                        out.emit(event(
                            Type::TOOL_CALL_ARGS,
                            vec![
                                ("toolCallId", call_id.clone()),
                                ("delta", Json::String(args.tail_from(c.args.as_bytes().len()))),
                            ],
                        ));
                    }
                    if !open {
                        out.emit(event(Type::TOOL_CALL_END, vec![("toolCallId", call_id.clone())]));
                    }
                    c.open = open;
                    c.name = call.name.clone();
                    c.args = args.into_owned();
                    c.shell = shell;
                }
            }
        }
        let now = messages::tool_message(call);
        let c = &mut w.calls[i];
        if now == c.result {
            continue;
        }
        // A result replaced or taken back, one with an `error` (no event has one), one for
        // a call whose id the client finds elsewhere.
        let Some(message) = now
            .as_ref()
            .filter(|m| c.result.is_none() && m.get("error").is_none() && !elsewhere)
        else {
            return Err(Restate);
        };
        let mut fields = vec![
            ("messageId", message.get("id").cloned().unwrap_or(Json::Null)),
            ("toolCallId", call_id.clone()),
            ("content", message.get("content").cloned().unwrap_or(Json::Null)),
            ("role", Json::string("tool")),
        ];
        fields.extend(message.get("metadata").map(|m| ("metadata", m.clone())));
        out.emit(event(Type::TOOL_CALL_RESULT, fields));
        if let Some(value) = message.get("encryptedValue") {
            out.emit(event(
                Type::REASONING_ENCRYPTED_VALUE,
                vec![
                    ("subtype", Json::string("message")),
                    ("entityId", message.get("id").cloned().unwrap_or(Json::Null)),
                    ("encryptedValue", value.clone()),
                ],
            ));
        }
        c.result = now;
    }
    Ok(())
}

/// An activity piece: its content whenever it changes (with `marks` the first time); an
/// error also ends the run, as the client shows errors.
fn write_activity(
    chunk: &FormatChunk,
    pid: &Json,
    marks: Option<Vec<(&str, Json)>>,
    w: &mut PieceWritten,
    at: (usize, usize),
    out: &mut Out,
) {
    let (ty, content) = messages::activity(chunk);
    if w.activity.as_ref() == Some(&content) {
        return;
    }
    let first = w.activity.is_none();
    let mut fields = vec![
        ("messageId", pid.clone()),
        ("activityType", Json::string(ty)),
        ("content", content.clone()),
    ];
    fields.extend(marks.and_then(marker_metadata).map(|m| ("metadata", m)));
    out.emit(event(Type::ACTIVITY_SNAPSHOT, fields));
    w.activity = Some(content);
    if let (true, Chunk::Error { message, status_code }) = (first, chunk) {
        out.close_open(Some(at));
        let mut fields = vec![("message", Json::String(message.clone()))];
        if let Some(Json::Number(code)) = status_code.map(crate::reading::model_json::number) {
            fields.push(("code", Json::string(&*code)));
        }
        fields.extend(marker_metadata(vec![("activity", pid.clone())]).map(|m| ("metadata", m)));
        out.events.push(event(Type::RUN_ERROR, fields));
        out.writer.running = false;
    }
}

/// The id of the reasoning message a restatement may need for a moment (see [`restate`]).
const RESTATING: &str = "agent-chunks.restating";

/// Restates the messages from `from` on: a snapshot of those before it, which drops the
/// rest, then one of all of them, which appends them in order.
///
/// The client keeps the reasoning messages a snapshot leaves out when it holds none: were
/// the first snapshot to hold none while the client holds some after `from`, they would
/// stay before what the second appends. So the first holds one: the one that comes
/// next, when it is reasoning, else one of no content that the second drops.
fn restate(messages: &Folded, from: usize, out: &mut Out) {
    out.close_open(None);
    let held_reasoning = out
        .writer
        .written
        .iter()
        .skip(from)
        .any(|w| w.pieces.iter().any(|p| p.kind == Kind::Reasoning));
    let owned: Vec<_> = (0..messages.len())
        .map(|m| crate::reading::fold::owned_message(messages, m))
        .collect();
    let authority = Json::object([(
        "@ag-ui/client",
        Json::object([(
            "authoritativeActivityTypes",
            Json::Array(ACTIVITY_TYPES.iter().map(|t| Json::string(*t)).collect()),
        )]),
    )]);
    let all = messages::write_messages(&owned);
    let mut first = messages::write_messages(&owned[..from.min(owned.len())]);
    let reasoning = |m: &Json| {
        m.get("role")
            .and_then(Json::as_str)
            .is_some_and(|r| *r == "reasoning")
    };
    if held_reasoning && !first.iter().any(reasoning) && all.iter().any(reasoning) {
        match all.get(first.len()).filter(|m| reasoning(m)) {
            Some(next) => first.push(next.clone()),
            None => first.push(Json::object([
                ("id", Json::string(RESTATING)),
                ("role", Json::string("reasoning")),
                ("content", Json::string("")),
            ])),
        }
    }
    for list in [first, all] {
        out.emit(event(
            Type::MESSAGES_SNAPSHOT,
            vec![("messages", Json::Array(list)), ("metadata", authority.clone())],
        ));
    }
    out.writer.written = (0..messages.len()).map(|m| whole_message(messages, m)).collect();
    if let Some(last) = out.writer.written.last_mut() {
        last.finished = false;
    }
    out.writer.calls = written_calls(&out.writer.written, messages);
}

impl LiveWriter for AgUiWriter {
    fn write(&mut self, messages: &Folded, ended: bool, touched: &[(usize, Option<usize>)]) -> Vec<Json> {
        let mut out = Out {
            writer: self,
            events: Vec::new(),
        };
        if let Some((thread, run)) = out.writer.next.take() {
            out.finish_run();
            out.writer.thread = Some(thread);
            out.writer.run = Some(run);
            out.writer.runs = 0;
        }
        if out.writer.runs == 0 {
            out.start_run(Vec::new());
        }
        let mut from = out.writer.restate.take();
        if from.is_none() {
            let first_open = out.writer.first_open;
            let mut revisit: Vec<usize> = touched
                .iter()
                .map(|&(m, _)| m)
                .filter(|&m| m < first_open && m < messages.len())
                .collect();
            revisit.sort_unstable();
            revisit.dedup();
            let open = first_open.min(messages.len())..messages.len();
            for m in revisit.into_iter().chain(open) {
                let finished = ended || m + 1 < messages.len();
                if write_message(messages, m, finished, &mut out).is_err() {
                    from = Some(m);
                    break;
                }
            }
        }
        if let Some(from) = from {
            restate(messages, from, &mut out);
        }
        out.writer.first_open = messages.len().saturating_sub(usize::from(!ended));
        if ended {
            out.finish_run();
        }
        out.events
    }

    fn wants(&self, _messages: &Folded, message: usize, _chunk: Option<usize>) -> bool {
        // Any change to a message passed (its id too): it is written again or restated.
        message < self.first_open && message < self.written.len()
    }

    fn rewritten(&mut self, rewrite: &Rewrite, _messages: &Folded) {
        let written = self.written.get(rewrite.message);
        let started = written.is_some_and(|w| !w.pieces.is_empty());
        if started && rewrite.from < written.map_or(0, |w| w.covered) {
            self.restate = Some(self.restate.map_or(rewrite.message, |r| r.min(rewrite.message)));
        }
    }

    fn reset(&mut self, _messages: &Folded) {
        // What the client holds is measured against the messages from the start.
        self.restate = Some(0);
        self.first_open = 0;
    }

    fn replay(&mut self, _messages: &Folded) {
        // A client that reconnects is given every message again, restated (a
        // `MESSAGES_SNAPSHOT` is how AG-UI hands a client the messages it should hold).
        self.restate = Some(0);
        self.first_open = 0;
    }

    fn configure(&mut self, options: &Json) -> Result<(), String> {
        if !matches!(options, Json::Object(_) | Json::Undefined | Json::Null) {
            return Err(format!(" must be an object, got {}", options.kind().name()));
        }
        let given = |key: &str| -> Result<Option<Wtf8>, String> {
            match options.get(key) {
                None | Some(Json::Undefined | Json::Null) => Ok(None),
                Some(Json::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(format!(".{key} must be a string, got {}", other.kind().name())),
            }
        };
        match (given("threadId")?, given("runId")?) {
            (None, None) if self.run.is_some() || self.next.is_some() => Ok(()),
            (Some(thread), Some(run)) => {
                if self.thread.as_ref() != Some(&thread) || self.run.as_ref() != Some(&run) {
                    self.next = Some((thread, run));
                }
                Ok(())
            }
            (None, _) => Err(".threadId must be a string: the first call names the run (threadId and runId of the request)".into()),
            (_, None) => Err(".runId must be a string: the first call names the run (threadId and runId of the request)".into()),
        }
    }

    fn save(&self, messages: &Folded, touched: &[(usize, Option<usize>)]) -> Json {
        if self.runs == 0 && self.next.is_none() {
            // Nothing written yet: only which messages count as written, when any do (so
            // that a conversation never served in AG-UI keeps the state it had).
            return match self.given {
                0 => Json::Null,
                given => Json::object([("given", number(given))]),
            };
        }
        let keep = |m: usize| m >= self.first_open || touched.iter().any(|&(t, _)| t == m);
        let written: Vec<Json> = self
            .written
            .iter()
            .enumerate()
            .filter(|&(m, _)| keep(m) && m < messages.len())
            .map(|(m, w)| {
                let (id, role, chunks) = messages.message(m);
                let cut = pieces::cut(role, chunks);
                let pieces = w
                    .pieces
                    .iter()
                    .enumerate()
                    .map(|(k, p)| {
                        let held = cut.get(k).map(|c| &chunks[c.start..c.start + c.len]);
                        let whole = (p.fixed.is_some() && k < cut.len())
                            .then(|| messages::piece_json(id, role, chunks, &cut, k));
                        save_piece(p, held, whole.as_ref())
                    })
                    .collect();
                Json::object([
                    ("index", number(m)),
                    ("id", Json::string(w.id.as_str())),
                    ("finished", Json::Bool(w.finished)),
                    ("covered", number(w.covered)),
                    ("pieces", Json::Array(pieces)),
                ])
            })
            .collect();
        let next = self.next.as_ref().map_or(Json::Null, |(thread, run)| {
            Json::Array(vec![Json::String(thread.clone()), Json::String(run.clone())])
        });
        Json::object([
            ("threadId", resume::optional(self.thread.as_ref())),
            ("runId", resume::optional(self.run.as_ref())),
            ("runs", number(self.runs)),
            ("running", Json::Bool(self.running)),
            ("next", next),
            ("from", number(self.first_open)),
            ("restate", self.restate.map_or(Json::Null, number)),
            ("messages", Json::Array(written)),
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

    fn mark_end(&mut self) -> bool {
        // AG-UI ends with RUN_FINISHED: no marker after it.
        false
    }
}

/// A piece's written state, with what it holds now (what it does not copy is kept as
/// whether it is still what was written).
fn save_piece(piece: &PieceWritten, held: Option<&[FormatChunk]>, whole: Option<&Json>) -> Json {
    let held = held.unwrap_or_default();
    let batch = batch_of(piece.kind, held);
    let calls = piece
        .calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let now = batch.get(i);
            Json::object([
                ("name", Json::String(c.name.clone())),
                ("args", Json::String(c.args.clone())),
                ("open", Json::Bool(c.open)),
                ("meta", tri(&c.meta, now.and_then(own_meta).as_ref())),
                (
                    "shell",
                    tri(
                        &c.shell,
                        now.and_then(|n| marker_metadata(messages::call_marks(n)))
                            .as_ref(),
                    ),
                ),
                (
                    "result",
                    tri(&c.result, now.and_then(messages::tool_message).as_ref()),
                ),
            ])
        })
        .collect();
    let activity_now = match piece.kind {
        Kind::Activity => held.first().map(|c| messages::activity(c).1),
        _ => None,
    };
    Json::object([
        ("kind", Json::string(kind_name(piece.kind))),
        ("text", number(piece.text)),
        ("open", Json::Bool(piece.open)),
        ("seal", tri(&piece.seal, seal_of(content_of(piece.kind, held)))),
        ("calls", Json::Array(calls)),
        ("activity", tri(&piece.activity, activity_now.as_ref())),
        ("whole", tri(&piece.fixed, whole)),
    ])
}

/// A writer that wrote nothing, of a conversation given its first `given` messages: the
/// request's input, which the client holds.
pub fn given_writer(messages: &Folded, given: usize) -> AgUiWriter {
    let written: Vec<Written> = (0..given).map(|m| whole_message(messages, m)).collect();
    AgUiWriter {
        calls: written_calls(&written, messages),
        written,
        first_open: given,
        given,
        ..AgUiWriter::default()
    }
}

/// A writer from what [`LiveWriter::save`] wrote (`null`: nothing written), checked
/// against `messages`; the error names the field, after `.agUi`.
pub fn restore(state: &Json, messages: &Folded) -> Result<Restored, String> {
    let at = |e: String| format!(".agUi{e}");
    let given = match state {
        Json::Null | Json::Undefined => Some(0),
        _ if state.get("runs").is_none() => {
            resume::object(state).map_err(at)?;
            Some(count(state, "given").map_err(at)?)
        }
        _ => None,
    };
    if let Some(given) = given {
        if given > messages.len() {
            return Err(format!(
                ".agUi.given {given} is more than the {} messages",
                messages.len()
            ));
        }
        return Ok((Box::new(given_writer(messages, given)), Vec::new()));
    }
    resume::object(state).map_err(at)?;
    let from = count(state, "from").map_err(at)?;
    if from > messages.len() {
        return Err(format!(
            ".agUi.from {from} is past the {} messages",
            messages.len()
        ));
    }
    let mut written: Vec<Written> = (0..messages.len()).map(|m| whole_message(messages, m)).collect();
    let saved = match state.get("messages") {
        None | Some(Json::Null | Json::Undefined) => &[][..],
        Some(Json::Array(items)) => items.as_slice(),
        Some(_) => return Err(".agUi.messages must be an array".into()),
    };
    // Messages at or after `from` not in the state were not written yet.
    for slot in written.iter_mut().skip(from) {
        *slot = Written::default();
    }
    for (n, item) in saved.iter().enumerate() {
        let at = |e: String| format!(".agUi.messages[{n}]{e}");
        resume::object(item).map_err(at)?;
        let m = count(item, "index").map_err(at)?;
        if m >= messages.len() {
            return Err(at(format!(".index {m} is past the {} messages", messages.len())));
        }
        let (id, role, chunks) = messages.message(m);
        let cut = pieces::cut(role, chunks);
        let pieces = match item.get("pieces") {
            Some(Json::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(k, p)| {
                    let held = cut.get(k).map(|c| &chunks[c.start..c.start + c.len]);
                    let whole = (k < cut.len()).then(|| messages::piece_json(id, role, chunks, &cut, k));
                    restore_piece(p, held, whole).map_err(|e| at(format!(".pieces[{k}]{e}")))
                })
                .collect::<Result<Vec<_>, _>>()?,
            _ => return Err(at(".pieces must be an array".into())),
        };
        written[m] = Written {
            id: resume::text(item, "id")
                .map_err(at)?
                .to_string_lossy()
                .into_owned(),
            pieces,
            finished: flag(item, "finished").map_err(at)?,
            covered: count(item, "covered").map_err(at)?,
        };
    }
    let touched = match state.get("touched") {
        None | Some(Json::Null | Json::Undefined) => Vec::new(),
        Some(Json::Array(items)) => items
            .iter()
            .map(|item| match item {
                Json::Array(pair) => match pair.as_slice() {
                    [i, Json::Null] => resume::whole(i).map(|i| (i, None)),
                    [i, j] => resume::whole(i).zip(resume::whole(j)).map(|(i, j)| (i, Some(j))),
                    _ => None,
                }
                .filter(|&(i, _)| i < messages.len()),
                _ => None,
            })
            .collect::<Option<_>>()
            .ok_or(".agUi.touched must hold [message, chunk] pairs of the messages given")?,
        Some(_) => return Err(".agUi.touched must be an array".into()),
    };
    let restate = match state.get("restate") {
        None | Some(Json::Null | Json::Undefined) => None,
        Some(value) => Some(resume::whole(value).ok_or(".agUi.restate must be a message index or null")?),
    };
    let next = match state.get("next") {
        None | Some(Json::Null | Json::Undefined) => None,
        Some(Json::Array(pair)) => match pair.as_slice() {
            [Json::String(thread), Json::String(run)] => Some((thread.clone(), run.clone())),
            _ => return Err(".agUi.next must be [threadId, runId] or null".into()),
        },
        Some(_) => return Err(".agUi.next must be [threadId, runId] or null".into()),
    };
    let writer = AgUiWriter {
        thread: resume::optional_text(state, "threadId").map_err(at)?,
        run: resume::optional_text(state, "runId").map_err(at)?,
        runs: count(state, "runs").map_err(at)?,
        running: flag(state, "running").map_err(at)?,
        next,
        calls: written_calls(&written, messages),
        written,
        first_open: from,
        restate,
        given: 0,
    };
    Ok((Box::new(writer), touched))
}

fn restore_piece(
    state: &Json,
    held: Option<&[FormatChunk]>,
    whole: Option<Json>,
) -> Result<PieceWritten, String> {
    resume::object(state)?;
    let held = held.unwrap_or_default();
    let kind = kind_of(resume::text(state, "kind")?.as_bytes()).ok_or(".kind is not a piece's kind")?;
    let mut piece = PieceWritten {
        kind,
        text: count(state, "text")?,
        open: flag(state, "open")?,
        seal: None,
        calls: Vec::new(),
        activity: None,
        fixed: untri(state.get("whole"), whole).map_err(|e| format!(".whole{e}"))?,
    };
    let content = content_of(kind, held);
    if piece.text > text_of(content).map_or(0, |t| t.as_bytes().len()) {
        return Err(".text is more than the piece's text".into());
    }
    piece.seal = untri(state.get("seal"), seal_of(content).cloned()).map_err(|e| format!(".seal{e}"))?;
    piece.activity = untri(
        state.get("activity"),
        match kind {
            Kind::Activity => held.first().map(|c| messages::activity(c).1),
            _ => None,
        },
    )
    .map_err(|e| format!(".activity{e}"))?;
    let batch = batch_of(kind, held);
    piece.calls = match state.get("calls") {
        None | Some(Json::Null | Json::Undefined) => Vec::new(),
        Some(Json::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let at = |e: String| format!(".calls[{i}]{e}");
                let now = batch.get(i);
                Ok(CallWritten {
                    id: now
                        .map(|n| n.id.clone())
                        .ok_or_else(|| at(" names a call the piece does not hold".into()))?,
                    open: flag(c, "open").map_err(at)?,
                    name: resume::text(c, "name").map_err(at)?.clone(),
                    args: resume::text(c, "args").map_err(at)?.clone(),
                    meta: untri(c.get("meta"), now.and_then(own_meta))
                        .map_err(|e| at(format!(".meta{e}")))?,
                    shell: untri(
                        c.get("shell"),
                        now.and_then(|n| marker_metadata(messages::call_marks(n))),
                    )
                    .map_err(|e| at(format!(".shell{e}")))?,
                    result: untri(c.get("result"), now.and_then(messages::tool_message))
                        .map_err(|e| at(format!(".result{e}")))?,
                })
            })
            .collect::<Result<_, String>>()?,
        Some(_) => return Err(".calls must be an array".into()),
    };
    Ok(piece)
}
