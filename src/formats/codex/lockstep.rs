//! `codex exec --json` beside the rollout of the same run: what the check compares.
//!
//! Codex writes the two differently, so the rollout's messages are brought to what the
//! stream can carry before they are compared, each change counted with its reason:
//!
//! - call ids: the stream numbers its items (`item_3`), the rollout keeps the model's
//!   `call_id`; a call of the rollout takes the id of the stream's call it matches;
//! - reasoning: the stream carries a reasoning item's summary only — not its encrypted
//!   content (the rollout's seal) nor its raw text;
//! - calls Codex shows no item for (a tool that does not exist, a rollout of a version that
//!   stored no command items): the stream has nothing of them; where the stream shows the
//!   item Codex ran at the place of the rollout's model call (a command for a shell call,
//!   a file change for a patch, a sub-agent call), the two are the same call shown two ways;
//! - compactions, and the end of an interrupted turn: the stream carries neither;
//! - a long command output: the rollout keeps its head and tail, cut "for persistence".
//!
//! What is left is compared exactly: every other difference is one.

use std::collections::BTreeMap;

use crate::bytes::wtf8::Wtf8;
use crate::model::{Chunk, MessageRole, SystemChunkKind, ToolCallEntry};
use crate::reading::model_json::{FormatChunk, FormatMessage};

use super::items::{display_kind, is_shell_tool};

/// The line Codex puts where it cut a command's output before storing it.
const CUT: &[u8] = b"\n\n... command output truncated for persistence ...\n";

#[derive(Default)]
struct Notes(BTreeMap<&'static str, (usize, Vec<String>)>);

impl Notes {
    fn add(&mut self, why: &'static str, example: Option<String>) {
        let (n, examples) = self.0.entry(why).or_default();
        *n += 1;
        if let Some(example) = example {
            if examples.len() < 3 && !examples.contains(&example) {
                examples.push(example);
            }
        }
    }

    fn lines(self) -> Vec<String> {
        self.0
            .into_iter()
            .map(|(why, (n, examples))| {
                let examples = if examples.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", examples.join(", "))
                };
                format!("{n} × {why}{examples}")
            })
            .collect()
    }
}

const IDS: &str = "call ids: exec --json numbers its items (item_N), the rollout keeps the model's call_id";
const SEALS: &str = "reasoning seals: exec --json does not carry a reasoning item's encrypted content";
const RAW: &str = "raw reasoning text: exec --json shows a reasoning item's summary only";
const UNSHOWN: &str = "calls Codex shows no item for: exec --json streams only the items Codex shows";
const SHOWN_TWO_WAYS: &str =
    "calls the rollout holds as the model made them, where exec --json shows the item Codex ran";
const COMPACTIONS: &str = "compactions: exec --json streams nothing of a compaction";
const INTERRUPTED: &str = "interrupted turns: exec --json stops after turn.started";
const WARNINGS: &str =
    "warnings and errors: exec --json shows them as error items, the rollout does not keep them";
const PLANS: &str = "plans: exec --json shows the to-do list as a todo_list item, the rollout keeps the model's update_plan calls";
const CUT_OUTPUTS: &str =
    "long outputs: the rollout keeps a command output's head and tail, cut for persistence";

/// The item kind a model call is shown as, when Codex shows one for it.
fn shown_as(name: &Wtf8) -> Option<&'static str> {
    let bytes = name.as_bytes();
    if is_shell_tool(name) {
        return Some("command_execution");
    }
    Some(match bytes {
        b"apply_patch" => "file_change",
        b"web_search" => "web_search",
        b"spawn_agent" | b"send_input" | b"wait" | b"wait_agent" | b"close_agent" | b"resume_agent" => {
            "collab_tool_call"
        }
        _ if bytes.windows(2).any(|w| w == b"__") => "mcp_tool_call",
        _ => return None,
    })
}

fn is_shown(call: &ToolCallEntry<Wtf8, crate::bytes::value::Json>) -> bool {
    display_kind(call.name.as_bytes()).is_some()
}

/// Whether `cut` is `whole` as Codex stores a long output: its head, the cut line, its tail.
pub fn is_cut(cut: &crate::bytes::value::Json, whole: &crate::bytes::value::Json) -> bool {
    let (Some(cut), Some(whole)) = (cut.as_str(), whole.as_str()) else {
        return false;
    };
    let (cut, whole) = (cut.as_bytes(), whole.as_bytes());
    let Some(at) = cut.windows(CUT.len()).position(|w| w == CUT) else {
        return false;
    };
    let (head, tail) = (&cut[..at], &cut[at + CUT.len()..]);
    whole.len() > cut.len() - CUT.len() && whole.starts_with(head) && whole.ends_with(tail)
}

/// Brings the rollout's calls of one tool batch to what the stream's batch carries.
fn calls(
    history: &mut Vec<ToolCallEntry<Wtf8, crate::bytes::value::Json>>,
    stream: &[ToolCallEntry<Wtf8, crate::bytes::value::Json>],
    notes: &mut Notes,
) {
    let mut out = Vec::new();
    let mut s = 0;
    for mut call in std::mem::take(history) {
        let Some(theirs) = stream.get(s) else {
            if call.name == *"update_plan" {
                notes.add(PLANS, None);
            } else if is_shown(&call) {
                out.push(call);
            } else {
                notes.add(UNSHOWN, Some(call.name.to_string_lossy().into_owned()));
            }
            continue;
        };
        if call.name == *"update_plan" {
            notes.add(PLANS, None);
            continue;
        }
        if !is_shown(&call) {
            if shown_as(&call.name).is_some_and(|kind| theirs.name == *kind) {
                notes.add(
                    SHOWN_TWO_WAYS,
                    Some(format!(
                        "{} as {}",
                        call.name.to_string_lossy(),
                        theirs.name.to_string_lossy()
                    )),
                );
                out.push(theirs.clone());
                s += 1;
            } else {
                notes.add(UNSHOWN, Some(call.name.to_string_lossy().into_owned()));
            }
            continue;
        }
        if call.id != theirs.id {
            notes.add(IDS, None);
            call.id = theirs.id.clone();
        }
        if let (Some((mine, _)), Some((whole, _))) = (&mut call.result, &theirs.result) {
            if is_cut(mine, whole) {
                notes.add(CUT_OUTPUTS, None);
                *mine = whole.clone();
            }
        }
        out.push(call);
        s += 1;
    }
    *history = out;
}

/// Why a chunk of the stream has no counterpart in the rollout, for the kinds it never has.
fn stream_only(chunk: &FormatChunk) -> Option<&'static str> {
    match chunk {
        Chunk::Error { .. } => Some(WARNINGS),
        Chunk::System {
            kind: SystemChunkKind::Plan,
            ..
        } => Some(PLANS),
        _ => None,
    }
}

/// Brings one assistant message of the rollout to what the stream's carries.
fn message(history: &mut Vec<FormatChunk>, stream: &[FormatChunk], notes: &mut Notes) {
    let mut out: Vec<FormatChunk> = Vec::new();
    let mut s = 0;
    for chunk in std::mem::take(history) {
        // What exec shows that the rollout does not keep: warnings (error items), to-do lists.
        while let Some(only) = stream.get(s).filter(|c| stream_only(c).is_some()) {
            if *only == chunk {
                break;
            }
            notes.add(stream_only(only).unwrap_or(WARNINGS), None);
            out.push(only.clone());
            s += 1;
        }
        let theirs = stream.get(s);
        match chunk {
            Chunk::Thinking { text, metadata } => {
                let matches = matches!(theirs, Some(Chunk::Thinking { text: t, .. }) if *t == text);
                if matches {
                    if metadata.is_some() {
                        notes.add(SEALS, None);
                    }
                    out.push(Chunk::Thinking { text, metadata: None });
                    s += 1;
                } else if matches!(out.last(), Some(Chunk::Thinking { .. })) {
                    notes.add(RAW, None);
                } else {
                    // A reasoning item with no summary the stream shows.
                    notes.add(if text.is_empty() { SEALS } else { RAW }, None);
                }
            }
            Chunk::System {
                kind: SystemChunkKind::Compaction,
                ..
            } if !matches!(
                theirs,
                Some(Chunk::System {
                    kind: SystemChunkKind::Compaction,
                    ..
                })
            ) =>
            {
                notes.add(COMPACTIONS, None);
            }
            Chunk::System {
                kind: SystemChunkKind::Cancelled,
                ..
            } if theirs.is_none() => notes.add(INTERRUPTED, None),
            Chunk::ToolBatch { mut calls } => {
                let empty = Vec::new();
                let theirs_calls = match theirs {
                    Some(Chunk::ToolBatch { calls }) => calls,
                    _ => &empty,
                };
                self::calls(&mut calls, theirs_calls, notes);
                if calls.is_empty() {
                    continue;
                }
                // A batch whose calls before it were set aside joins the one before.
                if let Some(Chunk::ToolBatch { calls: before }) = out.last_mut() {
                    before.extend(calls);
                    continue;
                }
                out.push(Chunk::ToolBatch { calls });
                s += 1;
            }
            other => {
                out.push(other);
                s += 1;
            }
        }
    }
    while let Some(only) = stream.get(s).filter(|c| stream_only(c).is_some()) {
        notes.add(stream_only(only).unwrap_or(WARNINGS), None);
        out.push(only.clone());
        s += 1;
    }
    *history = out;
}

/// Brings the rollout's assistant messages (`history`) to what the stream's carry, and says
/// what it set aside, a line per reason.
pub fn lockstep(stream: &mut [FormatMessage], history: &mut Vec<FormatMessage>) -> Vec<String> {
    let mut notes = Notes::default();
    let theirs: Vec<&FormatMessage> = stream
        .iter()
        .filter(|m| m.role == MessageRole::Assistant)
        .collect();
    let mut next = 0;
    history.retain_mut(|mine| {
        if mine.role != MessageRole::Assistant {
            return true;
        }
        let empty = Vec::new();
        let chunks = theirs.get(next).map_or(&empty, |m| &m.chunks);
        message(&mut mine.chunks, chunks, &mut notes);
        if mine.chunks.is_empty() {
            return false;
        }
        next += 1;
        true
    });
    // A turn the stream shows only an error of (before 0.34 a rollout kept no interrupted turn).
    for rest in theirs.iter().skip(next) {
        if !rest.chunks.is_empty() && rest.chunks.iter().all(|c| matches!(c, Chunk::Error { .. })) {
            notes.add(WARNINGS, None);
            history.push((*rest).clone());
        }
    }
    notes.lines()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::value::{self, Json};
    use crate::reading::model_json::messages_from_json;

    fn messages(text: &str) -> Vec<FormatMessage> {
        messages_from_json(&value::parse_str(text).unwrap(), "messages").unwrap()
    }

    #[test]
    fn what_the_stream_does_not_carry_is_set_aside_and_counted() {
        let mut stream = messages(
            r#"[{"id":"turn-1","role":"assistant","chunks":[
              {"type":"thinking","text":"plan"},
              {"type":"tool-batch","calls":[{"id":"item_1","name":"command_execution","arguments":{"command":"ls"},"result":"a\nb\nc\n","isError":false}]},
              {"type":"text","text":"done"}]}]"#,
        );
        let mut history = messages(
            r#"[{"id":"u","role":"user","chunks":[{"type":"text","text":"go"}]},
              {"id":"t1","role":"assistant","chunks":[
              {"type":"thinking","text":"plan","metadata":{"openai":{"reasoningEncryptedContent":"x"}}},
              {"type":"thinking","text":"raw"},
              {"type":"tool-batch","calls":[
                {"id":"call_1","name":"command_execution","arguments":{"command":"ls"},"result":"a\n\n... command output truncated for persistence ...\nc\n","isError":false},
                {"id":"call_2","name":"no_such_tool","arguments":{},"result":"unsupported call: no_such_tool","isError":true}]},
              {"type":"system","kind":"compaction","text":"summary"},
              {"type":"text","text":"done"}]},
              {"id":"t2","role":"assistant","chunks":[{"type":"system","kind":"cancelled","text":"interrupted"}]}]"#,
        );
        let notes = lockstep(&mut stream, &mut history);
        assert_eq!(
            history.len(),
            2,
            "the interrupted turn's message goes: {history:?}"
        );
        let stream_assistant: Vec<_> = stream
            .iter()
            .filter(|m| m.role == MessageRole::Assistant)
            .collect();
        assert_eq!(history[1].chunks, stream_assistant[0].chunks);
        assert_eq!(notes.len(), 7, "{notes:?}");
        assert!(notes.iter().any(|n| n.contains("no_such_tool")));
    }

    #[test]
    fn a_difference_the_tool_does_not_explain_is_left_for_the_check() {
        let mut stream =
            messages(r#"[{"id":"a","role":"assistant","chunks":[{"type":"text","text":"one"}]}]"#);
        let mut history =
            messages(r#"[{"id":"b","role":"assistant","chunks":[{"type":"text","text":"two"}]}]"#);
        let before = history.clone();
        assert!(lockstep(&mut stream, &mut history).is_empty());
        assert_eq!(history, before);
        let _ = Json::Null;
    }
}
