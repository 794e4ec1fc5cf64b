//! ACP `session/update` notifications folded into messages as an ACP client shows
//! them: the same fold for a live session and for a recorded one, so both give the same
//! messages.
//!
//! - `user_message_chunk`s (a prompt, or the history `session/load` replays) make `user`
//!   messages; `agent_message_chunk`s and `agent_thought_chunk`s make `assistant`
//!   messages (text and thinking chunks). A chunk starts a new message when its side
//!   changes, or when its `messageId` differs from the one the open message's chunks of
//!   its kind carry (text and thoughts are held to ids of their own kind: OpenCode sends a
//!   step's thoughts under the reasoning part's id and its text under the message's, and
//!   Zed shows them in one entry). A chunk whose kind has no id in the open message yet
//!   joins it, unless the message has no id at all and was opened by a call, a plan or a
//!   stop, or a call came since the other kind's id (the agent's next step). Nothing
//!   merges across two ids of one kind. A message takes its first `messageId` as its id
//!   (else `line-<n>`). An empty text chunk shows nothing and is not read (Qwen Code
//!   carries its usage in one).
//! - Non-text blocks are `file` chunks: images and audio with their data, links and
//!   embedded resources by their URI.
//! - A tool call is one entry of the open assistant message, kept as its latest updates
//!   say (a `session/request_permission`'s `toolCall` is one of them, as Zed applies it;
//!   a `tool_call` is the whole call, so its content is none when it sends none): `name`
//!   the `title` (what every client shows; the `kind` when there is none),
//!   `arguments` the `rawInput` (absent when not sent), and, once `completed` or
//!   `failed`, `result` the `content` (the `rawOutput` when the content shows nothing
//!   but terminals, or was not sent) with `isError` when failed. Each field an update sends replaces the stored one.
//! - A `plan` is a `system` chunk of kind `plan` in the agent's open message, one entry
//!   a line (`[in_progress] Read the spec (high)`).
//! - Session state (`available_commands_update`, `current_mode_update`,
//!   `config_option_update`, `session_info_update`, `usage_update`) is not message
//!   content; updates this version does not know are counted in [`AcpFold::unknown`].

use std::collections::{HashMap, HashSet};

use crate::model::{Chunk, MessageRole, SystemChunkKind};

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::acp::rpc::{self as acp_rpc, Captured};
use crate::formats::acp::updates::{self as acp, Role, SessionUpdate};
use crate::reading::model_json::{FormatEvent, FormatMessage};
use crate::reading::rpc::{Ledger, Request, Side};
use crate::reading::source::{Invalid, Reader};
use crate::reading::stored::{Sink, StoredMessages};
use crate::reading::value_source::{Node, TreeSource};
use crate::views::tool_call::ToolCallFields;

/// A tool call as its updates left it.
#[derive(Debug, Default, Clone)]
struct CallState {
    title: Option<Json>,
    kind: Option<Json>,
    status: Option<Json>,
    content: Option<Json>,
    raw_input: Option<Json>,
    raw_output: Option<Json>,
}

impl CallState {
    fn update(&mut self, fields: &ToolCallFields<Node<'_>>) {
        fn take(slot: &mut Option<Json>, sent: Option<Node<'_>>) {
            if let Some(Some(value)) = sent {
                *slot = Some(value.clone());
            }
        }
        take(&mut self.title, fields.title);
        take(&mut self.kind, fields.kind);
        take(&mut self.status, fields.status.map(|(value, _)| value));
        take(&mut self.content, fields.content);
        take(&mut self.raw_input, fields.raw_input);
        take(&mut self.raw_output, fields.raw_output);
    }

    fn name(&self) -> Wtf8 {
        [&self.title, &self.kind]
            .into_iter()
            .flatten()
            .find_map(|v| v.as_str().filter(|s| !s.is_empty()).cloned())
            .unwrap_or_else(|| Wtf8::from("other"))
    }

    fn result(&self) -> Option<(Json, Json)> {
        let status = self.status.as_ref()?.as_str()?.as_bytes();
        let failed = match status {
            b"completed" => false,
            b"failed" => true,
            _ => return None,
        };
        // A terminal's output is not in the content (it is the client's terminal): when
        // the content shows nothing else, the `rawOutput` is the result.
        let shows = |content: &Json| match content {
            Json::Array(items) => items.iter().any(|item| {
                item.get("type")
                    .and_then(Json::as_str)
                    .is_none_or(|t| *t != "terminal")
            }),
            _ => true,
        };
        let result = match (&self.content, &self.raw_output) {
            (Some(content), _) if shows(content) => content.clone(),
            (_, Some(output)) => output.clone(),
            (Some(content), None) => content.clone(),
            (None, None) => Json::Undefined,
        };
        Some((result, Json::Bool(failed)))
    }
}

/// The rules, and what they remember between updates.
#[derive(Debug, Default)]
pub struct AcpRules {
    /// The ids given to messages so far.
    ids: HashSet<String>,
    /// The `messageId` of the open message's text chunks, when they carry one.
    open_message_id: Option<Wtf8>,
    /// The `messageId` of the open message's thought chunks, when they carry one: an agent
    /// may send a step's thoughts under another id than its text (OpenCode: the reasoning
    /// part's id), so each kind of chunk is held to the ids of its own kind.
    open_thought_id: Option<Wtf8>,
    /// Whether a call was added to the open message since it opened: a chunk of a kind
    /// that has no id yet joins the message under another kind's id only before its
    /// calls (the agent's next step comes after them).
    after_call: bool,
    /// Whether the open message was opened by a chunk without an id, so that the first id
    /// sent names it (a message opened by a tool call or a plan belongs to no id).
    adopts_id: bool,
    /// The calls of the prompt turn under way: a turn ends at the next prompt, and a call
    /// id sent after that is a call of the new turn (live and in a history alike, where
    /// the earlier turn's messages are handed on by then).
    calls: HashMap<Wtf8, CallState>,
    /// Updates of a `sessionUpdate` this version does not know.
    pub unknown: usize,
    /// Tool call updates that came after their message was handed on.
    pub late: usize,
    /// Lines that are neither a notification nor JSON-RPC traffic.
    pub strangers: usize,
    /// The requests not answered yet, of both sides (see [`crate::reading::rpc`]).
    ledger: Ledger,
    /// Requests and notifications of methods that are not ACP's (another protocol's
    /// traffic), and the method of the last.
    pub foreign: usize,
    pub foreign_method: Wtf8,
}

/// The fold of a recording: the rules, and the messages they build.
#[derive(Debug, Default)]
pub struct AcpFold {
    rules: AcpRules,
    stored: StoredMessages,
    /// Updates of a `sessionUpdate` this version does not know.
    pub unknown: usize,
    /// Lines that are neither a notification nor JSON-RPC traffic.
    pub strangers: usize,
    /// JSON-RPC requests and notifications of another protocol, and the last one's method.
    pub foreign: usize,
    pub foreign_method: Wtf8,
}

/// Why a line was skipped: a JSON-RPC method that is not ACP's.
pub fn foreign_reason(method: &Wtf8) -> String {
    format!("JSON-RPC method \"{}\" is not ACP's", method.to_string_lossy())
}

/// The notification a line holds: `{ sessionId, update }`, a bare update, or a JSON-RPC
/// `session/update` request carrying it as its `params`.
pub fn notification(item: &Json) -> &Json {
    match item.get("method") {
        Some(Json::String(method)) if method.as_bytes() == b"session/update" => {
            item.get("params").unwrap_or(&Json::Undefined)
        }
        _ => item,
    }
}

impl AcpFold {
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds one notification (line `line` of a recording names messages without an id).
    pub fn push(&mut self, item: &Json, line: usize) -> Result<(), Invalid> {
        self.rules.push(item, line, &mut self.stored)?;
        self.unknown = self.rules.unknown;
        self.strangers = self.rules.strangers;
        self.foreign = self.rules.foreign;
        self.foreign_method.clone_from(&self.rules.foreign_method);
        Ok(())
    }
}

impl AcpRules {
    /// A unique name for a message: its `messageId`, else `line-<n>`.
    fn name(&mut self, id: Option<&Wtf8>, line: usize) -> String {
        let mut name = match id.map(|id| id.to_string_lossy().into_owned()) {
            Some(id) if !self.ids.contains(&id) => id,
            _ => format!("line-{line}"),
        };
        while self.ids.contains(&name) {
            name.push('\'');
        }
        self.ids.insert(name.clone());
        name
    }

    /// Folds one line of a capture into `out`: a notification, or JSON-RPC traffic (see
    /// [`acp_rpc`]). A line that is neither is counted in [`AcpRules::strangers`].
    pub fn push(&mut self, item: &Json, line: usize, out: &mut impl Sink) -> Result<(), Invalid> {
        if !matches!(item, Json::Object(_)) {
            // Refused as the notification it should be.
            return self.push_update(item, line, out);
        }
        match acp_rpc::read(item) {
            Some(Captured::Update(notification)) => {
                self.ledger.seen(Side::Server);
                self.push_update(&notification, line, out)
            }
            Some(Captured::Prompt { id, blocks }) => {
                match id {
                    Some(id) => {
                        self.ledger
                            .request(id, Wtf8::from("session/prompt"), Side::Client, Json::Null)
                    }
                    None => self.ledger.seen(Side::Client),
                }
                let name = self.name(None, line);
                out.start(MessageRole::User, name);
                self.calls.clear();
                self.open_message_id = None;
                self.open_thought_id = None;
                self.after_call = false;
                self.adopts_id = false;
                for block in blocks.iter() {
                    match block.get("text").and_then(Json::as_str) {
                        Some(text)
                            if block
                                .get("type")
                                .and_then(Json::as_str)
                                .is_some_and(|t| *t == "text") =>
                        {
                            out.event(FormatEvent::TextDelta { delta: text.clone() });
                        }
                        _ => {
                            if let Some(file) = file_chunk(block) {
                                out.push(file);
                            }
                        }
                    }
                }
                Ok(())
            }
            Some(Captured::Stopped { id, reason }) => {
                self.end_turn(id.as_deref(), true);
                let kind = match reason.as_bytes() {
                    b"end_turn" => return Ok(()),
                    b"cancelled" => SystemChunkKind::Cancelled,
                    _ => SystemChunkKind::Stopped,
                };
                self.agent_message(line, out);
                out.push(Chunk::System { kind, text: reason });
                Ok(())
            }
            Some(Captured::Failed { id, message }) => {
                // Only a prompt's failure is the conversation's: a failed `fs/…` or
                // `terminal/…` request shows in its tool call.
                if self.end_turn(id.as_deref(), false) {
                    self.agent_message(line, out);
                    out.event(FormatEvent::Error {
                        error: message,
                        status_code: None,
                    });
                }
                Ok(())
            }
            Some(Captured::Permission { id, call }) => {
                // The agent's request (a response to it may come), and the call it asks
                // about, as a client applies it: one more update of it.
                match id {
                    Some(id) => self.ledger.request(
                        id,
                        Wtf8::from("session/request_permission"),
                        Side::Server,
                        Json::Null,
                    ),
                    None => self.ledger.seen(Side::Server),
                }
                let Some(call) = call else {
                    return Ok(());
                };
                let mut update = call.into_owned();
                if let Json::Object(fields) = &mut update {
                    fields.retain(|(key, _)| key.as_bytes() != b"sessionUpdate");
                    fields.push((Wtf8::from("sessionUpdate"), Json::string("tool_call_update")));
                }
                self.push_update(&update, line, out)
            }
            Some(Captured::Request { id, method }) => {
                let side = acp_rpc::sender(method.as_bytes());
                self.ledger.request(id, method, side, Json::Null);
                Ok(())
            }
            Some(Captured::Foreign(method)) => {
                self.foreign += 1;
                self.foreign_method = method;
                Ok(())
            }
            Some(Captured::Traffic) => Ok(()),
            None => {
                self.strangers += 1;
                Ok(())
            }
        }
    }

    /// A response came: whether it answers a `session/prompt` this capture holds the
    /// request of (matched by the side that could have sent it, not by id alone: the
    /// agent numbers its own requests). `stopped`: its result names why a prompt turn
    /// stopped, which only a prompt's does.
    fn end_turn(&mut self, id: Option<&str>, stopped: bool) -> bool {
        let Some(id) = id else {
            return false;
        };
        let prompt = |r: &Request| r.method == *"session/prompt";
        match self.ledger.answer(id, |r| !stopped || prompt(r)) {
            Some(request) => prompt(&request),
            None => false,
        }
    }

    /// Makes sure the agent's message is open (a stop or failure with nothing before it
    /// opens one of its own).
    fn agent_message(&mut self, line: usize, out: &mut impl Sink) {
        if out.open_role() != Some(MessageRole::Assistant) {
            let name = self.name(None, line);
            out.start(MessageRole::Assistant, name);
            self.open_message_id = None;
            self.open_thought_id = None;
            self.after_call = false;
            self.adopts_id = false;
        }
    }

    fn push_update(&mut self, item: &Json, line: usize, out: &mut impl Sink) -> Result<(), Invalid> {
        let source = TreeSource::default();
        let reader = Reader {
            source: &source,
            root: "notification",
        };
        let update = acp::read_update(&reader, Some(notification(item)), &[])?;
        match update {
            SessionUpdate::Chunk {
                role,
                text,
                message_id,
                block,
            } => {
                let side = if role == Role::User {
                    MessageRole::User
                } else {
                    MessageRole::Assistant
                };
                let text = text.flatten().and_then(Json::as_str);
                // An empty text shows nothing and says nothing of the message (Qwen Code
                // carries its usage in an empty agent_message_chunk, at one place live
                // and at another on load).
                if text.is_some_and(|text| text.as_bytes().is_empty()) {
                    return Ok(());
                }
                let id = message_id.flatten().and_then(Json::as_str);
                let thought = role == Role::Thinking;
                let (own, other) = if thought {
                    (&self.open_thought_id, &self.open_message_id)
                } else {
                    (&self.open_message_id, &self.open_thought_id)
                };
                let new_id = match (id, own) {
                    (Some(id), Some(open)) => id != open,
                    // A message a call, a plan or a stop opened has no id: a chunk
                    // with one is another message.
                    (Some(id), None) => {
                        other.as_ref() != Some(id) && !self.adopts_id && (other.is_none() || self.after_call)
                    }
                    (None, _) => false,
                };
                if out.open_role() != Some(side) || new_id {
                    let name = self.name(id, line);
                    out.start(side, name);
                    if side == MessageRole::User {
                        self.calls.clear();
                    }
                    self.open_message_id = None;
                    self.open_thought_id = None;
                    self.after_call = false;
                    self.adopts_id = id.is_none();
                }
                if let Some(id) = id {
                    let slot = if thought {
                        &mut self.open_thought_id
                    } else {
                        &mut self.open_message_id
                    };
                    if slot.is_none() {
                        *slot = Some(id.clone());
                        self.adopts_id = false;
                    }
                }
                match text {
                    Some(text) => {
                        let delta = text.clone();
                        out.event(match role {
                            Role::Thinking => FormatEvent::ReasoningDelta { delta },
                            _ => FormatEvent::TextDelta { delta },
                        });
                    }
                    None => {
                        if let Some(file) = block.and_then(file_chunk) {
                            out.push(file);
                        }
                    }
                }
            }
            SessionUpdate::ToolCall(fields) => self.push_call(true, &fields, line, out),
            SessionUpdate::ToolCallUpdate(fields) => self.push_call(false, &fields, line, out),
            SessionUpdate::Plan { entries } => {
                // The agent's, inside its open message: a plan between two chunks of one
                // message must not cut that message in two.
                if out.open_role() != Some(MessageRole::Assistant) {
                    let name = self.name(None, line);
                    out.start(MessageRole::Assistant, name);
                    self.open_message_id = None;
                    self.open_thought_id = None;
                    self.after_call = false;
                    self.adopts_id = false;
                }
                out.push(Chunk::System {
                    kind: SystemChunkKind::Plan,
                    text: plan_text(entries),
                });
            }
            SessionUpdate::Other => {}
            SessionUpdate::Unknown => self.unknown += 1,
        }
        Ok(())
    }
}

impl AcpRules {
    /// A `tool_call` (`whole`) or a `tool_call_update`, or a permission request's call.
    fn push_call(
        &mut self,
        whole: bool,
        fields: &ToolCallFields<Node<'_>>,
        line: usize,
        out: &mut impl Sink,
    ) {
        let Some(id) = fields.id.and_then(Json::as_str).cloned() else {
            return;
        };
        let seen = self.calls.contains_key(&id);
        let state = self.calls.entry(id.clone()).or_default();
        // A `tool_call` is the whole call: its content is what it sends, none when it
        // sends none (Zed sets it so), though an earlier update or permission request
        // of the call sent some (codex-acp asks before it announces the call, with
        // the proposed command as the content).
        if whole && !matches!(fields.content, Some(Some(_))) {
            state.content = None;
        }
        state.update(fields);
        let (name, arguments, result) = (
            state.name(),
            state.raw_input.clone().unwrap_or(Json::Undefined),
            state.result(),
        );
        if !seen {
            self.agent_message(line, out);
            out.add_call(id.clone(), name.clone(), arguments.clone());
            self.after_call = true;
        }
        if !out.update_call(&id, name, arguments, result) {
            self.late += 1;
        }
    }
}

impl AcpFold {
    /// Hands on the messages before the open user message: a prompt turn ends before the
    /// next prompt, so no update changes them any more (an update may still change a
    /// finished call while its turn runs).
    pub fn hand_on(&mut self, emit: &mut impl FnMut(FormatMessage) -> bool) -> bool {
        if self.stored.open_role() != Some(MessageRole::User) {
            return true;
        }
        self.stored.hand_on(emit)
    }

    pub fn finish(self, emit: &mut impl FnMut(FormatMessage) -> bool) {
        self.stored.finish(emit)
    }

    pub fn into_messages(self) -> Vec<FormatMessage> {
        self.stored.into_messages()
    }
}

/// Why an update is skipped.
pub const UNKNOWN_UPDATE: &str = "a sessionUpdate this version does not know";
/// Why a line is skipped.
pub const NO_ACP_MESSAGE: &str = "neither an ACP notification nor JSON-RPC";

/// The `acp` stream's live fold: the same rules, folding into the stream's messages.
#[derive(Debug, Default)]
pub struct AcpLive {
    rules: AcpRules,
}

impl AcpRules {
    /// What the rules remember, taken up from messages they folded before: the ids given,
    /// the open message's `messageId`, and each call as its updates left it (its name as
    /// its title, its arguments as its `rawInput`, its result as its content).
    pub fn resume(&mut self, messages: &crate::reading::fold::Folded) {
        for index in 0..messages.len() {
            let (id, _, chunks) = messages.message(index);
            self.ids.insert(id.to_string());
            for chunk in chunks {
                let Chunk::ToolBatch { calls } = chunk else {
                    continue;
                };
                for call in calls {
                    let (status, content) = match &call.result {
                        Some((result, is_error)) => {
                            let failed = matches!(is_error, Json::Bool(true));
                            (
                                Some(Json::string(if failed { "failed" } else { "completed" })),
                                Some(result.clone()),
                            )
                        }
                        None => (None, None),
                    };
                    let state = CallState {
                        title: Some(Json::String(call.name.clone())),
                        status,
                        content,
                        raw_input: (call.arguments != Json::Undefined).then(|| call.arguments.clone()),
                        ..CallState::default()
                    };
                    self.calls.insert(call.id.clone(), state);
                }
            }
        }
        if let Some(last) = messages.len().checked_sub(1) {
            let (id, _, chunks) = messages.message(last);
            // A message named by its line was opened without a `messageId`: by a chunk (which
            // the first id sent then names) or by a call or a plan (which belong to none).
            let by_line = id.starts_with("line-");
            let named = (!by_line).then(|| Wtf8::from(id));
            // The id names the kind of chunk that opened the message.
            if matches!(chunks.first(), Some(Chunk::Thinking { .. })) {
                self.open_thought_id = named;
            } else {
                self.open_message_id = named;
            }
            self.after_call = chunks.iter().any(|c| matches!(c, Chunk::ToolBatch { .. }));
            self.adopts_id = by_line
                && matches!(
                    chunks.first(),
                    Some(Chunk::Text { .. } | Chunk::Thinking { .. } | Chunk::File { .. })
                );
        }
    }
}

impl CallState {
    const FIELDS: [&'static str; 6] = ["title", "kind", "status", "content", "rawInput", "rawOutput"];

    fn slots(&self) -> [&Option<Json>; 6] {
        [
            &self.title,
            &self.kind,
            &self.status,
            &self.content,
            &self.raw_input,
            &self.raw_output,
        ]
    }

    fn slots_mut(&mut self) -> [&mut Option<Json>; 6] {
        [
            &mut self.title,
            &mut self.kind,
            &mut self.status,
            &mut self.content,
            &mut self.raw_input,
            &mut self.raw_output,
        ]
    }

    /// The fields its updates sent, under their ACP names.
    fn save(&self) -> Json {
        Json::Object(
            Self::FIELDS
                .iter()
                .zip(self.slots())
                .filter_map(|(key, slot)| Some((Wtf8::from(*key), slot.clone()?)))
                .collect(),
        )
    }

    fn restore(state: &Json) -> Self {
        let mut call = CallState::default();
        for (key, slot) in Self::FIELDS.iter().zip(call.slots_mut()) {
            *slot = state.get(key).filter(|v| !matches!(v, Json::Undefined)).cloned();
        }
        call
    }
}

impl AcpRules {
    /// What the rules remember that messages do not show: the open message's `messageId`s
    /// (of its text and of its thoughts), whether it adopts one and whether a call came in it, each call of the turn under way as its updates left it
    /// (a `content` sent before the update that completes the call shows nowhere yet),
    /// and the prompts not answered yet.
    pub fn save(&self) -> Json {
        Json::object([
            (
                "openMessageId",
                crate::reading::resume::optional(self.open_message_id.as_ref()),
            ),
            (
                "openThoughtId",
                crate::reading::resume::optional(self.open_thought_id.as_ref()),
            ),
            ("afterCall", Json::Bool(self.after_call)),
            ("adoptsId", Json::Bool(self.adopts_id)),
            (
                "calls",
                Json::Object(
                    self.calls
                        .iter()
                        .map(|(id, call)| (id.clone(), call.save()))
                        .collect(),
                ),
            ),
            ("rpc", self.ledger.save()),
        ])
    }

    /// Takes up [`AcpRules::save`]'s state; the ids given are those of `messages`.
    pub fn restore(&mut self, state: &Json, messages: &crate::reading::fold::Folded) -> Result<(), String> {
        use crate::reading::resume::{flag, members, object, optional_text};
        object(state)?;
        self.ids = (0..messages.len())
            .map(|i| messages.message(i).0.to_string())
            .collect();
        self.open_message_id = optional_text(state, "openMessageId")?;
        // A state saved before thoughts had ids of their own held one id for both kinds.
        self.open_thought_id = match state.get("openThoughtId") {
            None => self.open_message_id.clone(),
            Some(_) => optional_text(state, "openThoughtId")?,
        };
        self.after_call = flag(state, "afterCall")?;
        self.adopts_id = flag(state, "adoptsId")?;
        self.calls = members(state, "calls")?
            .iter()
            .map(|(id, call)| (id.clone(), CallState::restore(call)))
            .collect();
        self.ledger = match state.get("rpc") {
            None | Some(Json::Null) => Ledger::default(),
            Some(rpc) => Ledger::restore(rpc).map_err(|e| format!(".rpc{e}"))?,
        };
        Ok(())
    }
}

impl crate::reading::fold::LiveFold for AcpLive {
    fn resume(&mut self, messages: &crate::reading::fold::Folded) {
        self.rules.resume(messages);
    }

    fn save(&self) -> Json {
        self.rules.save()
    }

    fn restore(&mut self, state: &Json, messages: &crate::reading::fold::Folded) -> Result<(), String> {
        self.rules.restore(state, messages)
    }

    fn push(
        &mut self,
        value: Json,
        line: usize,
        out: &mut crate::reading::fold::Folded,
        skips: &mut crate::reading::check::Skips,
    ) -> crate::reading::check::FormatResult<()> {
        let (unknown, strangers, foreign) = (self.rules.unknown, self.rules.strangers, self.rules.foreign);
        self.rules
            .push(&value, line, out)
            .map_err(|e| crate::reading::check::FormatError::new("", e.to_string()))?;
        if self.rules.foreign > foreign {
            skips.skip(line, foreign_reason(&self.rules.foreign_method))?;
        }
        if self.rules.unknown > unknown {
            skips.skip(line, UNKNOWN_UPDATE)?;
        }
        if self.rules.strangers > strangers {
            skips.skip(line, NO_ACP_MESSAGE)?;
        }
        Ok(())
    }
}

/// Folds a whole recording (notifications in order) into messages.
pub fn to_messages(items: &[Json]) -> Result<Vec<FormatMessage>, Invalid> {
    let mut fold = AcpFold::new();
    for (index, item) in items.iter().enumerate() {
        fold.push(item, index + 1).map_err(|mut e| {
            e.path = format!(
                "[{index}]{}",
                e.path.strip_prefix("notification").unwrap_or(&e.path)
            );
            e
        })?;
    }
    Ok(fold.into_messages())
}

fn string(value: Option<&Json>) -> Option<Wtf8> {
    value.and_then(Json::as_str).cloned()
}

/// A content block other than text as a `file` chunk: `image` / `audio` with their
/// base64 `data` (and an image's `uri`), a `resource_link` by its `uri` and `name`, an
/// embedded `resource` by its `uri` (a binary one with its `blob`).
pub fn file_chunk(block: &Json) -> Option<Chunk<Wtf8, Json>> {
    let ty = block.get("type")?.as_str()?.as_bytes();
    let (media_type, data, url, filename) = match ty {
        b"image" | b"audio" => (
            string(block.get("mimeType")),
            string(block.get("data")),
            string(block.get("uri")),
            None,
        ),
        b"resource_link" => (
            string(block.get("mimeType")),
            None,
            string(block.get("uri")),
            string(block.get("name")),
        ),
        b"resource" => {
            let resource = block.get("resource")?;
            (
                string(resource.get("mimeType")),
                string(resource.get("blob")),
                string(resource.get("uri")),
                None,
            )
        }
        _ => return None,
    };
    Some(Chunk::File {
        media_type: media_type.unwrap_or_else(|| Wtf8::from("application/octet-stream")),
        data,
        url,
        filename,
    })
}

/// A plan's entries, one a line: `[status] content (priority)`.
fn plan_text(entries: Node<'_>) -> Wtf8 {
    let mut text = Wtf8::new();
    let Some(Json::Array(entries)) = entries else {
        return text;
    };
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            text.push_wtf8(b"\n");
        }
        if let Some(status) = string(entry.get("status")) {
            text.push_wtf8(b"[");
            text.push_wtf8(status.as_bytes());
            text.push_wtf8(b"] ");
        }
        if let Some(content) = string(entry.get("content")) {
            text.push_wtf8(content.as_bytes());
        }
        if let Some(priority) = string(entry.get("priority")) {
            text.push_wtf8(b" (");
            text.push_wtf8(priority.as_bytes());
            text.push_wtf8(b")");
        }
    }
    text
}
