//! OpenAI Codex CLI: rollouts of every generation read as Codex shows the resumed thread,
//! `codex exec --json` folded into the same messages, and the two checked against each
//! other. The fixtures under `__test__/fixtures/codex/` are lab runs of the real tool,
//! reduced (the tool's own instructions replaced); each holds what Codex itself showed of
//! the stored thread (`resume.app-server.json`, its app server's `thread/read`) where the
//! version has an app server.

mod common;

use std::path::{Path, PathBuf};

use agent_chunks::bytes::value::{self, Json};
use agent_chunks::formats::codex::lockstep::lockstep;
use agent_chunks::formats::find;
use agent_chunks::history::HistoryFormat;
use agent_chunks::live::fold_stream;
use agent_chunks::reading::check::Skips;
use agent_chunks::reading::format::{ReadOptions, View};
use agent_chunks::reading::model_json::{message_json, FormatMessage};
use agent_chunks::{Chunk, MessageRole, SystemChunkKind};
use common::{lines, read_history};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("__test__/fixtures/codex")
}

fn read_opts(bytes: &[u8], options: &ReadOptions) -> Result<(Vec<FormatMessage>, Skips), String> {
    read_history(bytes, HistoryFormat::Codex, options)
}

fn read(bytes: &[u8]) -> (Vec<FormatMessage>, Skips) {
    read_opts(bytes, &ReadOptions::default()).unwrap()
}

fn json(text: &str) -> Json {
    value::parse_str(text).unwrap()
}

/// A capture's main rollout (the thread its stream started), and the rest.
fn capture(name: &str) -> (Vec<u8>, Option<Vec<u8>>, Option<Json>) {
    let dir = fixtures().join(name);
    let stream = std::fs::read(dir.join("stream.jsonl")).ok();
    let thread = stream.as_ref().and_then(|s| {
        let text = String::from_utf8_lossy(s);
        let at = text.find("\"thread_id\":\"")? + 13;
        Some(text[at..at + 36].to_string())
    });
    let mut rollouts: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("rollout-"))
        .collect();
    rollouts.sort();
    let main = rollouts
        .iter()
        .find(|p| {
            thread
                .as_ref()
                .is_some_and(|t| p.to_string_lossy().contains(t.as_str()))
        })
        .unwrap_or(&rollouts[0]);
    let resume = std::fs::read(dir.join("resume.app-server.json"))
        .ok()
        .map(|b| value::parse(&b).unwrap())
        .and_then(|r| r.get("response")?.get("result")?.get("thread").cloned());
    (std::fs::read(main).unwrap(), stream, resume)
}

fn s(value: Option<&Json>) -> String {
    value
        .and_then(Json::as_str)
        .map(|t| t.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What Codex showed, item by item, in the terms compared.
fn codex_items(thread: &Json) -> Vec<String> {
    let mut out = Vec::new();
    let Some(Json::Array(turns)) = thread.get("turns") else {
        return out;
    };
    for turn in turns {
        let Some(Json::Array(items)) = turn.get("items") else {
            continue;
        };
        for item in items {
            let kind = s(item.get("type"));
            out.push(match kind.as_str() {
                "userMessage" => {
                    let text: Vec<String> = match item.get("content") {
                        Some(Json::Array(parts)) => parts.iter().map(|p| s(p.get("text"))).collect(),
                        _ => Vec::new(),
                    };
                    format!("user {}", text.join("\n"))
                }
                "agentMessage" => format!("text {}", s(item.get("text"))),
                "reasoning" => {
                    let join = |key| match item.get(key) {
                        Some(Json::Array(parts)) => {
                            parts.iter().map(|p| s(Some(p))).collect::<Vec<_>>().join("\n")
                        }
                        _ => String::new(),
                    };
                    format!("thinking {} | raw {}", join("summary"), join("content"))
                }
                "commandExecution" => format!(
                    "call command_execution {} -> {:?} error {}",
                    s(item.get("command")),
                    s(item.get("aggregatedOutput")),
                    s(item.get("status")) != "completed"
                ),
                "collabAgentToolCall" => format!("call collab_tool_call {}", s(item.get("id"))),
                "contextCompaction" => "compaction".to_string(),
                other => other.to_string(),
            });
        }
    }
    out
}

/// Our messages in the same terms; the calls Codex shows no item for are listed apart.
fn our_items(messages: &[FormatMessage]) -> (Vec<String>, Vec<String>) {
    let (mut out, mut unshown) = (Vec::new(), Vec::new());
    for m in messages {
        if m.role == MessageRole::User {
            let text: String = m
                .chunks
                .iter()
                .filter_map(|c| match c {
                    Chunk::Text { text } => Some(text.to_string_lossy().into_owned()),
                    _ => None,
                })
                .collect();
            out.push(format!("user {text}"));
            continue;
        }
        let mut i = 0;
        while i < m.chunks.len() {
            match &m.chunks[i] {
                Chunk::Thinking { text, metadata } => {
                    // A raw text follows its (sealed) summary as a thinking chunk of its own.
                    let raw = match m.chunks.get(i + 1) {
                        Some(Chunk::Thinking {
                            text: raw,
                            metadata: None,
                        }) if metadata.is_some() => {
                            i += 1;
                            raw.to_string_lossy().into_owned()
                        }
                        _ => String::new(),
                    };
                    out.push(format!("thinking {} | raw {raw}", text.to_string_lossy()));
                }
                Chunk::Text { text } => out.push(format!("text {}", text.to_string_lossy())),
                Chunk::ToolBatch { calls } => {
                    for call in calls {
                        let name = call.name.to_string_lossy().into_owned();
                        match name.as_str() {
                            "command_execution" => out.push(format!(
                                "call command_execution {} -> {:?} error {}",
                                s(call.arguments.get("command")),
                                s(call.result.as_ref().map(|r| &r.0)),
                                call.result.as_ref().is_some_and(|r| r.1 == Json::Bool(true))
                            )),
                            "collab_tool_call" => {
                                out.push(format!("call collab_tool_call {}", call.id.to_string_lossy()))
                            }
                            _ => unshown.push(name),
                        }
                    }
                }
                Chunk::System {
                    kind: SystemChunkKind::Compaction,
                    ..
                } => out.push("compaction".to_string()),
                other => out.push(format!("{other:?}")),
            }
            i += 1;
        }
    }
    (out, unshown)
}

/// Every capture with Codex's own view reads as Codex shows it, but for the calls Codex
/// shows no item for (before 0.148 none; after, a call of a tool that does not exist).
#[test]
fn rollouts_read_as_codex_shows_the_resumed_thread() {
    let cases: &[(&str, &[&str])] = &[
        ("0.171.0-tool", &[]),
        ("0.171.0-thinking", &[]),
        ("0.171.0-parallel", &[]),
        ("0.171.0-compact", &[]),
        ("0.171.0-subagent", &[]),
        ("0.171.0-failing-tool", &["lab_no_such_tool"]),
        ("0.147.0-tool", &["exec_command"]),
        ("0.147.0-thinking", &[]),
    ];
    for (name, unshown) in cases {
        let (rollout, _, resume) = capture(name);
        let (messages, skips) = read(&rollout);
        assert_eq!(skips.count, 0, "{name}: {:?}", skips.examples);
        let (ours, extra) = our_items(&messages);
        assert_eq!(ours, codex_items(&resume.unwrap()), "{name}");
        assert_eq!(extra, *unshown, "{name}");
    }
}

/// The rollouts of the versions without Codex's view: messages, reasoning, calls.
#[test]
fn every_generation_reads() {
    let cases: &[(&str, &[&str])] = &[
        // The TypeScript CLI's single-JSON rollout.
        (
            "0.1.2504172351-tool",
            &["user", "thinking", "text", "call shell", "text"],
        ),
        // Bare lines (0.20–0.29).
        ("0.20.0-tool", &["user", "thinking", "text", "call shell", "text"]),
        ("0.20.0-thinking", &["user", "thinking", "thinking", "text"]),
        // The envelope, before item events (0.34–0.147).
        ("0.34.0-tool", &["user", "thinking", "text", "call shell", "text"]),
        ("0.39.0-tool", &["user", "thinking", "text", "call shell", "text"]),
        (
            "0.39.0-compact",
            &["user", "text", "call shell", "compaction", "text", "text"],
        ),
    ];
    for (name, expected) in cases {
        let (rollout, _, _) = capture(name);
        let (messages, skips) = read(&rollout);
        assert_eq!(skips.count, 0, "{name}: {:?}", skips.examples);
        let mut kinds = Vec::new();
        for m in &messages {
            if m.role == MessageRole::User {
                kinds.push("user".to_string());
                continue;
            }
            for c in &m.chunks {
                match c {
                    Chunk::Thinking { .. } => kinds.push("thinking".into()),
                    Chunk::Text { .. } => kinds.push("text".into()),
                    Chunk::ToolBatch { calls } => {
                        kinds.extend(calls.iter().map(|c| format!("call {}", c.name.to_string_lossy())))
                    }
                    Chunk::System {
                        kind: SystemChunkKind::Compaction,
                        ..
                    } => kinds.push("compaction".into()),
                    other => kinds.push(format!("{other:?}")),
                }
            }
        }
        assert_eq!(kinds, *expected, "{name}");
        // Every call has its output, and none failed in these runs.
        for m in &messages {
            for c in &m.chunks {
                if let Chunk::ToolBatch { calls } = c {
                    for call in calls {
                        assert_eq!(
                            call.result.as_ref().map(|r| &r.1),
                            Some(&Json::Bool(false)),
                            "{name}"
                        );
                    }
                }
            }
        }
    }
}

/// `codex exec --json` of each run, beside its rollout: the check agrees once what exec
/// does not carry is set aside, and says what that was.
#[test]
fn each_stream_agrees_with_the_rollout_of_its_run() {
    let exec = find("codex-exec").unwrap();
    let cases: &[(&str, &[&str])] = &[
        ("0.171.0-tool", &["call ids", "reasoning seals"]),
        ("0.171.0-thinking", &["raw reasoning text", "reasoning seals"]),
        ("0.171.0-parallel", &["call ids"]),
        ("0.171.0-compact", &["call ids", "compactions"]),
        ("0.171.0-subagent", &["call ids"]),
        (
            "0.171.0-failing-tool",
            &["call ids", "calls Codex shows no item for"],
        ),
        ("0.171.0-abort", &["interrupted turns"]),
        (
            "0.147.0-tool",
            &[
                "calls the rollout holds as the model made them",
                "reasoning seals",
            ],
        ),
        (
            "0.39.0-compact",
            &["calls the rollout holds as the model made them", "compactions"],
        ),
        (
            "0.20.0-tool",
            &[
                "calls the rollout holds as the model made them",
                "reasoning seals",
            ],
        ),
        ("0.20.0-thinking", &["reasoning seals"]),
    ];
    for (name, reasons) in cases {
        let (rollout, stream, _) = capture(name);
        let mut folded = fold_stream(exec, &stream.unwrap(), true).unwrap();
        let (mut history, _) = read(&rollout);
        let notes = lockstep(&mut folded.messages, &mut history);
        let assistant = |ms: &[FormatMessage]| -> Vec<String> {
            ms.iter()
                .filter(|m| m.role == MessageRole::Assistant)
                .map(|m| {
                    let text = String::from_utf8(message_json(m).to_json()).unwrap();
                    text[text.find("\"chunks\"").unwrap()..].to_string()
                })
                .collect()
        };
        assert_eq!(
            assistant(&folded.messages),
            assistant(&history),
            "{name}: {notes:?}"
        );
        let said: Vec<&str> = notes
            .iter()
            .map(|n| n.split(" × ").nth(1).unwrap().split([':', ',']).next().unwrap())
            .collect();
        assert_eq!(said, *reasons, "{name}");
    }
}

#[test]
fn a_sub_agent_rollout_is_the_sub_agents_thread() {
    let dir = fixtures().join("0.171.0-subagent");
    let child = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("7e14-7eb2"))
        .unwrap();
    let (messages, skips) = read(&std::fs::read(child).unwrap());
    assert_eq!(skips.count, 0);
    let (items, _) = our_items(&messages);
    assert_eq!(items[0], "user [lab:sub] Run one command and report.");
    assert_eq!(items.len(), 4, "{items:?}");
}

// ─── Written here: each rule on its own ─────────────────────────────────────────────

const META: &str = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"th","cwd":"/w","cli_version":"0.171.0","base_instructions":{"text":"x"}}}"#;

fn rollout(entries: &[&str]) -> Vec<u8> {
    lines(&[&[META], entries].concat())
}

fn ev(payload: &str) -> String {
    format!(r#"{{"timestamp":"t","type":"event_msg","payload":{payload}}}"#)
}

fn ri(payload: &str) -> String {
    format!(r#"{{"timestamp":"t","type":"response_item","payload":{payload}}}"#)
}

fn user(text: &str) -> String {
    ev(&format!(
        r#"{{"type":"user_message","message":"{text}","images":[]}}"#
    ))
}

fn agent(text: &str) -> String {
    ev(&format!(r#"{{"type":"agent_message","message":"{text}"}}"#))
}

fn texts(messages: &[FormatMessage]) -> Vec<String> {
    messages
        .iter()
        .flat_map(|m| {
            m.chunks.iter().map(move |c| {
                let role = match m.role {
                    MessageRole::User => "user",
                    MessageRole::Assistant => "assistant",
                    MessageRole::System => "system",
                };
                match c {
                    Chunk::Text { text } => format!("{role}: {}", text.to_string_lossy()),
                    other => format!("{role}: {other:?}"),
                }
            })
        })
        .collect()
}

#[test]
fn a_rollback_drops_the_last_turns_and_view_all_keeps_them() {
    let lines = [
        user("one"),
        agent("first"),
        user("two"),
        agent("second"),
        ev(r#"{"type":"thread_rolled_back","num_turns":1}"#),
        user("three"),
        agent("third"),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let bytes = rollout(&refs);
    let (messages, skips) = read(&bytes);
    assert_eq!(
        texts(&messages),
        ["user: one", "assistant: first", "user: three", "assistant: third"]
    );
    assert_eq!(skips.left_out.count, 1);
    let all = ReadOptions {
        view: View::All,
        ..ReadOptions::default()
    };
    let (everything, skips) = read_opts(&bytes, &all).unwrap();
    assert_eq!(everything.len(), 6);
    assert_eq!(skips.left_out.count, 0);
}

#[test]
fn context_codex_adds_is_not_the_users_words() {
    // The model's items alone (the first Rust versions, exports): the context messages
    // Codex adds are told by their markers; developer messages are instructions.
    let lines = [
        ri(r#"{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]}"#),
        ri(
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/w</cwd>\n</environment_context>"}]}"#,
        ),
        ri(
            r##"{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>be brief</INSTRUCTIONS>"}]}"##,
        ),
        ri(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}"#),
        ri(r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]}"#),
        ri(
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"<turn_aborted>\nThe user interrupted.\n</turn_aborted>"}]}"#,
        ),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (messages, skips) = read(&rollout(&refs));
    assert_eq!(texts(&messages), ["user: hello", "assistant: hi"]);
    assert_eq!(skips.kinds.get("context"), Some(&3));
    assert_eq!(skips.kinds.get("instructions"), Some(&1));
}

#[test]
fn events_decide_what_is_shown_when_the_rollout_has_them() {
    // The model's copy of the prompt comes first; Codex's event is what it shows.
    let lines = [
        ri(
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context/>"}]}"#,
        ),
        ri(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"prompt"}]}"#),
        user("prompt"),
        agent("answer"),
        ri(r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"answer"}]}"#),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (messages, _) = read(&rollout(&refs));
    assert_eq!(texts(&messages), ["user: prompt", "assistant: answer"]);
}

#[test]
fn a_turn_whose_events_hold_no_agent_message_shows_the_models_copy_but_not_a_compaction_summary() {
    let lines = [
        ev(r#"{"type":"task_started","turn_id":"t1"}"#),
        user("prompt"),
        ri(
            r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"only the copy"}]}"#,
        ),
        ev(r#"{"type":"task_complete","turn_id":"t1"}"#),
        ev(r#"{"type":"task_started","turn_id":"t2"}"#),
        user("again"),
        ri(
            r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"<summary>s</summary>"}]}"#,
        ),
        r#"{"timestamp":"t","type":"compacted","payload":{"message":"prefix\n<summary>s</summary>"}}"#
            .to_string(),
        ev(r#"{"type":"context_compacted"}"#),
        ev(r#"{"type":"task_complete","turn_id":"t2"}"#),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (messages, _) = read(&rollout(&refs));
    let shown = texts(&messages);
    assert_eq!(
        shown[..3],
        ["user: prompt", "assistant: only the copy", "user: again"]
    );
    assert_eq!(shown.len(), 4, "one compaction chunk, no summary text: {shown:?}");
    assert!(matches!(
        messages[3].chunks[0],
        Chunk::System {
            kind: SystemChunkKind::Compaction,
            ..
        }
    ));
    assert_eq!(messages[1].id, "t1");
}

#[test]
fn reasoning_is_sealed_with_its_encrypted_content_and_encrypted_only_reasoning_is_kept() {
    let lines = [
        user("q"),
        ev(r#"{"type":"agent_reasoning","text":"part one"}"#),
        ev(r#"{"type":"agent_reasoning","text":"part two"}"#),
        ri(
            r#"{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"part one"},{"type":"summary_text","text":"part two"}],"encrypted_content":"E1"}"#,
        ),
        ri(r#"{"type":"reasoning","id":"rs_2","summary":[],"content":null,"encrypted_content":"E2"}"#),
        agent("a"),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (messages, _) = read(&rollout(&refs));
    assert_eq!(
        messages[1].chunks[0],
        Chunk::Thinking {
            text: "part one\npart two".into(),
            metadata: Some(json(
                r#"{"openai":{"itemId":"rs_1","reasoningEncryptedContent":"E1"}}"#
            )),
        }
    );
    assert_eq!(
        messages[1].chunks[1],
        Chunk::Thinking {
            text: "".into(),
            metadata: Some(json(
                r#"{"openai":{"itemId":"rs_2","reasoningEncryptedContent":"E2"}}"#
            )),
        }
    );
}

#[test]
fn calls_are_joined_to_their_outputs_by_call_id_and_failures_are_errors() {
    let lines = [
        user("q"),
        ri(
            r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"false\"]}","call_id":"c1"}"#,
        ),
        ri(r#"{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c2"}"#),
        ri(
            r#"{"type":"local_shell_call","call_id":"c3","status":"completed","action":{"type":"exec","command":["ls"]}}"#,
        ),
        ri(r#"{"type":"custom_tool_call_output","call_id":"c2","output":"Success."}"#),
        ri(
            r#"{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.0}}"}"#,
        ),
        ri(r#"{"type":"function_call_output","call_id":"c3","output":"a\n"}"#),
        ri(r#"{"type":"function_call_output","call_id":"nobody","output":"?"}"#),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (messages, skips) = read(&rollout(&refs));
    let Chunk::ToolBatch { calls } = &messages[1].chunks[0] else {
        panic!()
    };
    let summary: Vec<(String, Option<Json>)> = calls
        .iter()
        .map(|c| {
            (
                c.name.to_string_lossy().into_owned(),
                c.result.as_ref().map(|r| r.1.clone()),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("shell".into(), Some(Json::Bool(true))),
            ("apply_patch".into(), Some(Json::Bool(false))),
            ("local_shell".into(), Some(Json::Bool(false))),
        ]
    );
    assert_eq!(calls[0].arguments, json(r#"{"command":["false"]}"#));
    assert_eq!(skips.left_out.count, 1, "the output whose call is not there");
}

#[test]
fn an_aborted_turn_ends_cancelled_and_an_error_is_an_error_chunk() {
    let lines = [
        ev(r#"{"type":"task_started","turn_id":"t1"}"#),
        user("q"),
        agent("partial"),
        ev(r#"{"type":"error","message":"stream disconnected"}"#),
        ev(r#"{"type":"turn_aborted","turn_id":"t1","reason":"interrupted"}"#),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (messages, _) = read(&rollout(&refs));
    assert_eq!(
        messages[1].chunks[1..],
        [
            Chunk::Error {
                message: "stream disconnected".into(),
                status_code: None
            },
            Chunk::System {
                kind: SystemChunkKind::Cancelled,
                text: "interrupted".into()
            }
        ]
    );
}

#[test]
fn a_fork_reads_the_parents_copied_history_once() {
    // A fork's rollout: its own meta, the parent's lines copied (its meta too), its turns.
    let lines = [
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"parent","cwd":"/w"}}"#.to_string(),
        user("parent question"),
        agent("parent answer"),
        user("fork question"),
        agent("fork answer"),
    ];
    let mut bytes = br#"{"timestamp":"t","type":"session_meta","payload":{"id":"fork","forked_from_id":"parent","cwd":"/w"}}"#.to_vec();
    bytes.push(b'\n');
    for line in &lines {
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
    }
    let (messages, skips) = read(&bytes);
    assert_eq!(
        texts(&messages),
        [
            "user: parent question",
            "assistant: parent answer",
            "user: fork question",
            "assistant: fork answer"
        ]
    );
    assert_eq!(skips.kinds.get("session_meta"), Some(&2));
}

#[test]
fn lines_a_later_version_adds_are_skipped_and_counted_never_refused() {
    let lines = [
        user("q"),
        r#"{"timestamp":"t","ordinal":3,"type":"brand_new_line","payload":{}}"#.to_string(),
        ev(r#"{"type":"brand_new_event","x":1}"#),
        ev(r#"{"type":"item_completed","turn_id":"t","item":{"type":"BrandNewItem","id":"i"}}"#),
        ri(r#"{"type":"brand_new_item"}"#),
        "{\"timestamp\":\"t\",\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_mess".to_string(),
        agent("a"),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let bytes = rollout(&refs);
    let (messages, skips) = read(&bytes);
    assert_eq!(texts(&messages), ["user: q", "assistant: a"]);
    assert_eq!(skips.count, 4, "{:?}", skips.kinds);
    assert_eq!(skips.kinds.get("response_item/brand_new_item"), Some(&1));
    let strict = ReadOptions {
        strict: true,
        ..ReadOptions::default()
    };
    let error = read_opts(&bytes, &strict).unwrap_err();
    assert!(
        error.contains("line 3") && error.contains("brand_new_line"),
        "{error}"
    );
}

#[test]
fn a_line_of_a_known_kind_that_cannot_be_read_is_skipped_naming_the_field() {
    let lines = [
        user("q"),
        r#"{"timestamp":"t","type":"event_msg","payload":"not an object"}"#.to_string(),
        ev(r#"{"type":"item_completed","item":{"type":"CommandExecution"}}"#),
        agent("a"),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let bytes = rollout(&refs);
    let (messages, skips) = read(&bytes);
    assert_eq!(texts(&messages), ["user: q", "assistant: a"]);
    assert_eq!(skips.count, 2);
    assert!(
        skips.examples[0].contains("payload must be an object, got string"),
        "{:?}",
        skips.examples
    );
    assert!(
        skips.examples[1].contains("payload.item.id must be a string"),
        "{:?}",
        skips.examples
    );
    let strict = ReadOptions {
        strict: true,
        ..ReadOptions::default()
    };
    let error = read_opts(&bytes, &strict).unwrap_err();
    assert_eq!(error, "line 3: payload must be an object, got string");
}

#[test]
fn item_completed_rollouts_read_as_the_older_events_did() {
    // The 0.147 lesson: the same conversation written the 0.148 way reads the same.
    let old = [
        user("q"),
        ev(r#"{"type":"agent_reasoning","text":"think"}"#),
        agent("a"),
    ];
    let new = [
        ev(
            r#"{"type":"item_completed","turn_id":"t","item":{"type":"UserMessage","id":"u","content":[{"type":"text","text":"q","text_elements":[]}]}}"#,
        ),
        ev(
            r#"{"type":"item_completed","turn_id":"t","item":{"type":"Reasoning","id":"r","summary_text":["think"],"raw_content":[]}}"#,
        ),
        ev(
            r#"{"type":"item_completed","turn_id":"t","item":{"type":"AgentMessage","id":"m","content":[{"type":"Text","text":"a"}]}}"#,
        ),
    ];
    let old: Vec<&str> = old.iter().map(String::as_str).collect();
    let new: Vec<&str> = new.iter().map(String::as_str).collect();
    let chunks = |ms: Vec<FormatMessage>| ms.into_iter().map(|m| (m.role, m.chunks)).collect::<Vec<_>>();
    assert_eq!(chunks(read(&rollout(&old)).0), chunks(read(&rollout(&new)).0));
}

#[test]
fn a_command_shown_by_codex_is_shown_as_it_ran_in_the_order_the_calls_ran() {
    let lines = [
        user("q"),
        ri(
            r#"{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"echo a\"}","call_id":"c1"}"#,
        ),
        ri(
            r#"{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"echo b\"}","call_id":"c2"}"#,
        ),
        ev(
            r#"{"type":"item_completed","turn_id":"t","item":{"type":"CommandExecution","id":"c2","command":["/bin/bash","-lc","echo b"],"status":"completed","aggregated_output":"b\n","exit_code":0}}"#,
        ),
        ev(
            r#"{"type":"item_completed","turn_id":"t","item":{"type":"CommandExecution","id":"c1","command":["/bin/bash","-lc","echo a"],"status":"failed","aggregated_output":"a\n","exit_code":3}}"#,
        ),
        ri(
            r#"{"type":"function_call_output","call_id":"c1","output":"Process exited with code 3\nOutput:\na\n"}"#,
        ),
        ri(
            r#"{"type":"function_call_output","call_id":"c2","output":"Process exited with code 0\nOutput:\nb\n"}"#,
        ),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (messages, _) = read(&rollout(&refs));
    let Chunk::ToolBatch { calls } = &messages[1].chunks[0] else {
        panic!()
    };
    assert_eq!(calls[0].id, agent_chunks::bytes::wtf8::Wtf8::from("c2"));
    assert_eq!(
        calls[0].arguments,
        json(r#"{"command":"/bin/bash -lc 'echo b'"}"#)
    );
    assert_eq!(calls[0].result, Some((Json::string("b\n"), Json::Bool(false))));
    assert_eq!(calls[1].result, Some((Json::string("a\n"), Json::Bool(true))));
}

#[test]
fn the_typescript_clis_document_and_a_torn_first_line_both_read() {
    let document = br#"{
  "session": {"timestamp": "t", "id": "x", "instructions": ""},
  "items": [
    {"role": "user", "content": [{"type": "input_text", "text": "hi"}], "type": "message"},
    {"id": "m", "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]}
  ]
}"#;
    let (messages, _) = read(document);
    assert_eq!(texts(&messages), ["user: hi", "assistant: hello"]);
    assert_eq!(agent_chunks::formats::detect(document).unwrap().name, "codex");
    // The bare generation's first line, with no instructions or git state written.
    let bare = br#"{"id":"s","timestamp":"t"}
{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}
"#;
    assert_eq!(agent_chunks::formats::detect(bare).unwrap().name, "codex");
    assert_eq!(texts(&read(bare).0), ["user: hi"]);
    // An object of an id and a timestamp with anything else tells nothing.
    assert!(agent_chunks::formats::detect(br#"{"id":"s","timestamp":"t","text":"x"}"#).is_err());
    // A rollout whose first line was cut short is read as lines, not refused.
    let mut torn = b"{\"timestamp\":\"t\",\"type\":\"session_meta\",\"pay\n".to_vec();
    torn.extend_from_slice(user("q").as_bytes());
    torn.push(b'\n');
    let (messages, skips) = read(&torn);
    assert_eq!(texts(&messages), ["user: q"]);
    assert_eq!(skips.count, 1);
}

// ─── exec --json ─────────────────────────────────────────────────────────────────────

fn fold(text: &[&str]) -> (Vec<FormatMessage>, Skips) {
    let folded = common::fold("codex-exec", &lines(text));
    (folded.messages, folded.skips)
}

#[test]
fn exec_items_fold_into_one_message_per_turn() {
    let (messages, skips) = fold(&[
        r#"{"type":"thread.started","thread_id":"th"}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"error","message":"warning before the turn"}}"#,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"assistant_message","text":"old name"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"new name"}}"#,
        r#"{"type":"item.started","item":{"id":"item_3","type":"todo_list","items":[{"text":"a","completed":false}]}}"#,
        r#"{"type":"item.updated","item":{"id":"item_3","type":"todo_list","items":[{"text":"a","completed":true}]}}"#,
        r#"{"type":"item.completed","item":{"id":"item_4","type":"future_item","x":1}}"#,
        r#"{"type":"turn.failed","error":{"message":"quota"}}"#,
        r#"{"type":"error","message":"fatal"}"#,
    ]);
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[0].role, MessageRole::System);
    assert_eq!(
        messages[1].chunks,
        [
            Chunk::Text {
                text: "old name".into()
            },
            Chunk::Text {
                text: "new name".into()
            },
            Chunk::System {
                kind: SystemChunkKind::Plan,
                text: "[completed] a".into()
            },
            Chunk::Error {
                message: "quota".into(),
                status_code: None
            },
        ]
    );
    assert_eq!(messages[2].role, MessageRole::System);
    assert_eq!(skips.count, 1);
    assert_eq!(skips.kinds.get("unknown item type \"future_item\""), Some(&1));
}

#[test]
fn exec_events_before_0_40_fold_too() {
    let (messages, skips) = fold(&[
        r#"{"model":"m","provider":"p","workdir":"/w","approval":"never","sandbox":"read-only"}"#,
        r#"{"prompt":"list"}"#,
        r#"{"id":"1","msg":{"type":"task_started"}}"#,
        r#"{"id":"1","msg":{"type":"agent_reasoning","text":"first"}}"#,
        r#"{"id":"1","msg":{"type":"agent_reasoning_raw_content","text":"raw"}}"#,
        r#"{"id":"1","msg":{"type":"agent_reasoning","text":"second"}}"#,
        r#"{"id":"1","msg":{"type":"agent_message_delta","delta":"Li"}}"#,
        r#"{"id":"1","msg":{"type":"agent_message","message":"Listing."}}"#,
        r#"{"id":"1","msg":{"type":"exec_command_begin","call_id":"c","command":["bash","-lc","ls"],"cwd":"/w"}}"#,
        r#"{"id":"1","msg":{"type":"exec_command_output_delta","call_id":"c","stream":"stdout","chunk":[97]}}"#,
        r#"{"id":"1","msg":{"type":"exec_command_end","call_id":"c","stdout":"a\n","stderr":"","exit_code":0}}"#,
        r#"{"id":"1","msg":{"type":"task_complete"}}"#,
    ]);
    assert_eq!(skips.count, 0);
    assert_eq!(texts(&messages)[0], "user: list");
    let chunks = &messages[1].chunks;
    assert_eq!(
        chunks[0],
        Chunk::Thinking {
            text: "first\nsecond".into(),
            metadata: None
        }
    );
    assert_eq!(
        chunks[1],
        Chunk::Thinking {
            text: "raw".into(),
            metadata: None
        }
    );
    assert_eq!(
        chunks[2],
        Chunk::Text {
            text: "Listing.".into()
        }
    );
    let Chunk::ToolBatch { calls } = &chunks[3] else {
        panic!()
    };
    assert_eq!(calls[0].arguments, json(r#"{"command":"bash -lc ls"}"#));
    assert_eq!(calls[0].result, Some((Json::string("a\n"), Json::Bool(false))));
}

#[test]
fn an_exec_value_that_cannot_be_read_is_skipped_naming_the_field() {
    let (messages, skips) = fold(&[
        r#"{"type":"turn.started"}"#,
        r#"{"type":"item.completed","item":"nope"}"#,
        r#"{"type":"item.started","item":{"type":"command_execution","command":"ls"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"ok"}}"#,
    ]);
    assert_eq!(texts(&messages), ["assistant: ok"]);
    assert_eq!(skips.count, 2);
    assert!(
        skips.examples[0].contains("item must be an object"),
        "{:?}",
        skips.examples
    );
    assert!(
        skips.examples[1].contains("item.id must be a string"),
        "{:?}",
        skips.examples
    );
    let bytes = b"{\"type\":\"item.completed\",\"item\":\"nope\"}\n";
    let error = fold_stream(find("codex-exec").unwrap(), bytes, true).unwrap_err();
    assert!(error.to_string().contains("item must be an object"), "{error}");
}

#[test]
fn both_formats_are_told_by_content() {
    let detect = |b: &[u8]| {
        agent_chunks::formats::detect(b)
            .map(|f| f.name)
            .map_err(|e| e.message)
    };
    for (name, want) in [
        ("0.171.0-tool", "codex"),
        ("0.147.0-tool", "codex"),
        ("0.39.0-tool", "codex"),
        ("0.20.0-tool", "codex"),
        ("0.1.2504172351-tool", "codex"),
    ] {
        let (rollout, stream, _) = capture(name);
        assert_eq!(detect(&rollout), Ok(want), "{name}");
        if !name.starts_with("0.1.") {
            assert_eq!(detect(&stream.unwrap()), Ok("codex-exec"), "{name} stream");
        }
    }
}
