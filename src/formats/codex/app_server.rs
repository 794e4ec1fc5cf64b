//! `codex app-server`: the JSON-RPC lines (no `jsonrpc` field) Codex's app server and its
//! client exchange on stdio — the interface of the Codex IDE extensions and of the apps
//! that drive Codex — as a client logs them (both directions in one log) or as the server
//! wrote them (its output alone), folded into the messages a client shows; and the answers
//! of `thread/read` (`includeTurns`) and `thread/resume`, whose `thread.turns[].items`
//! Codex builds from the rollout (`ThreadHistoryBuilder`), read as the same messages.
//!
//! - A turn (`turn/started`, or the `turnId` its items name) is written as the rollout's
//!   turns are ([`super::thread`]): each `userMessage` item a `user` message (named by the
//!   item's id), the items after it an `assistant` message named by the turn's id.
//! - Items (`item/started`, `item/completed`, or a re-read's turns) take their place in
//!   the turn's message where first seen; `item/completed` is the whole item and replaces
//!   what its deltas built (a command's output may not be in its deltas at all). Agent
//!   messages are text, reasoning thinking ([`super::items::Reasoning`]: its summary, then
//!   its raw text), a plan a `plan` chunk, a compaction a `compaction` chunk, and the tools
//!   Codex runs calls, as the rollout shows them ([`super::items::shown_item`]).
//! - Deltas, keyed by `itemId`: `item/agentMessage/delta`,
//!   `item/reasoning/summaryTextDelta` / `summaryPartAdded` / `textDelta`, `item/plan/delta`
//!   grow the item's chunk; `item/commandExecution/outputDelta` grows the command's output,
//!   shown when the command completes.
//! - `turn/completed`: its `turn.items` is a summary that repeats what was shown and is not
//!   read again; a failed turn's `turn.error` is the turn's `error` chunk unless an `error`
//!   notification showed it already (one failure, told twice); an interrupted turn ends in a
//!   `cancelled` chunk. An `error` that will be retried shows nothing.
//! - Approvals: the server's `…/requestApproval` request, the client's answer and
//!   `serverRequest/resolved` are the call's `meta.approval` (`{ method, reason?,
//!   decision? }`). Requests and responses are matched through [`crate::reading::rpc`]:
//!   client and server number their requests independently.
//! - Every other method is protocol traffic, counted by method; item types this version
//!   does not know are skipped and counted, never refused but under `strict`.

use std::collections::HashMap;

use crate::bytes::value::{str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::model::{ChatMessage, Chunk, MessageRole, SystemChunkKind, ToolCallEntry};
use crate::reading::check::{FormatError, FormatResult, Skips};
use crate::reading::fold::{Folded, LiveFold};
use crate::reading::model_json::{FormatChunk, FormatMessage};
use crate::reading::rpc::{self, Kind, Ledger, Side};

use super::items::{self, Reasoning};

/// The methods the server sends requests of (all others are the client's; every
/// notification but `initialized` is the server's).
fn sender(method: &[u8], request: bool) -> Side {
    let server_request = method.ends_with(b"/requestApproval")
        || matches!(
            method,
            b"item/tool/call"
                | b"item/tool/requestUserInput"
                | b"mcpServer/elicitation/request"
                | b"applyPatchApproval"
                | b"execCommandApproval"
                | b"account/chatgptAuthTokens/refresh"
                | b"attestation/generate"
        );
    match (request, server_request) {
        (true, true) => Side::Server,
        (true, false) => Side::Client,
        (false, _) if method == b"initialized" => Side::Client,
        (false, _) => Side::Server,
    }
}

/// The methods whose lines alone say a file is app-server traffic.
const OWN_METHODS: &[&[u8]] = &[
    b"thread/started",
    b"turn/started",
    b"turn/completed",
    b"item/started",
    b"item/completed",
    b"item/agentMessage/delta",
    b"item/reasoning/summaryTextDelta",
    b"item/reasoning/summaryPartAdded",
    b"item/reasoning/textDelta",
    b"item/commandExecution/outputDelta",
    b"item/commandExecution/requestApproval",
    b"item/fileChange/requestApproval",
    b"serverRequest/resolved",
    b"thread/status/changed",
    b"thread/tokenUsage/updated",
    b"thread/start",
    b"turn/start",
    b"thread/read",
    b"thread/resume",
];

/// The thread a re-read holds: a response's `result.thread`, a result's `thread`, or the
/// `response` a log record keeps, when it has `turns`.
pub fn reread_thread(value: &Json) -> Option<&Json> {
    let thread = value
        .get("result")
        .or_else(|| value.get("response").and_then(|r| r.get("result")))
        .unwrap_or(value)
        .get("thread")?;
    matches!(thread.get("turns"), Some(Json::Array(_))).then_some(thread)
}

/// Whether a line is the app server's: a message of one of its own methods, or a re-read
/// thread with its turns.
pub fn is_app_server_line(line: &Json) -> bool {
    if !matches!(line, Json::Object(_)) {
        return false;
    }
    match line.get("method") {
        Some(Json::String(method)) => {
            OWN_METHODS.contains(&method.as_bytes())
                && matches!(line.get("params"), Some(Json::Object(_)) | None)
        }
        _ => reread_thread(line).is_some(),
    }
}

/// An item as the chunk model shows it, where it takes part in a message.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Place {
    /// The chunk holding an agent message's text, or a reasoning item's summary.
    text: Option<usize>,
    /// The chunk holding a reasoning item's raw text.
    raw: Option<usize>,
}

/// The turn under way.
#[derive(Debug, Clone, Default, PartialEq)]
struct Turn {
    id: Wtf8,
    /// The items of the turn's open assistant message, in the order first seen, as last
    /// sent with the deltas since applied (an error or end of the turn as an item of
    /// ours: `{ type: "error" | "cancelled", message }`).
    items: Vec<Json>,
    /// Where each item is in `items`, by id.
    at: HashMap<Wtf8, usize>,
    /// Where each item is in the message.
    places: Vec<Place>,
    /// The open assistant message (its index in the messages), once an item opened it.
    message: Option<usize>,
    /// How many assistant messages the turn has had (a user's input in the turn starts
    /// another, named by the turn's id with a `'` more).
    segments: usize,
    /// The user messages of the turn, by item id: their index in the messages.
    users: HashMap<Wtf8, usize>,
    /// An `error` notification showed the turn's failure.
    failed: bool,
}

/// The fold of app-server traffic.
#[derive(Debug, Default)]
pub struct AppServerFold {
    turn: Option<Turn>,
    /// Approvals asked for items, by item id: the call's `meta.approval`.
    approvals: HashMap<Wtf8, Json>,
    ledger: Ledger,
    /// The thread shown: the first one a turn or item names. A connection may carry
    /// others (sub-agents' threads, threads the client started beside it): their
    /// notifications are counted, not shown in this one.
    thread: Option<Wtf8>,
}

/// The item types shown as calls, and the names the rollout's and `exec --json`'s give them.
fn call_kind(kind: &[u8]) -> Option<&'static str> {
    Some(match kind {
        b"commandExecution" => "command_execution",
        b"fileChange" => "file_change",
        b"mcpToolCall" => "mcp_tool_call",
        b"webSearch" => "web_search",
        b"collabAgentToolCall" => "collab_tool_call",
        b"dynamicToolCall" => "dynamic_tool_call",
        b"imageView" => "image_view",
        b"imageGeneration" => "image_generation",
        _ => return None,
    })
}

/// Item types that show nothing in a conversation (Codex's own bookkeeping).
const QUIET_ITEMS: &[&[u8]] = &[
    b"hookPrompt",
    b"subAgentActivity",
    b"sleep",
    b"enteredReviewMode",
    b"exitedReviewMode",
    b"functionCallOutput",
];

fn copy(item: &Json, pairs: &[(&str, &str)]) -> Json {
    Json::Object(
        pairs
            .iter()
            .filter_map(|(from, to)| Some((Wtf8::from(*to), item.get(from)?.clone())))
            .collect(),
    )
}

/// A file change's changes as [`items::shown_item`] lists them: `{ path, kind, diff }`,
/// the kind's `type`, a move named after the diff as the rollout names it.
fn changes(value: Option<&Json>) -> Json {
    let Some(Json::Array(list)) = value else {
        return Json::Array(Vec::new());
    };
    Json::Array(
        list.iter()
            .map(|change| {
                let kind = change.get("kind");
                let mut diff = change.get("diff").cloned().unwrap_or(Json::Null);
                if let (Json::String(text), Some(to)) = (
                    &mut diff,
                    kind.and_then(|k| str_of(k, "move_path").or_else(|| str_of(k, "movePath"))),
                ) {
                    text.push_wtf8(b"\n\nMoved to: ");
                    text.push_wtf8(to.as_bytes());
                }
                Json::object([
                    ("path", change.get("path").cloned().unwrap_or(Json::Null)),
                    (
                        "kind",
                        match kind {
                            Some(k @ Json::Object(_)) => k.get("type").cloned().unwrap_or(Json::Null),
                            Some(other) => other.clone(),
                            None => Json::string("update"),
                        },
                    ),
                    ("diff", diff),
                ])
            })
            .collect(),
    )
}

/// An app-server item in the rollout's (snake_case) terms, for [`items::shown_item`].
fn as_rollout_item(kind: &str, item: &Json) -> Json {
    match kind {
        "command_execution" => copy(
            item,
            &[
                ("command", "command"),
                ("status", "status"),
                ("aggregatedOutput", "aggregated_output"),
                ("exitCode", "exit_code"),
            ],
        ),
        "file_change" => {
            let mut fields = vec![(Wtf8::from("changes"), changes(item.get("changes")))];
            if let Some(status) = item.get("status") {
                fields.push((Wtf8::from("status"), status.clone()));
            }
            Json::Object(fields)
        }
        "collab_tool_call" => copy(
            item,
            &[
                ("tool", "tool"),
                ("prompt", "prompt"),
                ("status", "status"),
                ("receiverThreadIds", "receiver_thread_ids"),
                ("agentsStates", "agents_states"),
            ],
        ),
        "image_generation" => copy(
            item,
            &[
                ("revisedPrompt", "revised_prompt"),
                ("result", "result"),
                ("status", "status"),
            ],
        ),
        _ => item.clone(),
    }
}

/// What the items of one assistant message are as chunks, and where each item is.
fn render(items: &[Json], approvals: &HashMap<Wtf8, Json>) -> (Vec<FormatChunk>, Vec<Place>) {
    let mut chunks: Vec<FormatChunk> = Vec::new();
    let mut places = Vec::with_capacity(items.len());
    for item in items {
        let mut place = Place::default();
        let kind = str_of(item, "type")
            .map(|k| k.as_bytes().to_vec())
            .unwrap_or_default();
        match kind.as_slice() {
            b"agentMessage" => {
                if let Some(text) = str_of(item, "text").filter(|t| !t.is_empty()) {
                    place.text = Some(chunks.len());
                    chunks.push(Chunk::Text { text: text.clone() });
                }
            }
            b"reasoning" => {
                // Before its summary parts (0.58), a reasoning item had one `text`.
                let summary = match (item.get("summary"), str_of(item, "text")) {
                    (None, Some(text)) => vec![text.clone()],
                    (summary, _) => items::strings(summary),
                };
                let reasoning = Reasoning {
                    id: None,
                    summary,
                    raw: items::strings(item.get("content")),
                    encrypted: None,
                };
                let summary = reasoning.summary.iter().any(|s| !s.is_empty());
                let raw = reasoning.raw.iter().any(|s| !s.is_empty());
                let first = chunks.len();
                chunks.extend(reasoning.chunks());
                match (summary, raw) {
                    (true, true) => (place.text, place.raw) = (Some(first), Some(first + 1)),
                    (true, false) => place.text = Some(first),
                    (false, true) => place.raw = Some(first),
                    (false, false) => {}
                }
            }
            b"plan" => {
                if let Some(text) = str_of(item, "text").filter(|t| !t.is_empty()) {
                    chunks.push(items::plan_chunk(text.clone()));
                }
            }
            b"contextCompaction" => chunks.push(Chunk::System {
                kind: SystemChunkKind::Compaction,
                text: Wtf8::new(),
            }),
            b"error" => chunks.push(Chunk::Error {
                message: str_of(item, "message").cloned().unwrap_or_default(),
                status_code: None,
            }),
            b"cancelled" => chunks.push(Chunk::System {
                kind: SystemChunkKind::Cancelled,
                text: str_of(item, "message").cloned().unwrap_or_default(),
            }),
            other => {
                if let (Some(display), Some(id)) = (call_kind(other), str_of(item, "id")) {
                    let shown = items::shown_item(display, &as_rollout_item(display, item));
                    let mut entry = ToolCallEntry::new(id.clone(), shown.name, shown.arguments);
                    entry.result = shown.outcome.map(|(result, error)| (result, Json::Bool(error)));
                    entry.meta = approvals
                        .get(id)
                        .map(|approval| Json::object([("approval", approval.clone())]));
                    match chunks.last_mut() {
                        Some(Chunk::ToolBatch { calls }) => calls.push(entry),
                        _ => chunks.push(Chunk::ToolBatch { calls: vec![entry] }),
                    }
                }
            }
        }
        places.push(place);
    }
    (chunks, places)
}

/// Whether an item takes part in an assistant message (known and not quiet).
fn shows(kind: &[u8]) -> bool {
    matches!(
        kind,
        b"agentMessage" | b"reasoning" | b"plan" | b"contextCompaction" | b"error" | b"cancelled"
    ) || call_kind(kind).is_some()
}

/// The `{ type, message }` item of ours a turn's end is.
fn end_item(kind: &str, message: Wtf8) -> Json {
    Json::object([("type", Json::string(kind)), ("message", Json::String(message))])
}

/// The message of a turn's `error` (`{ message }`), else the error as JSON text.
fn error_message(error: &Json) -> Wtf8 {
    match str_of(error, "message") {
        Some(message) => message.clone(),
        None => Wtf8::from_wtf8_unchecked(error.to_json()),
    }
}

/// A user message's chunks.
fn user_chunks(item: &Json) -> Vec<FormatChunk> {
    super::rollout::item_user_chunks(item)
}

/// The turns of a re-read thread as messages (the same as a live fold of them gives).
pub fn thread_messages(thread: &Json, line: usize, skips: &mut Skips) -> FormatResult<Vec<FormatMessage>> {
    let Some(Json::Array(turns)) = thread.get("turns") else {
        return Ok(Vec::new());
    };
    let mut out = Folded::new("turn");
    let mut fold = AppServerFold::default();
    for (n, turn) in turns.iter().enumerate() {
        let id = str_of(turn, "id")
            .cloned()
            .unwrap_or_else(|| Wtf8::from(format!("turn-{}", n + 1).as_str()));
        fold.start_turn(id, &mut out);
        if let Some(Json::Array(items)) = turn.get("items") {
            for item in items {
                fold.item(item, true, line, &mut out, skips)?;
            }
        }
        fold.complete_turn(turn, &mut out);
    }
    Ok(crate::reading::fold::owned_messages(&out))
}

impl AppServerFold {
    fn start_turn(&mut self, id: Wtf8, out: &mut Folded) {
        self.end_turn(out);
        self.turn = Some(Turn {
            id,
            ..Turn::default()
        });
    }

    fn end_turn(&mut self, out: &mut Folded) {
        if self.turn.take().is_some() {
            out.end(None);
        }
        self.approvals.clear();
    }

    /// The turn `id` names, started when it is not the one under way.
    fn turn_named(&mut self, id: Option<&Wtf8>, out: &mut Folded) -> &mut Turn {
        let current = self.turn.as_ref().map(|t| &t.id);
        match (id, current) {
            (Some(id), Some(current)) if id != current => self.start_turn(id.clone(), out),
            (Some(id), None) => self.start_turn(id.clone(), out),
            (None, None) => self.start_turn(Wtf8::from(format!("turn-{}", out.len() + 1).as_str()), out),
            _ => {}
        }
        self.turn.as_mut().expect("a turn is under way")
    }

    /// Writes the turn's open assistant message again from its items.
    fn rerender(&mut self, out: &mut Folded) {
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        let (chunks, places) = render(&turn.items, &self.approvals);
        turn.places = places;
        let open = turn.message.is_some_and(|m| m + 1 == out.len() && out.is_open());
        if !open {
            if chunks.is_empty() {
                return;
            }
            let mut name = turn.id.to_string_lossy().into_owned();
            for _ in 0..turn.segments {
                name.push('\'');
            }
            turn.segments += 1;
            out.begin(MessageRole::Assistant, Some(name));
            turn.message = Some(out.len() - 1);
        }
        out.replace_open(chunks);
    }

    /// Folds an item, started (`completed` false) or whole.
    fn item(
        &mut self,
        item: &Json,
        completed: bool,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let Some(kind) = str_of(item, "type").cloned() else {
            return Err(FormatError::new("item.type", "must be a string"));
        };
        let Some(id) = str_of(item, "id").cloned() else {
            return Err(FormatError::new("item.id", "must be a string"));
        };
        let turn = self.turn.as_mut().expect("items come in a turn");
        match kind.as_bytes() {
            b"userMessage" => {
                let chunks = user_chunks(item);
                match turn.users.get(&id) {
                    Some(&at) => out.replace_chunks(at, chunks),
                    None => {
                        if turn.message.take().is_some() {
                            turn.items.clear();
                            turn.at.clear();
                            turn.places.clear();
                        }
                        out.end(None);
                        let name = id.to_string_lossy().into_owned();
                        out.add(ChatMessage {
                            id: name,
                            role: MessageRole::User,
                            chunks,
                        });
                        turn.users.insert(id, out.len() - 1);
                    }
                }
                Ok(())
            }
            k if shows(k) && !matches!(k, b"error" | b"cancelled") => {
                match turn.at.get(&id) {
                    Some(&at) => {
                        // The whole item replaces what its start and deltas built; a start
                        // sent again changes nothing.
                        if !completed {
                            return Ok(());
                        }
                        turn.items[at] = item.clone();
                    }
                    None => {
                        turn.at.insert(id, turn.items.len());
                        turn.items.push(item.clone());
                    }
                }
                self.rerender(out);
                Ok(())
            }
            k if QUIET_ITEMS.contains(&k) => {
                skips.pass(&format!("item/{kind}"));
                Ok(())
            }
            _ => skips.skip(line, format_args!("unknown item type \"{kind}\"")),
        }
    }

    /// A turn's end as `turn/completed` (or a re-read) gives it.
    fn complete_turn(&mut self, turn_value: &Json, out: &mut Folded) {
        let status = str_of(turn_value, "status").map(|s| s.as_bytes().to_vec());
        let end = match status.as_deref() {
            Some(b"failed") => {
                let shown = self.turn.as_ref().is_some_and(|t| t.failed);
                let error = turn_value.get("error").filter(|e| !matches!(e, Json::Null));
                match error {
                    Some(error) if !shown => Some(end_item("error", error_message(error))),
                    _ => None,
                }
            }
            Some(b"interrupted") => Some(end_item("cancelled", Wtf8::from("interrupted"))),
            _ => None,
        };
        if let (Some(end), Some(turn)) = (end, self.turn.as_mut()) {
            turn.items.push(end);
            self.rerender(out);
        }
    }

    /// An `error` notification that ends a turn: its error chunk, once.
    fn error(&mut self, params: &Json, out: &mut Folded) {
        let message = error_message(params.get("error").unwrap_or(&Json::Null));
        match self.turn.as_mut() {
            Some(turn) => {
                turn.failed = true;
                turn.items.push(end_item("error", message));
                self.rerender(out);
            }
            None => {
                out.end(None);
                out.begin(MessageRole::System, None);
                out.push_chunk(Chunk::Error {
                    message,
                    status_code: None,
                });
                out.end(None);
            }
        }
    }

    /// A delta of item `id`: `apply` grows the item; `grow` says which chunk grows by the
    /// delta as it is, else the message is written again.
    fn delta(
        &mut self,
        params: &Json,
        out: &mut Folded,
        apply: impl FnOnce(&mut Json, &Wtf8) -> Option<Grows>,
    ) -> FormatResult<()> {
        let Some(id) = str_of(params, "itemId").cloned() else {
            return Err(FormatError::new("params.itemId", "must be a string"));
        };
        let Some(delta) = str_of(params, "delta").cloned() else {
            return Err(FormatError::new("params.delta", "must be a string"));
        };
        let turn_id = str_of(params, "turnId").cloned();
        let turn = self.turn_named(turn_id.as_ref(), out);
        let Some(&at) = turn.at.get(&id) else {
            // A delta of an item never started: nothing to grow (its completion is whole).
            return Ok(());
        };
        let grows = apply(&mut turn.items[at], &delta);
        let place = turn.places.get(at).copied().unwrap_or_default();
        let chunk = match grows {
            Some(Grows::Text) => place.text,
            Some(Grows::Raw) => place.raw,
            Some(Grows::Whole) => None,
            None => return Ok(()),
        };
        match (chunk, turn.message) {
            (Some(chunk), Some(message)) if message + 1 == out.len() && out.is_open() => {
                out.extend_text_at(message, chunk, delta);
                Ok(())
            }
            _ => {
                self.rerender(out);
                Ok(())
            }
        }
    }
}

/// Which chunk of an item a delta grows, when it grows one as it is.
#[derive(Debug, Clone, Copy)]
enum Grows {
    Text,
    Raw,
    /// The item changed in a way its chunks show only when written again.
    Whole,
}

fn string_field<'a>(item: &'a mut Json, key: &str) -> &'a mut Wtf8 {
    if !matches!(item.get(key), Some(Json::String(_))) {
        if let Json::Object(fields) = item {
            fields.retain(|(k, _)| *k != *key);
            fields.push((Wtf8::from(key), Json::String(Wtf8::new())));
        }
    }
    match item.get_mut(key) {
        Some(Json::String(text)) => text,
        _ => unreachable!("an item is an object"),
    }
}

/// Appends `delta` to part `index` of the array of strings at `key`, adding parts up to
/// it; whether the part grown is the last (its chunk grows by the delta as it is).
fn grow_part(item: &mut Json, key: &str, index: usize, delta: &Wtf8) -> bool {
    if !matches!(item.get(key), Some(Json::Array(_))) {
        if let Json::Object(fields) = item {
            fields.retain(|(k, _)| *k != *key);
            fields.push((Wtf8::from(key), Json::Array(Vec::new())));
        }
    }
    let Some(Json::Array(parts)) = item.get_mut(key) else {
        return false;
    };
    let added = parts.len() <= index;
    while parts.len() <= index {
        parts.push(Json::String(Wtf8::new()));
    }
    let last = index + 1 == parts.len();
    match &mut parts[index] {
        Json::String(part) => part.push_wtf8(delta.as_bytes()),
        other => *other = Json::String(delta.clone()),
    }
    last && !added
}

fn index_of(params: &Json, key: &str) -> usize {
    params
        .get(key)
        .and_then(crate::reading::resume::whole)
        .unwrap_or(0)
}

impl AppServerFold {
    fn fold(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        if !matches!(value, Json::Object(_)) {
            return skips.skip(line, "a value that is not an object");
        }
        let Some(kind) = rpc::kind(&value) else {
            if let Some(thread) = reread_thread(&value) {
                return self.reread(thread, line, out, skips);
            }
            return skips.skip(line, "not a JSON-RPC message");
        };
        let params = value.get("params").unwrap_or(&Json::Undefined);
        match kind {
            Kind::Response => self.response(&value, line, out, skips),
            Kind::Request(method) => {
                let method = method.clone();
                let side = sender(method.as_bytes(), true);
                let id = rpc::id_text(&value).unwrap_or_default();
                let note = if method.as_bytes().ends_with(b"/requestApproval") {
                    self.approval_asked(&method, params, out)
                } else {
                    Json::Null
                };
                self.ledger.request(id, method.clone(), side, note);
                skips.pass(&method.to_string_lossy());
                Ok(())
            }
            Kind::Notification(method) => {
                let method = method.clone();
                self.ledger.seen(sender(method.as_bytes(), false));
                self.notification(&method, params, line, out, skips)
            }
        }
    }

    fn notification(
        &mut self,
        method: &Wtf8,
        params: &Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let turn_id = || str_of(params, "turnId").cloned();
        let m = method.as_bytes();
        if m.starts_with(b"turn/") || m.starts_with(b"item/") || m == b"error" {
            if let Some(thread) = str_of(params, "threadId") {
                match &self.thread {
                    None => self.thread = Some(thread.clone()),
                    Some(shown) if shown != thread => {
                        skips.pass(&format!("{} (another thread)", method.to_string_lossy()));
                        return Ok(());
                    }
                    Some(_) => {}
                }
            }
        }
        match method.as_bytes() {
            b"turn/started" => {
                let id = params.get("turn").and_then(|t| str_of(t, "id")).cloned();
                let Some(id) = id else {
                    return Err(FormatError::new("params.turn.id", "must be a string"));
                };
                self.start_turn(id, out);
            }
            b"turn/completed" => {
                let turn = params.get("turn").unwrap_or(&Json::Undefined);
                let id = str_of(turn, "id").cloned();
                if self.turn.as_ref().is_some_and(|t| Some(&t.id) == id.as_ref()) || self.turn.is_none() {
                    if self.turn.is_none() {
                        // Its items were not in the log: nothing of the turn shows.
                        skips.pass("turn/completed");
                        return Ok(());
                    }
                    self.complete_turn(turn, out);
                    self.end_turn(out);
                } else {
                    skips.pass("turn/completed");
                }
            }
            b"item/started" | b"item/completed" => {
                let item = params.get("item").unwrap_or(&Json::Undefined);
                if !matches!(item, Json::Object(_)) {
                    return Err(FormatError::new("params.item", "must be an object"));
                }
                self.turn_named(turn_id().as_ref(), out);
                self.item(item, method.as_bytes() == b"item/completed", line, out, skips)
                    .map_err(|e| e.under("params"))?;
            }
            b"item/agentMessage/delta" => {
                self.delta(params, out, |item, delta| {
                    string_field(item, "text").push_wtf8(delta.as_bytes());
                    Some(Grows::Text)
                })?;
            }
            b"item/plan/delta" => {
                self.delta(params, out, |item, delta| {
                    string_field(item, "text").push_wtf8(delta.as_bytes());
                    Some(Grows::Whole)
                })?;
            }
            // A reasoning's summary parts and its raw text grow alike, each in its own list.
            kind @ (b"item/reasoning/summaryTextDelta" | b"item/reasoning/textDelta") => {
                let (list, at, grows) = match kind {
                    b"item/reasoning/summaryTextDelta" => ("summary", "summaryIndex", Grows::Text),
                    _ => ("content", "contentIndex", Grows::Raw),
                };
                let index = index_of(params, at);
                self.delta(params, out, |item, delta| {
                    Some(if grow_part(item, list, index, delta) {
                        grows
                    } else {
                        Grows::Whole
                    })
                })?;
            }
            b"item/reasoning/summaryPartAdded" => {
                let index = index_of(params, "summaryIndex");
                let mut params = params.clone();
                if let Json::Object(fields) = &mut params {
                    fields.push((Wtf8::from("delta"), Json::String(Wtf8::new())));
                }
                self.delta(&params, out, |item, delta| {
                    grow_part(item, "summary", index, delta);
                    Some(Grows::Whole)
                })?;
            }
            b"item/commandExecution/outputDelta" => {
                // Shown when the command completes (its whole output then).
                self.delta(params, out, |item, delta| {
                    string_field(item, "aggregatedOutput").push_wtf8(delta.as_bytes());
                    None
                })?;
            }
            b"error" => {
                if matches!(params.get("willRetry"), Some(Json::Bool(true))) {
                    skips.pass("error (will retry)");
                } else {
                    self.error(params, out);
                }
            }
            b"serverRequest/resolved" => {
                if let Some(id) = params.get("requestId") {
                    let id = String::from_utf8_lossy(&id.to_json()).into_owned();
                    if let Some(request) = self.ledger.take(&id, Side::Server) {
                        self.approval_answered(&request.note, None, out);
                    }
                }
                skips.pass("serverRequest/resolved");
            }
            _ => skips.pass(&method.to_string_lossy()),
        }
        Ok(())
    }

    fn response(
        &mut self,
        value: &Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        if let Some(thread) = reread_thread(value) {
            let id = rpc::id_text(value).unwrap_or_default();
            self.ledger.answer(&id, |r| {
                r.method == *"thread/read" || r.method == *"thread/resume"
            });
            return self.reread(thread, line, out, skips);
        }
        let id = rpc::id_text(value).unwrap_or_default();
        match self.ledger.answer(&id, |_| true) {
            Some(request)
                if request.side == Side::Server
                    && request.method.as_bytes().ends_with(b"/requestApproval") =>
            {
                let decision = value
                    .get("result")
                    .and_then(|r| r.get("decision"))
                    .cloned()
                    .or_else(|| value.get("error").map(|e| Json::object([("error", e.clone())])));
                self.approval_answered(&request.note, decision, out);
                skips.pass("approval answered");
            }
            Some(request) => skips.pass(&format!("{} answered", request.method.to_string_lossy())),
            None => skips.pass("response"),
        }
        Ok(())
    }

    /// A re-read thread: its turns are the conversation.
    fn reread(
        &mut self,
        thread: &Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let messages = thread_messages(thread, line, skips)?;
        self.turn = None;
        self.approvals.clear();
        out.replace_messages(messages);
        out.set_open(false);
        Ok(())
    }

    /// The server asks to approve an item: the item's approval, asked; what the answer
    /// needs (the item id) is kept with the request.
    fn approval_asked(&mut self, method: &Wtf8, params: &Json, out: &mut Folded) -> Json {
        let Some(item) = str_of(params, "itemId").cloned() else {
            return Json::Null;
        };
        let mut approval = vec![(Wtf8::from("method"), Json::String(method.clone()))];
        if let Some(reason) = params.get("reason").filter(|r| !matches!(r, Json::Null)) {
            approval.push((Wtf8::from("reason"), reason.clone()));
        }
        self.approvals.insert(item.clone(), Json::Object(approval));
        self.rerender(out);
        Json::String(item)
    }

    /// The client answered (`decision`), or the server says the request was resolved.
    fn approval_answered(&mut self, note: &Json, decision: Option<Json>, out: &mut Folded) {
        let Some(item) = note.as_str() else {
            return;
        };
        let Some(Json::Object(approval)) = self.approvals.get_mut(item) else {
            return;
        };
        if let Some(decision) = decision {
            approval.retain(|(k, _)| *k != *"decision");
            approval.push((Wtf8::from("decision"), decision));
            self.rerender(out);
        }
    }
}

impl LiveFold for AppServerFold {
    /// A message of a method this version knows whose fields it cannot read is skipped and
    /// counted with what is wrong; `strict` refuses it.
    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let folded = self.fold(value, line, out, skips);
        skips.unreadable_skipped(line, folded)
    }

    fn save(&self) -> Json {
        let turn = match &self.turn {
            None => Json::Null,
            Some(turn) => Json::object([
                ("id", Json::String(turn.id.clone())),
                ("items", Json::Array(turn.items.clone())),
                (
                    "message",
                    turn.message.map_or(Json::Null, crate::reading::resume::number),
                ),
                ("segments", crate::reading::resume::number(turn.segments)),
                (
                    "users",
                    Json::Object(
                        {
                            let mut users: Vec<_> = turn.users.iter().collect();
                            users.sort_by_key(|(_, &at)| at);
                            users
                        }
                        .into_iter()
                        .map(|(id, &at)| (id.clone(), crate::reading::resume::number(at)))
                        .collect(),
                    ),
                ),
                ("failed", Json::Bool(turn.failed)),
            ]),
        };
        let mut approvals: Vec<_> = self.approvals.iter().collect();
        approvals.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        Json::object([
            ("turn", turn),
            (
                "approvals",
                Json::Object(
                    approvals
                        .into_iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                ),
            ),
            ("rpc", self.ledger.save()),
            ("thread", crate::reading::resume::optional(self.thread.as_ref())),
        ])
    }

    fn restore(&mut self, state: &Json, messages: &Folded) -> Result<(), String> {
        use crate::reading::resume::{count, flag, members, object, text, whole};
        object(state)?;
        self.ledger =
            Ledger::restore(state.get("rpc").unwrap_or(&Json::Undefined)).map_err(|e| format!(".rpc{e}"))?;
        self.approvals = members(state, "approvals")?.iter().cloned().collect();
        self.thread = crate::reading::resume::optional_text(state, "thread")?;
        self.turn = match state.get("turn") {
            None | Some(Json::Null) => None,
            Some(turn @ Json::Object(_)) => {
                let at = |e: String| format!(".turn{e}");
                let Some(Json::Array(items)) = turn.get("items") else {
                    return Err(".turn.items must be an array".into());
                };
                if items.iter().any(|i| str_of(i, "type").is_none()) {
                    return Err(".turn.items must hold items with a type".into());
                }
                let message = match turn.get("message") {
                    None | Some(Json::Null) => None,
                    Some(m) => match whole(m) {
                        Some(m) if m < messages.len() => Some(m),
                        _ => return Err(".turn.message must be the index of a message or null".into()),
                    },
                };
                let users = members(turn, "users")
                    .map_err(at)?
                    .iter()
                    .map(|(id, at)| match whole(at) {
                        Some(at) if at < messages.len() => Ok((id.clone(), at)),
                        _ => Err(".turn.users must map ids to indexes of messages".to_string()),
                    })
                    .collect::<Result<HashMap<_, _>, _>>()?;
                let at_ids = items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, item)| Some((str_of(item, "id")?.clone(), i)))
                    .collect();
                let (_, places) = render(items, &self.approvals);
                Some(Turn {
                    id: text(turn, "id").map_err(at)?.clone(),
                    items: items.clone(),
                    at: at_ids,
                    places,
                    message,
                    segments: count(turn, "segments").map_err(at)?,
                    users,
                    failed: flag(turn, "failed").map_err(at)?,
                })
            }
            Some(_) => return Err(".turn must be an object or null".into()),
        };
        Ok(())
    }
}

const SEALS: &str = "reasoning seals: the app server does not send a reasoning item's encrypted content";
const RAW: &str = "raw reasoning text: this version's app server sends a reasoning item's summary only";
const CUT_OUTPUTS: &str =
    "long outputs: the rollout (and a re-read of it) keeps a command output's head and tail, cut for persistence";
const COMPACTIONS: &str = "compaction summaries: the app server's contextCompaction item carries no summary";
const APPROVALS: &str =
    "approvals: the rollout and a re-read keep neither the server's request nor the client's answer";
const UNSHOWN: &str = "calls Codex shows no item for: the app server sends only the items Codex shows";
const SHOWN_TWO_WAYS: &str =
    "calls the rollout holds as the model made them (a version that stored no command items), where the app server shows the item Codex ran";

/// Brings a history of the same thread — the rollout, or a `thread/read` answer — to what
/// the app server's traffic carries (the stream's messages are left as they are), and says
/// what it set aside, a line per reason.
pub fn lockstep(stream: &mut [FormatMessage], history: &mut Vec<FormatMessage>) -> Vec<String> {
    let mut notes: std::collections::BTreeMap<&'static str, usize> = Default::default();
    let mut note = |why| *notes.entry(why).or_default() += 1;
    let calls = || {
        stream
            .iter()
            .flat_map(|m| &m.chunks)
            .filter_map(Chunk::calls)
            .flatten()
    };
    let shown: HashMap<&Wtf8, &ToolCallEntry<Wtf8, Json>> = calls()
        .filter(|call| items::display_kind(call.name.as_bytes()).is_some())
        .map(|call| (&call.id, call))
        .collect();
    let approvals: HashMap<&Wtf8, &Json> = calls()
        .filter_map(|call| Some((&call.id, call.meta.as_ref()?)))
        .collect();
    for message in history.iter_mut().filter(|m| m.role == MessageRole::Assistant) {
        let mut chunks = Vec::with_capacity(message.chunks.len());
        for chunk in std::mem::take(&mut message.chunks) {
            match chunk {
                Chunk::Thinking {
                    text,
                    metadata: Some(_),
                } => {
                    note(SEALS);
                    // A reasoning item with nothing but its encrypted content shows nothing.
                    if !text.is_empty() {
                        chunks.push(Chunk::Thinking { text, metadata: None });
                    }
                }
                Chunk::System {
                    kind: SystemChunkKind::Compaction,
                    text,
                } if !text.is_empty() => {
                    note(COMPACTIONS);
                    chunks.push(Chunk::System {
                        kind: SystemChunkKind::Compaction,
                        text: Wtf8::new(),
                    });
                }
                Chunk::ToolBatch { calls } => {
                    let mut kept = Vec::with_capacity(calls.len());
                    for mut call in calls {
                        if items::display_kind(call.name.as_bytes()).is_none() {
                            // The same call (by the model's call id) shown as the item Codex ran.
                            match shown.get(&call.id) {
                                Some(item) => {
                                    note(SHOWN_TWO_WAYS);
                                    call = (*item).clone();
                                }
                                None => {
                                    note(UNSHOWN);
                                    continue;
                                }
                            }
                        }
                        if let (Some((mine, _)), Some(Some((whole, _)))) =
                            (&mut call.result, shown.get(&call.id).map(|c| &c.result))
                        {
                            if super::lockstep::is_cut(mine, whole) {
                                note(CUT_OUTPUTS);
                                *mine = whole.clone();
                            }
                        }
                        if let (None, Some(meta)) = (&call.meta, approvals.get(&call.id)) {
                            note(APPROVALS);
                            call.meta = Some((*meta).clone());
                        }
                        kept.push(call);
                    }
                    if kept.is_empty() {
                        continue;
                    }
                    match chunks.last_mut() {
                        Some(Chunk::ToolBatch { calls }) => calls.extend(kept),
                        _ => chunks.push(Chunk::ToolBatch { calls: kept }),
                    }
                }
                other => chunks.push(other),
            }
        }
        message.chunks = chunks;
    }
    history.retain(|m| m.role != MessageRole::Assistant || !m.chunks.is_empty());
    // Raw reasoning text the rollout keeps after a summary, where the traffic's reasoning
    // item had none (0.58 sent a reasoning item's summary only).
    let theirs = stream.iter().filter(|m| m.role == MessageRole::Assistant);
    let mine = history.iter_mut().filter(|m| m.role == MessageRole::Assistant);
    for (mine, theirs) in mine.zip(theirs) {
        let mut kept: Vec<FormatChunk> = Vec::with_capacity(mine.chunks.len());
        let mut s = 0;
        for chunk in std::mem::take(&mut mine.chunks) {
            let raw = matches!(chunk, Chunk::Thinking { .. })
                && matches!(kept.last(), Some(Chunk::Thinking { .. }))
                && !matches!(theirs.chunks.get(s), Some(Chunk::Thinking { .. }));
            if raw {
                note(RAW);
                continue;
            }
            kept.push(chunk);
            s += 1;
        }
        mine.chunks = kept;
    }
    notes.into_iter().map(|(why, n)| format!("{n} × {why}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::value;

    fn fold(lines: &[&str]) -> (Vec<FormatMessage>, Skips, AppServerFold) {
        let mut out = Folded::new("turn");
        let mut skips = Skips::new(false);
        let mut fold = AppServerFold::default();
        for (n, line) in lines.iter().enumerate() {
            fold.push(value::parse_str(line).unwrap(), n + 1, &mut out, &mut skips)
                .unwrap();
        }
        (crate::reading::fold::owned_messages(&out), skips, fold)
    }

    #[test]
    fn a_resume_state_comes_back_and_names_what_it_cannot_take() {
        let (_, _, fold) = fold(&[
            r#"{"method":"turn/started","params":{"threadId":"t","turn":{"id":"u1","items":[],"status":"inProgress"}}}"#,
            r#"{"method":"item/started","params":{"threadId":"t","turnId":"u1","item":{"type":"agentMessage","id":"m","text":""}}}"#,
            r#"{"method":"item/agentMessage/delta","params":{"threadId":"t","turnId":"u1","itemId":"m","delta":"hi"}}"#,
        ]);
        let saved = fold.save();
        let mut out = Folded::new("turn");
        out.begin(MessageRole::Assistant, Some("u1".into()));
        let mut again = AppServerFold::default();
        again.restore(&saved, &out).unwrap();
        assert_eq!(again.turn, fold.turn);
        let bad = |text: &str| {
            AppServerFold::default()
                .restore(&value::parse_str(text).unwrap(), &out)
                .unwrap_err()
        };
        let rpc = r#""rpc":{"open":[],"clientSeen":false,"serverSeen":true}"#;
        assert_eq!(
            bad(&format!(r#"{{"turn":{{"id":"u1","items":[{{}}]}},{rpc}}}"#)),
            ".turn.items must hold items with a type"
        );
        assert_eq!(
            bad(&format!(
                r#"{{"turn":{{"id":"u1","items":[],"message":9}},{rpc}}}"#
            )),
            ".turn.message must be the index of a message or null"
        );
        assert_eq!(
            bad(r#"{"turn":null,"rpc":1}"#),
            ".rpc must be an object, got number"
        );
    }
}
