//! What Codex's items are in the chunk model, for the rollout and for `codex exec --json`
//! alike, so that a run's live stream and its rollout give the same chunks.
//!
//! - An agent message is a `text` chunk of its own (Codex keeps its messages apart: a
//!   commentary and the final answer are two items, never one text).
//! - A reasoning item is a `thinking` chunk: its summary parts joined by a line break (as
//!   `codex exec --json` joins them). It is sealed with `{ openai: { itemId,
//!   reasoningEncryptedContent } }` when the rollout kept its encrypted content; a
//!   reasoning item with no summary and no text is that sealed, empty (redacted) thinking.
//!   Raw reasoning text (`show_raw_agent_reasoning`) follows as a thinking chunk of its own.
//! - A tool the agent ran is a call. A call Codex shows as an item (a command, a patch, an
//!   MCP call, a web search, a sub-agent call) is the item as Codex shows it: named by the
//!   item's type as `codex exec --json` names it (`command_execution`, `file_change`,
//!   `mcp_tool_call`, `web_search`, `collab_tool_call`, …), its arguments the item's input
//!   (a command as one line, as Codex shows it), its result the item's outcome (a command's
//!   output; `isError` when it failed or was declined). A call Codex shows no item for (a
//!   rollout before Codex stored its command items, a call of a tool that does not exist)
//!   is the model's call: the function's name, its arguments (parsed when they are JSON),
//!   and the output the model was given.

use crate::bytes::value::{self, str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::model::{Chunk, SystemChunkKind};
use crate::reading::check::{wrong, FormatError};
use crate::reading::model_json::FormatChunk;

use super::shell;

/// A reasoning item: its summary parts, its raw text parts, its encrypted content.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reasoning {
    pub id: Option<Wtf8>,
    pub summary: Vec<Wtf8>,
    pub raw: Vec<Wtf8>,
    pub encrypted: Option<Wtf8>,
}

fn joined(parts: &[Wtf8], separator: &[u8]) -> Wtf8 {
    let mut text = Wtf8::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            text.push_wtf8(separator);
        }
        text.push_wtf8(part.as_bytes());
    }
    text
}

impl Reasoning {
    /// Whether the item holds anything to show or keep.
    pub fn is_empty(&self) -> bool {
        self.summary.iter().all(Wtf8::is_empty)
            && self.raw.iter().all(Wtf8::is_empty)
            && self.encrypted.is_none()
    }

    /// The summary as one text, as `codex exec --json` shows it.
    pub fn summary_text(&self) -> Wtf8 {
        joined(&self.summary, b"\n")
    }

    /// `{ openai: { itemId?, reasoningEncryptedContent } }`.
    fn seal(&self) -> Option<Json> {
        let encrypted = self.encrypted.as_ref()?;
        let mut fields = Vec::new();
        if let Some(id) = &self.id {
            fields.push((Wtf8::from("itemId"), Json::String(id.clone())));
        }
        fields.push((
            Wtf8::from("reasoningEncryptedContent"),
            Json::String(encrypted.clone()),
        ));
        Some(Json::Object(vec![(Wtf8::from("openai"), Json::Object(fields))]))
    }

    /// The thinking chunks the item is.
    pub fn chunks(&self) -> Vec<FormatChunk> {
        let summary = self.summary.iter().any(|s| !s.is_empty());
        let raw = self.raw.iter().any(|s| !s.is_empty());
        let mut chunks = Vec::new();
        if summary || !raw {
            if !summary && self.encrypted.is_none() {
                return chunks;
            }
            chunks.push(Chunk::Thinking {
                text: self.summary_text(),
                metadata: self.seal(),
            });
            if raw {
                chunks.push(Chunk::Thinking {
                    text: joined(&self.raw, b"\n"),
                    metadata: None,
                });
            }
        } else {
            chunks.push(Chunk::Thinking {
                text: joined(&self.raw, b"\n"),
                metadata: self.seal(),
            });
        }
        chunks
    }
}

/// The texts of `parts` whose type is one of `types`.
pub fn texts<'a>(parts: Option<&'a Json>, types: &'a [&str]) -> impl Iterator<Item = &'a Wtf8> + 'a {
    let parts: &[Json] = match parts {
        Some(Json::Array(parts)) => parts,
        _ => &[],
    };
    parts.iter().filter_map(move |part| {
        let kind = str_of(part, "type")?;
        types
            .iter()
            .any(|t| *kind == **t)
            .then(|| str_of(part, "text"))
            .flatten()
    })
}

/// The texts of `parts` joined as Codex joins a message's parts (with nothing between).
pub fn text_of(parts: Option<&Json>, types: &[&str]) -> Wtf8 {
    let mut text = Wtf8::new();
    for part in texts(parts, types) {
        text.push_wtf8(part.as_bytes());
    }
    text
}

/// The strings of an array (the parts of a reasoning item in `item_completed`).
pub fn strings(value: Option<&Json>) -> Vec<Wtf8> {
    match value {
        Some(Json::Array(items)) => items.iter().filter_map(|i| i.as_str().cloned()).collect(),
        _ => Vec::new(),
    }
}

/// A tool call as the chunk model holds it: `(name, arguments)`, and its outcome once it
/// has one: `(result, isError)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub name: Wtf8,
    pub arguments: Json,
    pub outcome: Option<(Json, bool)>,
}

fn field(value: &Json, key: &str) -> Json {
    value.get(key).cloned().unwrap_or(Json::Null)
}

/// A command as one line: a string as it is, an argument vector joined as Codex shows it.
pub fn command_line(command: Option<&Json>) -> Json {
    match command {
        Some(Json::Array(words)) => {
            let words: Vec<&Wtf8> = words.iter().filter_map(Json::as_str).collect();
            Json::String(shell::join(&words))
        }
        Some(other) => other.clone(),
        None => Json::Null,
    }
}

/// Whether a status says the item is still running.
fn running(status: Option<&Wtf8>) -> bool {
    status.is_some_and(|s| matches!(s.as_bytes(), b"in_progress" | b"inProgress" | b"pending"))
}

fn failed(status: Option<&Wtf8>) -> bool {
    status.is_some_and(|s| matches!(s.as_bytes(), b"failed" | b"declined" | b"errored" | b"error"))
}

fn exit_code(value: &Json) -> Option<f64> {
    value.get("exit_code").and_then(Json::as_f64)
}

/// The item kinds Codex shows a tool run as, by the names the rollout's `item_completed`
/// (PascalCase) and `codex exec --json` (snake_case) give them.
pub fn display_kind(kind: &[u8]) -> Option<&'static str> {
    Some(match kind {
        b"CommandExecution" | b"command_execution" => "command_execution",
        b"FileChange" | b"file_change" => "file_change",
        b"McpToolCall" | b"mcp_tool_call" => "mcp_tool_call",
        b"WebSearch" | b"web_search" => "web_search",
        b"CollabAgentToolCall" | b"collab_tool_call" => "collab_tool_call",
        b"DynamicToolCall" | b"dynamic_tool_call" => "dynamic_tool_call",
        b"ImageView" | b"image_view" => "image_view",
        b"ImageGeneration" | b"image_generation" => "image_generation",
        _ => return None,
    })
}

/// A file change's changes as `codex exec --json` lists them: `[{ path, kind, diff? }]`,
/// from a list as it is or from the rollout's map of path to change (sorted by path, as
/// Codex sorts them).
fn changes(value: Option<&Json>) -> Json {
    match value {
        Some(Json::Object(map)) => {
            let mut list: Vec<(&Wtf8, &Json)> = map.iter().map(|(k, v)| (k, v)).collect();
            list.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            Json::Array(
                list.into_iter()
                    .map(|(path, change)| {
                        let kind = str_of(change, "type")
                            .cloned()
                            .unwrap_or_else(|| Wtf8::from("update"));
                        let diff = change
                            .get("unified_diff")
                            .or_else(|| change.get("content"))
                            .cloned()
                            .unwrap_or(Json::Null);
                        let mut diff = diff;
                        if let (Json::String(text), Some(to)) = (&mut diff, str_of(change, "move_path")) {
                            text.push_wtf8(b"\n\nMoved to: ");
                            text.push_wtf8(to.as_bytes());
                        }
                        Json::object([
                            ("path", Json::String(path.clone())),
                            ("kind", Json::String(kind)),
                            ("diff", diff),
                        ])
                    })
                    .collect(),
            )
        }
        Some(other) => other.clone(),
        None => Json::Array(Vec::new()),
    }
}

/// A sub-agent's state as `codex exec --json` gives it, `{ status, message }`, from the
/// rollout's `"pending_init"` / `{ "completed": "…" }` too.
fn agent_state(state: &Json) -> Json {
    match state {
        Json::String(status) => {
            Json::object([("status", Json::String(status.clone())), ("message", Json::Null)])
        }
        Json::Object(fields) if fields.len() == 1 && state.get("status").is_none() => {
            let (status, message) = &fields[0];
            let message = match message {
                Json::String(_) => message.clone(),
                _ => Json::Null,
            };
            Json::object([("status", Json::String(status.clone())), ("message", message)])
        }
        other => other.clone(),
    }
}

fn agent_states(value: Option<&Json>) -> Json {
    match value {
        Some(Json::Object(states)) => Json::Object(
            states
                .iter()
                .map(|(id, state)| (id.clone(), agent_state(state)))
                .collect(),
        ),
        _ => Json::Object(Vec::new()),
    }
}

/// A tool run as Codex shows it, from an item of kind `kind` ([`display_kind`]): the item
/// of `codex exec --json` or of the rollout's `item_completed`.
pub fn shown_item(kind: &'static str, item: &Json) -> Shown {
    let status = str_of(item, "status");
    let done = !running(status);
    let name = Wtf8::from(kind);
    match kind {
        "command_execution" => {
            // An end event that does not repeat the command leaves the one its start gave.
            let arguments = match item.get("command") {
                Some(command) => Json::object([("command", command_line(Some(command)))]),
                None => Json::Undefined,
            };
            let error = failed(status) || exit_code(item).is_some_and(|c| c != 0.0);
            let output = item
                .get("aggregated_output")
                .cloned()
                .filter(|o| !matches!(o, Json::Null));
            Shown {
                name,
                arguments,
                outcome: done.then(|| (output.unwrap_or_else(|| Json::string("")), error)),
            }
        }
        "file_change" => Shown {
            name,
            arguments: Json::object([("changes", changes(item.get("changes")))]),
            outcome: done.then(|| (field(item, "status"), failed(status))),
        },
        "mcp_tool_call" => {
            let error = item.get("error").filter(|e| !matches!(e, Json::Null));
            // The tool's result as `codex exec --json` gives it, `{ content, structured_content }`,
            // from the MCP result the rollout keeps (`structuredContent`, `isError`) too.
            let result = item.get("result").filter(|r| !matches!(r, Json::Null));
            let result_failed = result.is_some_and(|r| matches!(r.get("isError"), Some(Json::Bool(true))));
            let result = match result {
                Some(r) if r.get("content").is_some() => Json::object([
                    ("content", field(r, "content")),
                    (
                        "structured_content",
                        r.get("structured_content")
                            .or_else(|| r.get("structuredContent"))
                            .cloned()
                            .unwrap_or(Json::Null),
                    ),
                ]),
                Some(r) => r.clone(),
                None => Json::Null,
            };
            let outcome = match error {
                Some(error) => Some((
                    error.get("message").cloned().unwrap_or_else(|| error.clone()),
                    true,
                )),
                None => done.then_some((result, failed(status) || result_failed)),
            };
            Shown {
                name,
                arguments: Json::object([
                    ("server", field(item, "server")),
                    ("tool", field(item, "tool")),
                    ("arguments", field(item, "arguments")),
                ]),
                outcome,
            }
        }
        "web_search" => {
            let query = field(item, "query");
            // The search's action is known once it ran (an empty query while it runs).
            let action = item
                .get("action")
                .filter(|a| str_of(a, "type").is_none_or(|t| *t != "other"));
            Shown {
                name,
                arguments: Json::object([("query", query)]),
                outcome: action.map(|a| (a.clone(), false)),
            }
        }
        "collab_tool_call" => {
            let outcome = done.then(|| {
                (
                    Json::object([
                        ("receiver_thread_ids", field(item, "receiver_thread_ids")),
                        ("agents_states", agent_states(item.get("agents_states"))),
                    ]),
                    failed(status),
                )
            });
            Shown {
                name,
                arguments: Json::object([("tool", field(item, "tool")), ("prompt", field(item, "prompt"))]),
                outcome,
            }
        }
        "dynamic_tool_call" => {
            let success = item.get("success").and_then(|s| match s {
                Json::Bool(b) => Some(*b),
                _ => None,
            });
            let result = item
                .get("content_items")
                .or_else(|| item.get("contentItems"))
                .cloned();
            Shown {
                name,
                arguments: Json::object([
                    ("tool", field(item, "tool")),
                    ("arguments", field(item, "arguments")),
                ]),
                outcome: (done && (result.is_some() || success.is_some())).then(|| {
                    (
                        result.unwrap_or(Json::Null),
                        success == Some(false) || failed(status),
                    )
                }),
            }
        }
        "image_view" => Shown {
            name,
            arguments: Json::object([("path", field(item, "path"))]),
            outcome: None,
        },
        _ => Shown {
            name,
            arguments: Json::object([("revised_prompt", field(item, "revised_prompt"))]),
            outcome: done.then(|| (field(item, "result"), failed(status))),
        },
    }
}

/// Codex's events of a tool run (the rollout's `event_msg`s, and the `{id, msg}` lines
/// `codex exec --json` wrote before 0.40): `exec_command_*`, `patch_apply_*`,
/// `mcp_tool_call_*`, `web_search_*`, the sub-agent `collab_*` events,
/// `dynamic_tool_call_*`, `view_image_tool_call`, `image_generation_*`.
pub fn is_call_event(kind: &[u8]) -> bool {
    matches!(
        kind,
        b"exec_command_begin"
            | b"exec_command_end"
            | b"patch_apply_begin"
            | b"patch_apply_end"
            | b"mcp_tool_call_begin"
            | b"mcp_tool_call_end"
            | b"web_search_begin"
            | b"web_search_end"
            | b"collab_agent_spawn_begin"
            | b"collab_agent_spawn_end"
            | b"collab_agent_interaction_begin"
            | b"collab_agent_interaction_end"
            | b"collab_waiting_begin"
            | b"collab_waiting_end"
            | b"collab_close_begin"
            | b"collab_close_end"
            | b"collab_resume_begin"
            | b"collab_resume_end"
            | b"dynamic_tool_call_request"
            | b"dynamic_tool_call_response"
            | b"view_image_tool_call"
            | b"image_generation_begin"
            | b"image_generation_end"
    )
}

fn with_status(payload: &Json, status: &str, replace: bool) -> Json {
    let mut item = payload.clone();
    if let Json::Object(fields) = &mut item {
        if replace {
            fields.retain(|(k, _)| *k != "status");
        }
        if !fields.iter().any(|(k, _)| *k == "status") {
            fields.push((Wtf8::from("status"), Json::string(status)));
        }
    }
    item
}

/// The call an event of a tool run ([`is_call_event`]) is about, and the item Codex shows
/// for it; `None` for an event of another kind.
pub fn event_call(kind: &[u8], payload: &Json) -> Result<Option<(Wtf8, Shown)>, FormatError> {
    let id = str_of(payload, "call_id")
        .or_else(|| str_of(payload, "callId"))
        .cloned();
    let Some(id) = id else {
        if !is_call_event(kind) {
            return Ok(None);
        }
        return Err(wrong(
            "payload.call_id".into(),
            "a string",
            payload.get("call_id"),
        ));
    };
    let begin = kind.ends_with(b"_begin") || kind.ends_with(b"_request");
    let shown = match kind {
        b"exec_command_begin" => shown_item("command_execution", &with_status(payload, "in_progress", true)),
        b"exec_command_end" => {
            let code = payload.get("exit_code").and_then(Json::as_f64).unwrap_or(0.0);
            let mut item = with_status(payload, if code == 0.0 { "completed" } else { "failed" }, false);
            if let (Json::Object(fields), None) = (&mut item, payload.get("aggregated_output")) {
                let mut output = str_of(payload, "stdout").cloned().unwrap_or_default();
                if let Some(err) = str_of(payload, "stderr") {
                    output.push_wtf8(err.as_bytes());
                }
                fields.push((Wtf8::from("aggregated_output"), Json::String(output)));
            }
            shown_item("command_execution", &item)
        }
        b"patch_apply_begin" | b"patch_apply_end" => {
            let status = match (begin, payload.get("success")) {
                (true, _) => "in_progress",
                (_, Some(Json::Bool(false))) => "failed",
                _ => "completed",
            };
            shown_item("file_change", &with_status(payload, status, begin))
        }
        b"mcp_tool_call_begin" | b"mcp_tool_call_end" => {
            let invocation = payload.get("invocation").cloned().unwrap_or(Json::Null);
            let (result, error, status) = match payload.get("result") {
                None => (Json::Null, Json::Null, "in_progress"),
                Some(result) => match (result.get("Ok"), result.get("Err")) {
                    (Some(ok), _) => {
                        let failed = matches!(
                            ok.get("isError").or_else(|| ok.get("is_error")),
                            Some(Json::Bool(true))
                        );
                        let content = Json::object([
                            (
                                "content",
                                ok.get("content").cloned().unwrap_or(Json::Array(Vec::new())),
                            ),
                            (
                                "structured_content",
                                ok.get("structuredContent")
                                    .or_else(|| ok.get("structured_content"))
                                    .cloned()
                                    .unwrap_or(Json::Null),
                            ),
                        ]);
                        (content, Json::Null, if failed { "failed" } else { "completed" })
                    }
                    (None, Some(err)) => (Json::Null, Json::object([("message", err.clone())]), "failed"),
                    _ => (result.clone(), Json::Null, "completed"),
                },
            };
            let item = Json::object([
                ("server", field(&invocation, "server")),
                ("tool", field(&invocation, "tool")),
                ("arguments", field(&invocation, "arguments")),
                ("result", result),
                ("error", error),
                ("status", Json::string(status)),
            ]);
            shown_item("mcp_tool_call", &item)
        }
        b"web_search_begin" | b"web_search_end" => shown_item("web_search", payload),
        b"dynamic_tool_call_request" | b"dynamic_tool_call_response" => shown_item(
            "dynamic_tool_call",
            &with_status(payload, if begin { "in_progress" } else { "completed" }, begin),
        ),
        b"view_image_tool_call" => shown_item("image_view", payload),
        b"image_generation_begin" | b"image_generation_end" => shown_item(
            "image_generation",
            &with_status(payload, if begin { "in_progress" } else { "completed" }, begin),
        ),
        other if other.starts_with(b"collab_") => {
            shown_item("collab_tool_call", &collab_item(other, payload))
        }
        _ => return Ok(None),
    };
    Ok(Some((id, shown)))
}

/// A sub-agent event as the item Codex shows for it.
fn collab_item(kind: &[u8], payload: &Json) -> Json {
    let tool = match kind {
        b"collab_agent_spawn_begin" | b"collab_agent_spawn_end" => "spawn_agent",
        b"collab_agent_interaction_begin" | b"collab_agent_interaction_end" => "send_input",
        b"collab_waiting_begin" | b"collab_waiting_end" => "wait",
        b"collab_close_begin" | b"collab_close_end" => "close_agent",
        _ => "resume_agent",
    };
    let end = kind.ends_with(b"_end");
    let mut receivers: Vec<Json> = Vec::new();
    for key in ["new_thread_id", "receiver_thread_id"] {
        if let Some(id) = payload.get(key).filter(|v| matches!(v, Json::String(_))) {
            receivers.push(id.clone());
        }
    }
    if let Some(Json::Array(ids)) = payload.get("receiver_thread_ids") {
        receivers.extend(ids.iter().cloned());
    }
    let mut states: Vec<(Wtf8, Json)> = Vec::new();
    if let Some(Json::Object(statuses)) = payload.get("statuses") {
        states.extend(statuses.iter().cloned());
    }
    if let Some(Json::Array(statuses)) = payload.get("agent_statuses") {
        for s in statuses {
            if let (Some(id), Some(status)) = (str_of(s, "thread_id"), s.get("status")) {
                states.push((id.clone(), status.clone()));
            }
        }
    }
    if states.is_empty() && end {
        if let (Some(Json::String(id)), Some(status)) = (receivers.first(), payload.get("status")) {
            states.push((id.clone(), status.clone()));
        }
    }
    if receivers.is_empty() {
        receivers = states.iter().map(|(id, _)| Json::String(id.clone())).collect();
    }
    Json::object([
        ("tool", Json::string(tool)),
        ("prompt", payload.get("prompt").cloned().unwrap_or(Json::Null)),
        ("receiver_thread_ids", Json::Array(receivers)),
        ("agents_states", Json::Object(states)),
        (
            "status",
            Json::string(if end { "completed" } else { "in_progress" }),
        ),
    ])
}

/// A function's `arguments` as the model wrote them: parsed when they are JSON text.
pub fn parsed_arguments(arguments: Option<&Json>) -> Json {
    match arguments {
        Some(Json::String(text)) => text
            .as_str()
            .and_then(|t| value::parse_str(t).ok())
            .unwrap_or_else(|| Json::String(text.clone())),
        Some(other) => other.clone(),
        None => Json::Undefined,
    }
}

/// The shell tools Codex has given its models; their outputs say how the command ended.
const SHELL_TOOLS: &[&str] = &[
    "shell",
    "exec_command",
    "shell_command",
    "container.exec",
    "local_shell",
];

pub fn is_shell_tool(name: &Wtf8) -> bool {
    SHELL_TOOLS.iter().any(|t| *name == **t)
}

/// A tool's output as the model was given it, as a call's result: a string as it is, a
/// list of content parts that are all text as their joined text, anything else as it is.
pub fn output_value(output: Option<&Json>) -> Json {
    let Some(output) = output else {
        return Json::Undefined;
    };
    if let Json::Array(parts) = output {
        if !parts.is_empty()
            && parts.iter().all(|p| {
                str_of(p, "type").is_some_and(|t| *t == "input_text" || *t == "output_text" || *t == "text")
            })
        {
            return Json::String(text_of(Some(output), &["input_text", "output_text", "text"]));
        }
    }
    // An output written as `{ content, success }` (FunctionCallOutputPayload in older
    // versions): its content.
    if let (Json::Object(_), Some(content)) = (output, output.get("content")) {
        return output_value(Some(content));
    }
    output.clone()
}

/// Whether an output says the call failed: `success: false`, Codex's own answer to a call
/// of a tool it does not have, or a shell tool's exit code (in the JSON older versions
/// wrote, `{"output", "metadata": {"exit_code"}}`, or in the text later versions write:
/// `Process exited with code N`, `Exit code: N`).
pub fn output_failed(name: Option<&Wtf8>, output: Option<&Json>) -> bool {
    let Some(output) = output else { return false };
    if matches!(output.get("success"), Some(Json::Bool(false))) {
        return true;
    }
    let text = match output_value(Some(output)) {
        Json::String(text) => text,
        _ => return false,
    };
    let bytes = text.as_bytes();
    if bytes.starts_with(b"unsupported call: ") {
        return true;
    }
    if !name.is_some_and(is_shell_tool) {
        return false;
    }
    if let Some(code) = text
        .as_str()
        .and_then(|t| value::parse_str(t).ok())
        .and_then(|v| {
            v.get("metadata")
                .and_then(|m| m.get("exit_code"))
                .and_then(Json::as_f64)
        })
    {
        return code != 0.0;
    }
    for line in bytes.split(|&b| b == b'\n').take(8) {
        for prefix in [&b"Process exited with code "[..], b"Exit code: "] {
            if let Some(rest) = line.strip_prefix(prefix) {
                let digits: Vec<u8> = rest
                    .iter()
                    .copied()
                    .take_while(|b| b.is_ascii_digit() || *b == b'-')
                    .collect();
                if let Ok(code) = std::str::from_utf8(&digits).unwrap_or("").parse::<i64>() {
                    return code != 0;
                }
            }
        }
    }
    false
}

/// A plan as the `plan` system chunk holds it: a line per step, `[status] step`.
pub fn plan_text(steps: &[Json]) -> Wtf8 {
    let mut text = Wtf8::new();
    for (i, step) in steps.iter().enumerate() {
        if i > 0 {
            text.push_wtf8(b"\n");
        }
        let status: &[u8] = match (str_of(step, "status"), step.get("completed")) {
            (Some(status), _) => status.as_bytes(),
            (None, Some(Json::Bool(true))) => b"completed",
            _ => b"pending",
        };
        text.push_wtf8(b"[");
        text.push_wtf8(status);
        text.push_wtf8(b"] ");
        if let Some(step) = str_of(step, "text").or_else(|| str_of(step, "step")) {
            text.push_wtf8(step.as_bytes());
        }
    }
    text
}

pub fn plan_chunk(text: Wtf8) -> FormatChunk {
    Chunk::System {
        kind: SystemChunkKind::Plan,
        text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Json {
        value::parse_str(text).unwrap()
    }

    #[test]
    fn a_reasoning_item_is_its_summary_sealed_with_its_encrypted_content() {
        let item = Reasoning {
            id: Some("rs_1".into()),
            summary: vec!["one".into(), "two".into()],
            raw: vec!["raw".into()],
            encrypted: Some("enc".into()),
        };
        let chunks = item.chunks();
        assert_eq!(chunks.len(), 2);
        assert_eq!(
            chunks[0],
            Chunk::Thinking {
                text: "one\ntwo".into(),
                metadata: Some(json(
                    r#"{"openai":{"itemId":"rs_1","reasoningEncryptedContent":"enc"}}"#
                )),
            }
        );
        assert_eq!(
            chunks[1],
            Chunk::Thinking {
                text: "raw".into(),
                metadata: None
            }
        );
    }

    #[test]
    fn encrypted_only_reasoning_is_kept_as_redacted_thinking() {
        let item = Reasoning {
            encrypted: Some("enc".into()),
            ..Reasoning::default()
        };
        assert_eq!(
            item.chunks(),
            vec![Chunk::Thinking {
                text: Wtf8::new(),
                metadata: Some(json(r#"{"openai":{"reasoningEncryptedContent":"enc"}}"#)),
            }]
        );
        assert!(Reasoning::default().chunks().is_empty());
    }

    #[test]
    fn a_stored_command_is_shown_as_the_stream_shows_it() {
        let stored = json(
            r#"{"type":"CommandExecution","command":["/bin/bash","-lc","ls -1"],"status":"failed","exit_code":2,"aggregated_output":"no\n"}"#,
        );
        let streamed = json(
            r#"{"type":"command_execution","command":"/bin/bash -lc 'ls -1'","status":"failed","exit_code":2,"aggregated_output":"no\n"}"#,
        );
        let a = shown_item("command_execution", &stored);
        assert_eq!(a, shown_item("command_execution", &streamed));
        assert_eq!(a.outcome, Some((Json::string("no\n"), true)));
        let running = json(r#"{"command":"ls","status":"in_progress","aggregated_output":""}"#);
        assert_eq!(shown_item("command_execution", &running).outcome, None);
    }

    #[test]
    fn sub_agent_states_read_alike_from_the_rollout_and_the_stream() {
        let stored = json(
            r#"{"tool":"wait","status":"completed","prompt":null,"receiver_thread_ids":["t"],"agents_states":{"t":{"completed":"42"}}}"#,
        );
        let streamed = json(
            r#"{"tool":"wait","status":"completed","prompt":null,"receiver_thread_ids":["t"],"agents_states":{"t":{"status":"completed","message":"42"}}}"#,
        );
        assert_eq!(
            shown_item("collab_tool_call", &stored),
            shown_item("collab_tool_call", &streamed)
        );
    }

    #[test]
    fn outputs_say_when_a_call_failed() {
        let shell = Wtf8::from("exec_command");
        let failed =
            Json::string("Chunk ID: x\nWall time: 0 seconds\nProcess exited with code 1\nOutput:\nno\n");
        assert!(output_failed(Some(&shell), Some(&failed)));
        let ok = Json::string("Chunk ID: x\nProcess exited with code 0\nOutput:\n");
        assert!(!output_failed(Some(&shell), Some(&ok)));
        let old = Json::string(r#"{"output":"x","metadata":{"exit_code":127,"duration_seconds":0.1}}"#);
        assert!(output_failed(Some(&Wtf8::from("shell")), Some(&old)));
        // Another tool's output that happens to say so is its own business.
        assert!(!output_failed(Some(&Wtf8::from("read_file")), Some(&failed)));
        assert!(output_failed(None, Some(&Json::string("unsupported call: nope"))));
        assert!(output_failed(
            None,
            Some(&json(r#"{"content":"x","success":false}"#))
        ));
    }
}
