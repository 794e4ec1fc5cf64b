//! Session files as their tools write them: ACP v1 recordings (message ids, replayed
//! user messages, plans, tool call updates), Claude Code transcripts and Qwen Code chat
//! recordings. Each stored message stays one message; tool results land on their calls.

use agent_chunks::bytes::value::{parse, Json};
use agent_chunks::formats::acp::fold::AcpFold;
use agent_chunks::formats::claude::transcript as claude;
use agent_chunks::formats::qwen::recording as qwen;
use agent_chunks::history::{read_with, HistoryFormat, Message};
use agent_chunks::reading::check::{self, Skips, BEFORE_BREAK, COMPACTED, OFF_BRANCH, SIDECHAIN};
use agent_chunks::reading::format::{Input, ReadOptions, View};
use agent_chunks::reading::model_json::write_messages;
use serde_json::{json, Value};

fn example(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The whole transcript (every message of the current branch, through compactions).
fn load(bytes: &[u8], format: HistoryFormat) -> Value {
    load_view(bytes, format, View::Transcript).0
}

fn lines(text: &str) -> Vec<Json> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| parse(l.as_bytes()).unwrap())
        .collect()
}

/// The messages of `bytes` in `view`, and what the reading skipped and left out.
fn load_view(bytes: &[u8], format: HistoryFormat, view: View) -> (Value, Skips) {
    let mut messages = Vec::new();
    let options = ReadOptions {
        view,
        ..ReadOptions::default()
    };
    let skips = read_with(Input::Bytes(bytes), format, &options, &mut |message| {
        if let Message::Format(m) = message {
            messages.push(m);
        }
        true
    })
    .unwrap();
    let mut text = Vec::new();
    write_messages(&mut text, &messages);
    (serde_json::from_slice(&text).unwrap(), skips)
}

fn numbers(lines: &[Json]) -> Vec<usize> {
    (1..=lines.len()).collect()
}

fn ids(messages: &Value) -> Vec<&str> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect()
}

// ---- ACP ----

fn acp(updates: &[Value]) -> Value {
    let text: String = updates.iter().map(|u| format!("{u}\n")).collect();
    load(text.as_bytes(), HistoryFormat::Acp)
}

fn chunk(kind: &str, id: Option<&str>, text: &str) -> Value {
    let mut update = json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}});
    if let Some(id) = id {
        update["messageId"] = json!(id);
    }
    json!({"sessionId": "s", "update": update})
}

#[test]
fn acp_a_new_message_id_starts_a_new_message() {
    let got = acp(&[
        chunk("agent_message_chunk", Some("m1"), "one "),
        chunk("agent_message_chunk", Some("m1"), "part"),
        chunk("agent_message_chunk", Some("m2"), "two"),
        // A chunk without an id continues the open message.
        chunk("agent_message_chunk", None, " more"),
        // An id that is not a string is no id (ACP reads it as absent).
        json!({"update": {"sessionUpdate": "agent_message_chunk", "messageId": 7, "content": {"type": "text", "text": "!"}}}),
    ]);
    assert_eq!(
        got,
        json!([
            {"id": "m1", "role": "assistant", "chunks": [{"type": "text", "text": "one part"}]},
            {"id": "m2", "role": "assistant", "chunks": [{"type": "text", "text": "two more!"}]},
        ])
    );
}

#[test]
fn acp_replayed_user_messages_stay_apart() {
    // session/load replays each stored user message with its own id.
    let got = acp(&[
        chunk("user_message_chunk", Some("u1"), "first"),
        chunk("user_message_chunk", Some("u2"), "second"),
        chunk("agent_thought_chunk", Some("a1"), "hm"),
        chunk("agent_message_chunk", Some("a1"), "ok"),
        chunk("user_message_chunk", None, "third"),
    ]);
    assert_eq!(ids(&got), ["u1", "u2", "a1", "line-5"]);
    assert_eq!(
        got[2]["chunks"],
        json!([{"type": "thinking", "text": "hm"}, {"type": "text", "text": "ok"}])
    );
    // A repeated id (the same message replayed twice) does not make two messages one id.
    let got = acp(&[
        chunk("user_message_chunk", Some("u1"), "a"),
        chunk("agent_message_chunk", Some("a1"), "b"),
        chunk("user_message_chunk", Some("u1"), "a"),
    ]);
    assert_eq!(ids(&got), ["u1", "a1", "line-3"]);
}

#[test]
fn acp_tool_calls_keep_title_and_latest_fields() {
    let got = acp(&[
        json!({"update": {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read", "kind": "read", "status": "pending", "rawInput": {}}}),
        json!({"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "Read a.rs", "rawInput": {"path": "a.rs"}}}),
        json!({"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "fn main() {}"}}]}}),
        // No rawInput: no arguments; no title: the kind.
        json!({"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t2", "kind": "execute", "status": "in_progress"}}),
        json!({"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t2", "status": "failed", "content": [{"type": "terminal", "terminalId": "term-1"}], "rawOutput": {"exitCode": 2}}}),
        json!({"update": {"sessionUpdate": "tool_call", "toolCallId": "t3", "title": "Edit", "status": "completed", "content": [{"type": "diff", "path": "a.rs", "oldText": "a", "newText": "b"}]}}),
    ]);
    assert_eq!(
        got[0]["chunks"][0]["calls"],
        json!([
            {"id": "t1", "name": "Read a.rs", "arguments": {"path": "a.rs"}, "result": [{"type": "content", "content": {"type": "text", "text": "fn main() {}"}}], "isError": false},
            {"id": "t2", "name": "execute", "result": {"exitCode": 2}, "isError": true},
            {"id": "t3", "name": "Edit", "result": [{"type": "diff", "path": "a.rs", "oldText": "a", "newText": "b"}], "isError": false},
        ])
    );
}

#[test]
fn acp_plans_stay_inside_the_message_and_state_updates_add_nothing() {
    let plan = json!({"update": {"sessionUpdate": "plan", "entries": [
        {"content": "Read", "priority": "high", "status": "completed"},
        {"content": "Fix", "priority": "low", "status": "pending"}]}});
    let got = acp(&[
        chunk("agent_message_chunk", Some("m1"), "a"),
        plan,
        json!({"update": {"sessionUpdate": "current_mode_update", "currentModeId": "plan"}}),
        json!({"update": {"sessionUpdate": "usage_update", "used": 1, "size": 2}}),
        json!({"update": {"sessionUpdate": "session_info_update", "title": "t"}}),
        json!({"update": {"sessionUpdate": "config_option_update", "configOptions": []}}),
        chunk("agent_message_chunk", Some("m1"), "b"),
    ]);
    assert_eq!(
        got,
        json!([{"id": "m1", "role": "assistant", "chunks": [
            {"type": "text", "text": "a"},
            {"type": "system", "kind": "plan", "text": "[completed] Read (high)\n[pending] Fix (low)"},
            {"type": "text", "text": "b"},
        ]}])
    );
}

#[test]
fn acp_unknown_updates_are_counted_and_skipped() {
    let mut fold = AcpFold::new();
    for (i, line) in [
        json!({"update": {"sessionUpdate": "compaction_update", "status": "started"}}),
        json!({"update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}}),
        json!({"update": {"sessionUpdate": "notice", "message": "m"}}),
    ]
    .iter()
    .enumerate()
    {
        fold.push(&parse(line.to_string().as_bytes()).unwrap(), i + 1)
            .unwrap();
    }
    assert_eq!(fold.unknown, 2);
    assert_eq!(fold.into_messages().len(), 1);
}

#[test]
fn acp_example_reads_every_structure() {
    let got = load(&example("acp-v1-load.ndjson"), HistoryFormat::Acp);
    assert_eq!(
        ids(&got),
        ["msg_u1", "msg_a1", "msg_a2", "msg_a3", "msg_u2", "msg_u3"]
    );
    let files: Vec<&str> = got[0]["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["text", "file", "file"]);
    assert_eq!(got[0]["chunks"][1]["url"], "file:///work/app/src/import.ts");
    assert_eq!(got[0]["chunks"][2]["mediaType"], "image/png");
    let calls = &got[2]["chunks"][3]["calls"];
    assert_eq!(calls[0]["name"], "Edit src/import.ts");
    assert_eq!(calls[0]["result"][0]["type"], "diff");
    assert_eq!(calls[1]["result"], json!({"exitCode": 1, "stdout": "1 failing"}));
}

// ---- Claude Code ----

#[test]
fn claude_streamed_lines_of_one_response_are_one_message() {
    let got = load(&example("claude-code-session.jsonl"), HistoryFormat::Claude);
    let first = &got[1];
    assert_eq!(first["id"], "msg_01Hx7Qm2");
    let types: Vec<&str> = first["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["thinking", "text", "tool-batch"]);
    assert!(first["chunks"][0]["metadata"]["anthropic"]["signature"]
        .as_str()
        .unwrap()
        .starts_with("EqQB"));
    assert_eq!(first["chunks"][2]["calls"][0]["name"], "Read");
    assert!(first["chunks"][2]["calls"][0]["result"]
        .as_str()
        .unwrap()
        .contains("range(len(rows) - 1)"));
}

#[test]
fn claude_reads_the_chain_to_the_last_line() {
    let got = load(&example("claude-code-session.jsonl"), HistoryFormat::Claude);
    let all = serde_json::to_string(&got).unwrap();
    // The abandoned branch, the sub-agent's lines and the meta line are not in it.
    assert!(!all.contains("Trying again"));
    assert!(!all.contains("msg_01Side1"));
    assert!(!all.contains("/clear"));
    let roles: Vec<&str> = got
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "assistant",
            "assistant",
            "assistant",
            "assistant",
            "system",
            "system",
            "user",
            "assistant",
            "assistant"
        ]
    );
    // Tool results: an error, block content joined, a string.
    let edit = &got[2]["chunks"][1]["calls"][0];
    assert_eq!(edit["isError"], true);
    assert_eq!(
        got[2]["chunks"][0]["metadata"]["anthropic"]["redactedData"],
        "EmwKAhgBEgy3vT6pQm9hX2rL0dIaDPq4bW1nY3tV8sR2kCIw"
    );
    assert_eq!(
        got[3]["chunks"][0]["calls"][0]["result"],
        "tests/test_import.py covers it."
    );
    assert_eq!(got[7]["chunks"][0]["kind"], "compaction");
    assert_eq!(got[9]["chunks"][0]["type"], "error");
    assert_eq!(got[0]["chunks"][1]["type"], "file");

    let parsed = lines(std::str::from_utf8(&example("claude-code-session.jsonl")).unwrap());
    let mut counted = Skips::default();
    let order = claude::conversation(&parsed, &numbers(&parsed), View::Transcript, &mut counted);
    assert_eq!(order.len(), 20);
    // Two lines of the abandoned branch, two of the sub-agent.
    assert_eq!(counted.left_out.count, 4);
    assert_eq!(counted.left_out.reasons[OFF_BRANCH], 2);
    assert_eq!(counted.left_out.reasons[SIDECHAIN], 2);
    let skipped = claude::read_lines(&parsed, &numbers(&parsed), View::Transcript, |_| true);
    assert_eq!(skipped.kinds["isMeta (context for the model, not shown)"], 1);
    // Resumed, Claude Code shows the conversation from the compaction on.
    let mut resumed = Skips::default();
    let after = claude::conversation(&parsed, &numbers(&parsed), View::Resumed, &mut resumed);
    assert_eq!(after.len(), 5);
    assert_eq!(
        resumed.left_out.reasons[agent_chunks::reading::check::COMPACTED],
        15
    );
}

#[test]
fn claude_unknown_lines_are_counted_and_a_summary_alone_is_no_message() {
    let text = concat!(
        "{\"type\":\"summary\",\"summary\":\"Title\",\"leafUuid\":\"x\"}\n",
        "{\"type\":\"file-history-snapshot\",\"messageId\":\"m\",\"snapshot\":{},\"isSnapshotUpdate\":false}\n",
        "{\"type\":\"someday-new\",\"uuid\":\"z\"}\n",
        "{\"type\":\"user\",\"uuid\":\"u\",\"parentUuid\":null,\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"gone\",\"content\":\"x\"}]}}\n",
    );
    let parsed = lines(text);
    let (out, skipped) = load_view(text.as_bytes(), HistoryFormat::Claude, View::Resumed);
    assert_eq!(out, json!([]));
    assert_eq!(skipped.count, 1);
    assert_eq!(skipped.examples, ["line 3: unknown line type \"someday-new\""]);
    assert_eq!(skipped.kinds["summary"], 1);
    assert_eq!(skipped.kinds["file-history-snapshot"], 1);
    assert_eq!(skipped.left_out.reasons[check::ORPHAN_RESULT], 1);
    assert!(claude::is_transcript_line(&parsed[0]));
    assert!(claude::is_transcript_line(&parsed[1]));
}

#[test]
fn claude_lines_read_as_chatviewer_rows_keep_tools() {
    let got = load(&example("claude-code-session.jsonl"), HistoryFormat::ChatViewer);
    let all = serde_json::to_string(&got).unwrap();
    for id in ["toolu_01Read9", "toolu_01Edit4", "toolu_01Task7", "toolu_01Bash2"] {
        assert!(all.contains(id), "{id} is kept");
    }
    // The results land on their calls: the line of results belongs to the assistant side.
    let bash = got
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["chunks"].as_array().unwrap())
        .flat_map(|c| c["calls"].as_array().cloned().unwrap_or_default())
        .find(|c| c["id"] == "toolu_01Bash2")
        .unwrap();
    assert_eq!(bash["result"], "3 passed in 0.41s");
    assert!(
        !all.contains("Stock import drops last CSV row"),
        "the summary line is no message"
    );
}

/// Claude-shaped lines read as ChatViewer rows: a content block this reading cannot place
/// (redacted thinking, a call without an id, a type it does not know) is counted, with
/// its line, and the rest of the line is read; strict refuses it.
#[test]
fn chatviewer_counts_the_claude_blocks_it_cannot_place() {
    let text = concat!(
        r#"{"type":"user","uuid":"u1","timestamp":"2025-04-01T10:00:00Z","message":{"role":"user","content":[{"type":"text","text":"Rename the file"}]}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"a1","timestamp":"2025-04-01T10:00:01Z","message":{"id":"r1","role":"assistant","content":[{"type":"redacted_thinking","data":"opaque"},{"type":"text","text":"Renaming."},{"type":"tool_use","name":"Bash","input":{"command":"mv a b"}}]}}"#,
        "\n",
        r#"{"type":"user","uuid":"u2","timestamp":"2025-04-01T10:00:02Z","message":{"role":"user","content":[{"type":"text","text":"Thanks"},{"type":"thinking","thinking":"odd"}]}}"#,
        "\n"
    );
    let (messages, skips) = load_view(text.as_bytes(), HistoryFormat::ChatViewer, View::Transcript);
    assert_eq!(ids(&messages), ["u1", "a1", "u2"]);
    assert_eq!(
        messages[1]["chunks"],
        json!([{ "type": "text", "text": "Renaming." }])
    );
    assert_eq!(skips.count, 3);
    assert_eq!(
        skips.examples,
        [
            "line 2: message.content[0]: unknown content block \"redacted_thinking\"",
            "line 2: message.content[2]: a \"tool_use\" content block without the fields it needs",
            "line 3: message.content[1]: a \"thinking\" content block in a user line",
        ]
    );
    let strict = ReadOptions {
        strict: true,
        ..ReadOptions::default()
    };
    let error = read_with(
        Input::Bytes(text.as_bytes()),
        HistoryFormat::ChatViewer,
        &strict,
        &mut |_| true,
    )
    .unwrap_err();
    assert_eq!(error.line, Some(2));
}

// ---- Qwen Code ----

#[test]
fn qwen_thoughts_calls_and_results() {
    let got = load(&example("qwen-code-chat.jsonl"), HistoryFormat::Qwen);
    assert_eq!(
        got[1]["chunks"][0],
        json!({"type": "thinking", "text": "The range upper bound is probably exclusive; read the CLI first."})
    );
    assert_eq!(
        got[1]["chunks"][1],
        json!({"type": "text", "text": "Let me read the forecast command."})
    );
    let read = &got[1]["chunks"][2]["calls"][0];
    assert_eq!(read["name"], "read_file");
    assert_eq!(read["isError"], false);
    // Results as Qwen Code shows them: a read's output (its display is empty), the failed
    // command's error, an edit's output (its display is a diff).
    assert_eq!(
        read["result"],
        "for (let d = 1; d < days; d++) {\n  print(day(d))\n}\n"
    );
    let calls = &got[2]["chunks"][1]["calls"];
    assert_eq!(calls[0]["isError"], true);
    assert_eq!(calls[0]["result"], "Command exited with code 1: 1 failing");
    assert_eq!(
        calls[1]["result"],
        "The file /home/dev/weather/src/forecast.ts has been updated."
    );
    assert_eq!(
        got[2]["chunks"][0]["metadata"],
        json!({"gemini": {"signature": "Cq0BAdHtim9v4kPz"}})
    );
}

#[test]
fn qwen_reads_the_chain_shows_display_text_and_skips_telemetry() {
    let got = load(&example("qwen-code-chat.jsonl"), HistoryFormat::Qwen);
    let all = serde_json::to_string(&got).unwrap();
    assert!(!all.contains("print a chart"), "the rewound branch is gone");
    assert!(!all.contains("qwen-code.api_response"));
    assert!(!all.contains("user-prompt-submit-context"));
    assert_eq!(
        got[0]["chunks"],
        json!([{"type": "text", "text": "Why does `forecast --days 7` print only six days?"}])
    );
    let draw = got
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "0b8e7c6d-0015-4a3b-9c2d-1e0f2a3b4c5d")
        .unwrap();
    assert_eq!(
        draw["chunks"][0]["text"],
        "Draw the forecast like @docs/chart.png"
    );
    assert_eq!(draw["chunks"][1]["type"], "file");
    let kinds: Vec<&str> = got
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "system")
        .map(|m| m["chunks"][0]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["notice", "compaction"]);
    let (_, skipped) = load_view(
        &example("qwen-code-chat.jsonl"),
        HistoryFormat::Qwen,
        View::Transcript,
    );
    assert_eq!(skipped.count, 0);
    assert_eq!(skipped.left_out.count, 2);
    assert_eq!(skipped.left_out.reasons[OFF_BRANCH], 2);
}

#[test]
fn qwen_unknown_subtypes_are_counted() {
    let text = concat!(
        "{\"uuid\":\"a\",\"parentUuid\":null,\"sessionId\":\"s\",\"timestamp\":\"t\",\"type\":\"system\",\"subtype\":\"brand_new\",\"systemPayload\":{}}\n",
        "{\"uuid\":\"b\",\"parentUuid\":\"a\",\"sessionId\":\"s\",\"timestamp\":\"t\",\"type\":\"tool_result\",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"id\":\"nope\",\"name\":\"x\",\"response\":{}}}]}}\n",
    );
    let parsed = lines(text);
    assert!(qwen::is_record(&parsed[0]));
    let (_, skipped) = load_view(text.as_bytes(), HistoryFormat::Qwen, View::Resumed);
    assert_eq!(skipped.count, 1);
    assert_eq!(
        skipped.examples,
        ["line 1: unknown record type \"system\" subtype \"brand_new\""]
    );
    assert_eq!(skipped.left_out.reasons[check::ORPHAN_RESULT], 1);
}

/// A record of a chain type without a `uuid` (written by another tool, or damaged) is on
/// no chain: no view can show it, so it is counted, in every view, never dropped
/// without a word; `strict` refuses it.
#[test]
fn records_without_a_uuid_are_counted_not_dropped() {
    let qwen_text = concat!(
        "{\"uuid\":\"q1\",\"parentUuid\":null,\"sessionId\":\"s\",\"timestamp\":\"2026-03-01T10:00:00Z\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"Lies die Notizen\"}]}}\n",
        "{\"uuid\":\"q2\",\"parentUuid\":\"q1\",\"sessionId\":\"s\",\"timestamp\":\"2026-03-01T10:00:01Z\",\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"text\":\"Gern.\"}]}}\n",
        "{\"sessionId\":\"s\",\"timestamp\":\"2026-03-01T10:00:02Z\",\"type\":\"user\",\"message\":{\"parts\":[{\"inlineData\":{\"mimeType\":\"image/png\",\"data\":\"iVBORw0K\"}}]}}\n",
        "{\"sessionId\":\"s\",\"timestamp\":\"2026-03-01T10:00:03Z\",\"type\":\"tool_result\",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"read\",\"response\":{\"output\":\"x\"}}}]}}\n",
    );
    for view in [View::Resumed, View::Transcript, View::All] {
        let (out, skipped) = load_view(qwen_text.as_bytes(), HistoryFormat::Qwen, view);
        assert_eq!(ids(&out), ["q1", "q2"], "{view:?}");
        assert_eq!(skipped.count, 2, "{view:?}: {:?}", skipped.examples);
        assert_eq!(skipped.kinds["a record without a \"uuid\""], 2, "{view:?}");
        assert_eq!(skipped.examples[0], "line 3: a record without a \"uuid\"");
    }
    let strict = ReadOptions {
        strict: true,
        ..ReadOptions::default()
    };
    let refused = read_with(
        Input::Bytes(qwen_text.as_bytes()),
        HistoryFormat::Qwen,
        &strict,
        &mut |_| true,
    );
    assert!(refused.unwrap_err().message.contains("without a \"uuid\""));

    // Claude Code's lines are chained the same way, and say so in the same words.
    let claude_text = concat!(
        "{\"type\":\"user\",\"uuid\":\"c1\",\"parentUuid\":null,\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
        "{\"type\":\"assistant\",\"sessionId\":\"s\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"lost?\"}]}}\n",
    );
    let (out, skipped) = load_view(claude_text.as_bytes(), HistoryFormat::Claude, View::Resumed);
    assert_eq!(ids(&out), ["c1"]);
    assert_eq!(skipped.examples, ["line 2: a line without a \"uuid\""]);
}

#[test]
fn qwen_context_part_is_exactly_a_tagged_block() {
    let part = |text: &str| parse(json!({ "text": text }).to_string().as_bytes()).unwrap();
    assert!(qwen::is_context_part(&part(
        "<qwen:user-prompt-submit-context>\nbody\n</qwen:user-prompt-submit-context>"
    )));
    assert!(qwen::is_context_part(&part(
        "  <qwen:user-prompt-submit-context>\nbody\n</qwen:user-prompt-submit-context>\n"
    )));
    assert!(!qwen::is_context_part(&part(
        "<qwen:user-prompt-submit-context>body</qwen:user-prompt-submit-context>"
    )));
    assert!(!qwen::is_context_part(&part(
        "<qwen:user-prompt-submit-context>\na <qwen:user-prompt-submit-context> b\n</qwen:user-prompt-submit-context>"
    )));
    assert!(!qwen::is_context_part(&part("legacy bare context")));
}

#[test]
fn a_cycle_of_parents_reads_each_line_once() {
    let text = concat!(
        "{\"type\":\"user\",\"uuid\":\"a\",\"parentUuid\":\"b\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"one\"}}\n",
        "{\"type\":\"user\",\"uuid\":\"b\",\"parentUuid\":\"a\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"two\"}}\n",
    );
    let mut skipped = Skips::default();
    let parsed = lines(text);
    assert_eq!(
        claude::conversation(&parsed, &numbers(&parsed), View::Resumed, &mut skipped),
        [0, 1]
    );
    let qwen_text = text
        .replace("\"content\":\"one\"", "\"parts\":[{\"text\":\"one\"}]")
        .replace("\"content\":\"two\"", "\"parts\":[{\"text\":\"two\"}]");
    let parsed = lines(&qwen_text);
    let mut order = qwen::conversation(&parsed, &numbers(&parsed), View::Resumed, &mut skipped);
    order.sort();
    assert_eq!(order, [0, 1]);
}

#[test]
fn acp_an_update_after_completion_still_lands_in_a_history() {
    let got = acp(&[
        json!({"update": {"sessionUpdate": "tool_call", "toolCallId": "t", "title": "Run", "status": "completed", "content": []}}),
        chunk("agent_message_chunk", Some("m2"), "next"),
        json!({"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t", "rawOutput": {"exitCode": 0}}}),
        chunk("user_message_chunk", Some("u"), "thanks"),
    ]);
    assert_eq!(got[0]["chunks"][0]["calls"][0]["result"], json!({"exitCode": 0}));
    assert_eq!(ids(&got), ["line-1", "m2", "u"]);
}

#[test]
fn the_table_tells_each_session_file_from_its_first_lines() {
    use agent_chunks::formats::detect;
    for (name, format) in [
        ("claude-code-session.jsonl", "claude"),
        ("qwen-code-chat.jsonl", "qwen"),
        ("acp-v1-load.ndjson", "acp"),
    ] {
        assert_eq!(detect(&example(name)).unwrap().name, format, "{name}");
    }
    // A transcript that opens with its file snapshot alone.
    let snapshot = b"{\"type\":\"file-history-snapshot\",\"messageId\":\"m\",\"snapshot\":{\"trackedFileBackups\":{}},\"isSnapshotUpdate\":false}\n";
    assert_eq!(detect(snapshot).unwrap().name, "claude");
}

// ---- Claude Code: one response's parallel calls, wherever their lines hang ----

fn claude_line(kind: &str, uuid: &str, parent: Option<&str>, message: Value, extra: Value) -> String {
    let mut line = json!({
        "type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s",
        "isSidechain": false, "userType": "external", "message": message,
    });
    for (k, v) in extra.as_object().unwrap() {
        line[k] = v.clone();
    }
    format!("{line}\n")
}

fn tool_use(response: &str, id: &str) -> Value {
    json!({"id": response, "role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "Read", "input": {}}]})
}

fn tool_result(id: &str) -> Value {
    json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": format!("out of {id}")}]})
}

fn calls_of(messages: &Value) -> Vec<(String, bool)> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["chunks"].as_array().unwrap().clone())
        .flat_map(|c| c["calls"].as_array().cloned().unwrap_or_default())
        .map(|c| (c["id"].as_str().unwrap().to_string(), c.get("result").is_some()))
        .collect()
}

#[test]
fn claude_parallel_calls_are_one_message_with_every_result() {
    let user = json!({"role": "user", "content": "read both"});
    let done = json!({"id": "msg_2", "role": "assistant", "content": [{"type": "text", "text": "done"}]});
    // 2.1: the first result hangs off the first tool_use line, beside the chain.
    let beside = [
        claude_line("user", "u1", None, user.clone(), json!({})),
        claude_line(
            "assistant",
            "a1",
            Some("u1"),
            tool_use("msg_1", "read-1"),
            json!({}),
        ),
        claude_line(
            "assistant",
            "a2",
            Some("a1"),
            tool_use("msg_1", "read-2"),
            json!({}),
        ),
        claude_line(
            "user",
            "r1",
            Some("a1"),
            tool_result("read-1"),
            json!({"sourceToolAssistantUUID": "a1"}),
        ),
        claude_line(
            "user",
            "r2",
            Some("a2"),
            tool_result("read-2"),
            json!({"sourceToolAssistantUUID": "a2"}),
        ),
        claude_line("assistant", "a3", Some("r2"), done.clone(), json!({})),
    ]
    .concat();
    // The chain from the last line never passes through the second call's line.
    let call_off_chain = [
        claude_line("user", "u1", None, user.clone(), json!({})),
        claude_line(
            "assistant",
            "a1",
            Some("u1"),
            tool_use("msg_1", "read-1"),
            json!({}),
        ),
        claude_line(
            "assistant",
            "a2",
            Some("a1"),
            tool_use("msg_1", "read-2"),
            json!({}),
        ),
        claude_line("user", "r2", Some("a2"), tool_result("read-2"), json!({})),
        claude_line("user", "r1", Some("a1"), tool_result("read-1"), json!({})),
        claude_line("assistant", "a3", Some("r1"), done.clone(), json!({})),
    ]
    .concat();
    // Three Task calls, every result hanging off the last call's line.
    let task = |id: &str| json!({"id": "msg_1", "role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "Task", "input": {}}]});
    let three = [
        claude_line("user", "u1", None, user, json!({})),
        claude_line("assistant", "a1", Some("u1"), task("t1"), json!({})),
        claude_line("assistant", "a2", Some("a1"), task("t2"), json!({})),
        claude_line("assistant", "a3", Some("a2"), task("t3"), json!({})),
        claude_line("user", "r1", Some("a3"), tool_result("t1"), json!({})),
        claude_line("user", "r2", Some("a3"), tool_result("t2"), json!({})),
        claude_line("user", "r3", Some("a3"), tool_result("t3"), json!({})),
        claude_line("assistant", "a4", Some("r3"), done, json!({})),
    ]
    .concat();
    for (text, calls) in [
        (&beside, vec!["read-1", "read-2"]),
        (&call_off_chain, vec!["read-1", "read-2"]),
        (&three, vec!["t1", "t2", "t3"]),
    ] {
        let (got, skips) = load_view(text.as_bytes(), HistoryFormat::Claude, View::Resumed);
        assert_eq!(ids(&got), ["u1", "msg_1", "msg_2"], "{text}");
        let expected: Vec<(String, bool)> = calls.iter().map(|c| (c.to_string(), true)).collect();
        assert_eq!(calls_of(&got), expected, "{text}");
        assert_eq!(skips.left_out.count, 0, "{text}");
    }
}

#[test]
fn claude_lines_on_no_branch_are_named_and_read_with_view_all() {
    // An earlier part removed: the first line's parent is not in the file, and a line
    // written after it starts a chain of its own.
    let text = [
        claude_line(
            "user",
            "u1",
            Some("gone"),
            json!({"role": "user", "content": "one"}),
            json!({}),
        ),
        claude_line(
            "assistant",
            "a1",
            Some("u1"),
            json!({"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "two"}]}),
            json!({}),
        ),
        claude_line(
            "user",
            "u2",
            Some("elsewhere"),
            json!({"role": "user", "content": "three"}),
            json!({}),
        ),
    ]
    .concat();
    let (got, skips) = load_view(text.as_bytes(), HistoryFormat::Claude, View::Resumed);
    assert_eq!(ids(&got), ["u2"]);
    assert_eq!(skips.left_out.count, 2);
    assert_eq!(
        skips.left_out.reasons[agent_chunks::reading::check::UNREACHABLE],
        2
    );
    assert!(
        skips.left_out.examples[0].starts_with("line 1 (uuid \"u1\")"),
        "{:?}",
        skips.left_out.examples
    );
    let (all, skips) = load_view(text.as_bytes(), HistoryFormat::Claude, View::All);
    assert_eq!(ids(&all), ["u1", "m1", "u2"]);
    assert_eq!(skips.left_out.count, 0);
}

#[test]
fn claude_session_state_lines_are_counted_by_kind() {
    let text = [
        "{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"sessionId\":\"s\"}\n".to_string(),
        "{\"type\":\"permission-mode\",\"permissionMode\":\"default\",\"sessionId\":\"s\"}\n".to_string(),
        claude_line(
            "user",
            "u1",
            None,
            json!({"role": "user", "content": "hi"}),
            json!({}),
        ),
        "{\"type\":\"attachment\",\"uuid\":\"x\",\"parentUuid\":\"u1\",\"sessionId\":\"s\"}\n".to_string(),
        "{\"type\":\"ai-title\",\"title\":\"Greeting\",\"sessionId\":\"s\"}\n".to_string(),
    ]
    .concat();
    let options = ReadOptions {
        strict: true,
        ..ReadOptions::default()
    };
    let skips = read_with(
        Input::Bytes(text.as_bytes()),
        HistoryFormat::Claude,
        &options,
        &mut |_| true,
    )
    .unwrap();
    assert_eq!(skips.count, 0, "known lines are not refused, even when strict");
    for kind in ["queue-operation", "permission-mode", "attachment", "ai-title"] {
        assert_eq!(skips.kinds[kind], 1, "{kind}");
    }
}

#[test]
fn claude_lines_without_a_parent_that_are_no_compaction_are_a_break_not_a_compaction() {
    // A transcript whose lines name their parent, or none (`null`), the last a line of
    // tool results. No compaction.
    let text = concat!(
        "{\"type\":\"user\",\"uuid\":\"p1\",\"parentUuid\":null,\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"Which port?\"}}\n",
        "{\"type\":\"assistant\",\"uuid\":\"p2\",\"parentUuid\":\"p1\",\"sessionId\":\"s\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Looking.\"},{\"type\":\"tool_use\",\"id\":\"t9\",\"name\":\"Grep\",\"input\":{\"pattern\":\"PORT\"}}]}}\n",
        "{\"type\":\"user\",\"uuid\":\"p3\",\"parentUuid\":null,\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t9\",\"content\":\"PORT=8080\"}]}}\n",
    );
    let (resumed, skipped) = load_view(text.as_bytes(), HistoryFormat::Claude, View::Resumed);
    assert_eq!(
        resumed,
        json!([]),
        "resumed from the last line, as Claude Code does"
    );
    assert_eq!(skipped.left_out.reasons[BEFORE_BREAK], 2);
    assert!(!skipped.left_out.reasons.contains_key(COMPACTED));
    let (transcript, skipped) = load_view(text.as_bytes(), HistoryFormat::Claude, View::Transcript);
    assert_eq!(transcript.as_array().unwrap().len(), 2);
    assert_eq!(transcript[1]["chunks"][1]["calls"][0]["result"], "PORT=8080");
    assert_eq!(skipped.left_out.count, 0);
}

#[test]
fn claude_content_blocks_that_cannot_be_placed_are_counted_not_dropped() {
    // A schema-drift transcript: a call written without its id, a block of a kind a
    // later version adds, a result naming no call.
    let text = concat!(
        "{\"type\":\"user\",\"uuid\":\"r1\",\"parentUuid\":null,\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"Tidy the imports.\"}}\n",
        "{\"type\":\"assistant\",\"uuid\":\"r2\",\"parentUuid\":\"r1\",\"sessionId\":\"s\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"On it.\"},{\"type\":\"tool_use\",\"name\":\"Edit\",\"input\":{\"path\":\"a.py\"}},{\"type\":\"sparkle\",\"glow\":1}]}}\n",
        "{\"type\":\"user\",\"uuid\":\"r3\",\"parentUuid\":\"r2\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"content\":\"done\"},{\"type\":\"text\",\"text\":\"Thanks\"},{\"type\":\"voice_note\"}]}}\n",
    );
    let (got, skipped) = load_view(text.as_bytes(), HistoryFormat::Claude, View::Resumed);
    let got = got.as_array().unwrap();
    assert_eq!(got.len(), 3);
    assert_eq!(got[1]["chunks"][0]["text"], "On it.");
    assert_eq!(got[2]["chunks"][0]["text"], "Thanks");
    assert_eq!(skipped.count, 4);
    assert_eq!(skipped.kinds[check::NO_CALL_ID], 1);
    assert_eq!(skipped.kinds[check::NO_TOOL_USE_ID], 1);
    assert_eq!(
        skipped.kinds["a content block of a type this version does not know (\"sparkle\")"],
        1
    );
    assert_eq!(
        skipped.kinds["a content block of a type this version does not know (\"voice_note\")"],
        1
    );
    assert!(
        skipped.examples[0].starts_with("line 2: "),
        "{:?}",
        skipped.examples
    );
}

#[test]
fn qwen_results_land_on_their_call_by_call_id_or_uuid_as_qwen_code_names_them() {
    // An ingest tool's recording: the response ids differ from the call ids, one record
    // of results names its call only by its own uuid, and a call without an id is
    // answered by a response without one.
    let record = |uuid: &str, parent: &str, rest: &str| {
        format!("{{\"uuid\":\"{uuid}\",\"parentUuid\":{parent},\"sessionId\":\"q\",\"timestamp\":\"2026-01-05T08:00:00Z\",{rest}}}\n")
    };
    let text = [
        record("k1", "null", "\"type\":\"user\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"Count the files.\"}]}"),
        record("k2", "\"k1\"", "\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"c-ls\",\"name\":\"ls\",\"args\":{}}},{\"functionCall\":{\"id\":\"k4\",\"name\":\"wc\",\"args\":{}}},{\"functionCall\":{\"name\":\"du\",\"args\":{}}}]}"),
        record("k3", "\"k2\"", "\"type\":\"tool_result\",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"id\":\"resp-7\",\"name\":\"ls\",\"response\":{\"output\":\"a b\"}}}]},\"toolCallResult\":{\"callId\":\"c-ls\",\"status\":\"success\"}"),
        record("k4", "\"k3\"", "\"type\":\"tool_result\",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"wc\",\"response\":{\"output\":\"2\"}}}]}"),
        record("k5", "\"k4\"", "\"type\":\"tool_result\",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"du\",\"response\":{\"error\":\"denied\"}}}]}"),
    ]
    .concat();
    let (got, skipped) = load_view(text.as_bytes(), HistoryFormat::Qwen, View::Resumed);
    let calls = &got[1]["chunks"][0]["calls"];
    assert_eq!(calls[0]["result"], "a b");
    assert_eq!(calls[1]["result"], "2");
    assert_eq!(calls[2]["result"], "denied");
    assert_eq!(calls[2]["isError"], true);
    assert_eq!(skipped.left_out.count, 0);
}

/// The result of call `c1` and whether it failed, read from a recording whose one
/// `tool_result` record holds `parts` and, when given, `toolCallResult`.
fn qwen_result(parts: Value, call_result: Option<Value>) -> (Value, Value) {
    let mut result = json!({
        "uuid": "r3", "parentUuid": "r2", "sessionId": "q", "timestamp": "2026-01-05T08:00:02Z",
        "type": "tool_result", "message": {"role": "user", "parts": parts},
    });
    if let Some(call_result) = call_result {
        result["toolCallResult"] = call_result;
    }
    let records = [
        json!({"uuid": "r1", "parentUuid": null, "sessionId": "q", "timestamp": "2026-01-05T08:00:00Z",
            "type": "user", "message": {"role": "user", "parts": [{"text": "Go."}]}}),
        json!({"uuid": "r2", "parentUuid": "r1", "sessionId": "q", "timestamp": "2026-01-05T08:00:01Z",
            "type": "assistant", "message": {"role": "model", "parts": [
                {"functionCall": {"id": "c1", "name": "run_shell_command", "args": {"command": "ls"}}}]}}),
        result,
    ];
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    let (got, skipped) = load_view(text.as_bytes(), HistoryFormat::Qwen, View::Resumed);
    assert_eq!(skipped.left_out.count, 0);
    let call = &got[1]["chunks"][0]["calls"][0];
    (call["result"].clone(), call["isError"].clone())
}

fn output(id: &str, output: &str) -> Value {
    json!({"functionResponse": {"id": id, "name": "run_shell_command", "response": {"output": output}}})
}

/// A `shell_result` display as Qwen Code 0.24.4 records it, showing `text`.
fn shell_display(text: &str) -> Value {
    json!({"type": "shell_result", "version": 1, "directory": "/w", "exitCode": 0, "signal": null,
        "pid": null, "outcome": "completed", "outputFiles": [], "output": text, "text": text,
        "error": null, "notices": [], "truncated": false})
}

const SHELL_OUTPUT: &str = "Command: ls\nDirectory: (root)\nOutput: a.txt\nError: (none)\nExit Code: 0";

#[test]
fn qwen_a_shell_result_is_its_output_as_shown_not_what_the_model_was_sent() {
    let success = |display| json!({"callId": "c1", "status": "success", "resultDisplay": display});
    assert_eq!(
        qwen_result(
            json!([output("c1", SHELL_OUTPUT)]),
            Some(success(shell_display("a.txt")))
        ),
        (json!("a.txt"), json!(false))
    );
    // A command that printed nothing: the display is blank, the model's text is shown.
    assert_eq!(
        qwen_result(
            json!([output("c1", SHELL_OUTPUT)]),
            Some(success(shell_display("\n \u{feff}")))
        ),
        (json!(SHELL_OUTPUT), json!(false))
    );
    // A display that is not a shell_result by Qwen Code's own checks is not its text.
    for broken in [
        json!({"version": 2}),
        json!({"pid": 1.5}),
        json!({"outcome": "done"}),
        json!({"notices": [1]}),
        json!({"outputFiles": ["x".repeat(8192)]}),
    ] {
        let mut display = shell_display("a.txt");
        for (key, value) in broken.as_object().unwrap() {
            display[key] = value.clone();
        }
        assert_eq!(
            qwen_result(json!([output("c1", SHELL_OUTPUT)]), Some(success(display))).0,
            json!(SHELL_OUTPUT),
            "{broken}"
        );
    }
    let mut display = shell_display("a.txt");
    display.as_object_mut().unwrap().remove("signal");
    assert_eq!(
        qwen_result(json!([output("c1", SHELL_OUTPUT)]), Some(success(display))).0,
        json!(SHELL_OUTPUT)
    );
    // `isShellResultDisplay`'s limits, each at its edge: safe integers, 32 notices and
    // output files, 8192 UTF-16 units of directory and file names together.
    let at_edge = |changes: Value| {
        let mut display = shell_display("a.txt");
        for (key, value) in changes.as_object().unwrap() {
            display[key] = value.clone();
        }
        qwen_result(json!([output("c1", SHELL_OUTPUT)]), Some(success(display))).0 == json!("a.txt")
    };
    for (changes, shown) in [
        (json!({"exitCode": 9_007_199_254_740_991_i64}), true),
        (json!({"exitCode": -9_007_199_254_740_991_i64}), true),
        (json!({"exitCode": 9_007_199_254_740_992_i64}), false),
        (json!({"pid": 1.0}), true),
        (json!({"notices": vec!["n"; 32]}), true),
        (json!({"notices": vec!["n"; 33]}), false),
        (json!({"outputFiles": vec!["f"; 32]}), true),
        (json!({"outputFiles": vec!["f"; 33]}), false),
        (json!({"outputFiles": ["x".repeat(8190)]}), true),
        (
            json!({"directory": "\u{1F600}".repeat(4096), "outputFiles": []}),
            true,
        ),
        (
            json!({"directory": "\u{1F600}".repeat(4096), "outputFiles": ["x"]}),
            false,
        ),
    ] {
        assert_eq!(at_edge(changes.clone()), shown, "{changes}");
    }
}

#[test]
fn qwen_a_string_display_is_shown_when_it_is_not_blank() {
    let display = |d: &str| Some(json!({"callId": "c1", "status": "success", "resultDisplay": d}));
    assert_eq!(
        qwen_result(
            json!([output("c1", "Found 3 matches:\n…")]),
            display("Found 3 matches")
        )
        .0,
        json!("Found 3 matches")
    );
    assert_eq!(
        qwen_result(json!([output("c1", "file body")]), display("")).0,
        json!("file body")
    );
    // Blank as JavaScript's trim() has it: its white space and line ends, U+FEFF among
    // them; U+0085 (NEL) and U+180E are not, and are shown.
    let blank =
        "\t\u{b}\u{c} \u{a0}\u{1680}\u{2000}\u{200a}\u{202f}\u{205f}\u{3000}\u{feff}\n\r\u{2028}\u{2029}";
    assert_eq!(
        qwen_result(json!([output("c1", "file body")]), display(blank)).0,
        json!("file body")
    );
    for shown in ["\u{85}", " \u{180e} "] {
        assert_eq!(
            qwen_result(json!([output("c1", "file body")]), display(shown)).0,
            json!(shown)
        );
    }
    // An object display (a file diff) shows the response's output.
    let diff =
        json!({"callId": "c1", "status": "success", "resultDisplay": {"fileDiff": "@@", "fileName": "a.ts"}});
    assert_eq!(
        qwen_result(
            json!([output("c1", "The file a.ts has been updated.")]),
            Some(diff)
        ),
        (json!("The file a.ts has been updated."), json!(false))
    );
}

#[test]
fn qwen_an_error_in_the_parts_is_the_result_before_any_display() {
    let failed = json!({"callId": "c1", "status": "error", "resultDisplay": shell_display("cat: x: No such file"),
        "error": {}, "errorType": "shell_execute_error"});
    let error = |e: Value| json!([{"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {"error": e}}}]);
    assert_eq!(
        qwen_result(error(json!("Command: cat x\nExit Code: 1")), Some(failed.clone())),
        (json!("Command: cat x\nExit Code: 1"), json!(true))
    );
    // An error that is no string, as JavaScript's String() writes it.
    assert_eq!(
        qwen_result(error(json!(404.0)), None),
        (json!("404"), json!(true))
    );
    assert_eq!(
        qwen_result(error(json!({"code": 1})), None),
        (json!("[object Object]"), json!(true))
    );
    assert_eq!(
        qwen_result(error(json!(["a", null, 2])), None),
        (json!("a,,2"), json!(true))
    );
    // An empty error is none: the display is shown, and the record's error still fails it.
    assert_eq!(
        qwen_result(error(json!("")), Some(failed)),
        (json!("cat: x: No such file"), json!(true))
    );
    // Without a toolCallResult, an error in the parts fails the call.
    assert_eq!(
        qwen_result(error(json!("denied")), None),
        (json!("denied"), json!(true))
    );
    // A truthy error whose text is empty (String([]), String([null]), String([""]),
    // String([[]])) is no error: the display is shown, and nothing fails the call.
    let shown = json!({"callId": "c1", "status": "success", "resultDisplay": "shown"});
    for empty in [json!([]), json!([null]), json!([""]), json!([[]])] {
        assert_eq!(
            qwen_result(error(empty.clone()), Some(shown.clone())),
            (json!("shown"), json!(false)),
            "{empty}"
        );
        // The search stops at the first truthy error: a later one is not looked at.
        let later = json!([
            {"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {"error": empty}}},
            {"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {"error": "second"}}},
        ]);
        assert_eq!(qwen_result(later, None), (json!("second"), json!(false)));
        // So in the vision bridge's display: the parts are shown after the notice.
        let vision = json!({"callId": "c1", "status": "success",
            "resultDisplay": {"type": "vision_bridge_notice", "summary": "S", "notice": "T"}});
        assert_eq!(
            qwen_result(error(empty.clone()), Some(vision)),
            (json!("S\nT\n"), json!(false))
        );
    }
}

#[test]
fn qwen_the_records_error_is_shown_by_its_message_when_the_file_kept_it() {
    let parts = json!([output("c1", "partial")]);
    // A message the file kept.
    let kept = json!({"callId": "c1", "status": "error", "resultDisplay": "shown", "error": {"message": "timed out"}});
    assert_eq!(
        qwen_result(parts.clone(), Some(kept)),
        (json!("timed out"), json!(true))
    );
    // An Error object, as JSON writes it ({}): its message is lost, the rest of the rule
    // shows the display; the call failed all the same.
    let lost = json!({"callId": "c1", "status": "error", "resultDisplay": "Tool timed out", "error": {}});
    assert_eq!(
        qwen_result(parts.clone(), Some(lost)),
        (json!("Tool timed out"), json!(true))
    );
    // A status of error alone is not what the stream's is_error says.
    let status = json!({"callId": "c1", "status": "error", "resultDisplay": "shown", "error": null});
    assert_eq!(qwen_result(parts, Some(status)), (json!("shown"), json!(false)));
}

#[test]
fn qwen_an_mcp_app_shows_its_fallback_text() {
    let app = |fallback: &str| {
        Some(json!({"callId": "c1", "status": "success",
            "resultDisplay": {"type": "mcp_app", "html": "<div/>", "toolResult": {}, "fallbackText": fallback}}))
    };
    assert_eq!(
        qwen_result(json!([output("c1", "{\"rows\":3}")]), app("A chart of 3 rows")).0,
        json!("A chart of 3 rows")
    );
    assert_eq!(
        qwen_result(json!([output("c1", "{\"rows\":3}")]), app(" \n")).0,
        json!("{\"rows\":3}")
    );
}

#[test]
fn qwen_the_parts_are_joined_as_qwen_code_joins_them() {
    // Several parts of one call: outputs, an error where there is no output (0: no error
    // to fail the call, but a value), other parts as JSON (numbers as JavaScript writes
    // them), in order.
    let parts = json!([
        output("c1", "one "),
        {"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {"output": null, "error": 0}}},
        {"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {}}},
        {"n": 1.50, "text": " and "},
        output("c1", "two"),
    ]);
    assert_eq!(
        qwen_result(parts, Some(json!({"callId": "c1", "status": "success"}))),
        (json!("one 0{\"n\":1.5,\"text\":\" and \"}two"), json!(false))
    );
    // No parts: no result.
    let (result, is_error) = qwen_result(json!([]), Some(json!({"callId": "c1", "status": "success"})));
    assert_eq!((result, is_error), (Value::Null, json!(false)));
}

#[test]
fn qwen_the_vision_bridge_notice_comes_first() {
    let notice = json!({"callId": "c1", "status": "success", "resultDisplay": "an image",
        "visionBridgeNotice": "Converted 1 image(s) to text via vision model."});
    assert_eq!(
        qwen_result(json!([output("c1", "read")]), Some(notice)).0,
        json!("Converted 1 image(s) to text via vision model.\nan image")
    );
    let display = json!({"callId": "c1", "status": "success",
        "resultDisplay": {"type": "vision_bridge_notice", "summary": "Read a.png", "notice": "Vision bridge cancelled."}});
    assert_eq!(
        qwen_result(json!([output("c1", "read")]), Some(display)).0,
        json!("Read a.png\nVision bridge cancelled.\nread")
    );
}

#[test]
fn qwen_a_record_answering_two_calls_gives_each_its_own_text() {
    let records = [
        json!({"uuid": "r1", "parentUuid": null, "sessionId": "q", "timestamp": "t", "type": "user",
            "message": {"role": "user", "parts": [{"text": "Go."}]}}),
        json!({"uuid": "r2", "parentUuid": "r1", "sessionId": "q", "timestamp": "t", "type": "assistant",
            "message": {"role": "model", "parts": [
                {"functionCall": {"id": "c1", "name": "run_shell_command", "args": {}}},
                {"functionCall": {"id": "c2", "name": "run_shell_command", "args": {}}}]}}),
        json!({"uuid": "r3", "parentUuid": "r2", "sessionId": "q", "timestamp": "t", "type": "tool_result",
            "message": {"role": "user", "parts": [output("c1", "Output: one"), output("c2", "Output: two")]},
            "toolCallResult": {"callId": "c2", "status": "success", "resultDisplay": shell_display("two")}}),
    ];
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    let (got, _) = load_view(text.as_bytes(), HistoryFormat::Qwen, View::Resumed);
    let calls = &got[1]["chunks"][0]["calls"];
    assert_eq!(calls[0]["result"], "Output: one");
    assert_eq!(calls[1]["result"], "two");
}

/// The calls `c1` and `c2` of one response, then a `tool_result` record for each of
/// `results` (its parts, its `toolCallResult` when given): the calls' results and
/// failures, and what was left out.
fn qwen_two_calls(results: &[(Value, Option<Value>)]) -> (Vec<(Value, Value)>, Skips) {
    let mut records = vec![
        json!({"uuid": "r1", "parentUuid": null, "sessionId": "q", "timestamp": "t", "type": "user",
            "message": {"role": "user", "parts": [{"text": "Go."}]}}),
        json!({"uuid": "r2", "parentUuid": "r1", "sessionId": "q", "timestamp": "t", "type": "assistant",
            "message": {"role": "model", "parts": [
                {"functionCall": {"id": "c1", "name": "run_shell_command", "args": {}}},
                {"functionCall": {"id": "c2", "name": "run_shell_command", "args": {}}}]}}),
    ];
    for (i, (parts, call_result)) in results.iter().enumerate() {
        let mut record = json!({"uuid": format!("x{i}"), "parentUuid": records.last().unwrap()["uuid"],
            "sessionId": "q", "timestamp": "t", "type": "tool_result",
            "message": {"role": "user", "parts": parts}});
        if let Some(call_result) = call_result {
            record["toolCallResult"] = call_result.clone();
        }
        records.push(record);
    }
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    let (got, skipped) = load_view(text.as_bytes(), HistoryFormat::Qwen, View::Resumed);
    let calls = got[1]["chunks"][0]["calls"].as_array().unwrap().clone();
    let calls = calls
        .iter()
        .map(|c| (c["result"].clone(), c["isError"].clone()))
        .collect();
    (calls, skipped)
}

#[test]
fn qwen_the_tool_call_result_is_of_the_call_its_call_id_names() {
    // The parts answer c1, the callId names c2: the display and the error are c2's (as
    // Qwen Code's stream gives its block, by callId), not c1's.
    let (calls, skipped) = qwen_two_calls(&[(
        json!([output("c1", "one")]),
        Some(json!({"callId": "c2", "status": "error", "resultDisplay": "TWO shown", "error": {}})),
    )]);
    assert_eq!(
        calls,
        [(json!("one"), json!(false)), (json!("TWO shown"), json!(true))]
    );
    assert_eq!(skipped.left_out.count, 0);
    // A callId naming no call: the only call answered has it.
    let (calls, _) = qwen_two_calls(&[(
        json!([output("c1", "one")]),
        Some(json!({"callId": "resp-1", "status": "error", "resultDisplay": "ONE shown", "error": {}})),
    )]);
    assert_eq!(calls[0], (json!("ONE shown"), json!(true)));
    // Two calls answered and none named: neither has it, and it is counted.
    for call_result in [
        json!({"status": "error", "resultDisplay": "D", "error": {}}),
        json!({"callId": "resp-1", "status": "error", "resultDisplay": "D", "error": {}}),
    ] {
        let (calls, skipped) = qwen_two_calls(&[(
            json!([output("c1", "one"), output("c2", "two")]),
            Some(call_result.clone()),
        )]);
        assert_eq!(
            calls,
            [(json!("one"), json!(false)), (json!("two"), json!(false))],
            "{call_result}"
        );
        assert_eq!(skipped.left_out.count, 1, "{call_result}");
        assert_eq!(skipped.left_out.reasons[qwen::UNPLACED_CALL_RESULT], 1);
    }
    // A record of no response whose callId names no call is a result without its call.
    let (calls, skipped) = qwen_two_calls(&[(
        json!([]),
        Some(json!({"callId": "gone", "status": "success", "resultDisplay": "D"})),
    )]);
    assert_eq!(calls[0].0, Value::Null);
    assert_eq!(skipped.left_out.reasons[check::ORPHAN_RESULT], 1);
    // A record whose responses and callId name no call is counted once per response, its
    // toolCallResult and other parts with them.
    let (_, skipped) = qwen_two_calls(&[(
        json!([output("gone", "lost"), {"text": "note"}]),
        Some(json!({"callId": "gone", "status": "success", "resultDisplay": "D"})),
    )]);
    assert_eq!(skipped.left_out.count, 1);
    let (_, skipped) = qwen_two_calls(&[(json!([{"text": "note"}]), None)]);
    assert_eq!(skipped.left_out.reasons[check::ORPHAN_RESULT], 1);
}

#[test]
fn qwen_a_call_answered_twice_shows_the_last_result_and_counts_the_other() {
    // While the call's message is read (c2 not answered yet), a later record replaces
    // the result, as Qwen Code's stream and resume show the last; the replaced one is
    // counted. A record without responses is such a record too (its stream block has no
    // content).
    let first = (
        json!([output("c1", "one")]),
        Some(json!({"callId": "c1", "status": "success"})),
    );
    let (calls, skipped) = qwen_two_calls(&[
        first.clone(),
        (json!([]), Some(json!({"callId": "c1", "status": "success"}))),
    ]);
    assert_eq!(calls[0], (Value::Null, json!(false)));
    assert_eq!(skipped.left_out.reasons[qwen::REPEATED_RESULT], 1);
    let (calls, skipped) = qwen_two_calls(&[
        first.clone(),
        (
            json!([output("c1", "again")]),
            Some(json!({"callId": "c1", "status": "success"})),
        ),
    ]);
    assert_eq!(calls[0], (json!("again"), json!(false)));
    assert_eq!(skipped.left_out.count, 1);
    // Once its message is read to the end (both calls answered), the later result is
    // the one left out, counted.
    let (calls, skipped) = qwen_two_calls(&[
        first,
        (
            json!([output("c2", "two")]),
            Some(json!({"callId": "c2", "status": "success"})),
        ),
        (json!([]), Some(json!({"callId": "c1", "status": "success"}))),
    ]);
    assert_eq!(
        calls,
        [(json!("one"), json!(false)), (json!("two"), json!(false))]
    );
    assert_eq!(skipped.left_out.reasons[qwen::REPEATED_RESULT], 1);
}

#[test]
fn claude_a_line_without_a_parent_uuid_continues_the_line_written_before_it() {
    // A viewer's test transcript: some lines name their parent, others carry no
    // `parentUuid` key at all (among them the last, a line of tool results); a system
    // line without one ends a desktop session's file.
    let text = concat!(
        "{\"type\":\"user\",\"uuid\":\"w1\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"Which port?\"}}\n",
        "{\"type\":\"assistant\",\"uuid\":\"w2\",\"parentUuid\":\"w1\",\"sessionId\":\"s\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t4\",\"name\":\"Grep\",\"input\":{}}]}}\n",
        "{\"type\":\"user\",\"uuid\":\"w3\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t4\",\"content\":\"PORT=8080\"}]}}\n",
        "{\"type\":\"system\",\"subtype\":\"turn_duration\",\"uuid\":\"w4\",\"sessionId\":\"s\",\"durationMs\":900}\n",
    );
    let (resumed, skipped) = load_view(text.as_bytes(), HistoryFormat::Claude, View::Resumed);
    let resumed = resumed.as_array().unwrap();
    assert_eq!(resumed.len(), 2);
    assert_eq!(resumed[1]["chunks"][0]["calls"][0]["result"], "PORT=8080");
    assert_eq!(skipped.left_out.count, 0);
}

/// A user record's text as Qwen Code's current transcript view projects it
/// (`projectUserTranscriptForDisplay`): a payload that is no object is none, and a final
/// context part proves where a `displayText` alone came from.
#[test]
fn qwen_user_display_text_follows_the_current_projection() {
    let tag = "<qwen:user-prompt-submit-context>\nhook-only context\n</qwen:user-prompt-submit-context>";
    let record = |payload: Option<serde_json::Value>| {
        let mut record = json!({ "type": "user", "message": { "role": "user", "parts": [{ "text": "user prompt" }, { "text": tag }] } });
        if let Some(payload) = payload {
            record["systemPayload"] = payload;
        }
        parse(record.to_string().as_bytes()).unwrap()
    };
    let shown = |payload| qwen::user_display_text(&record(payload)).map(|t| t.to_string_lossy().into_owned());
    assert_eq!(shown(None).as_deref(), Some("user prompt"));
    assert_eq!(
        shown(Some(serde_json::Value::Null)).as_deref(),
        Some("user prompt")
    );
    assert_eq!(
        shown(Some(json!({ "displayText": "raw @file" }))).as_deref(),
        Some("raw @file")
    );
    assert_eq!(
        shown(Some(json!({ "hookContext": "h" }))),
        Some(format!("user prompt{tag}"))
    );
}

#[test]
fn a_qwen_sub_agents_records_are_no_claude_lines_and_its_file_is_detected_as_qwen() {
    // Qwen Code writes a sub-agent's transcript with `isSidechain` on every record, as
    // Claude Code marks its own lines; its `message` is a Gemini `Content` (`parts`).
    let text = concat!(
        "{\"uuid\":\"a\",\"parentUuid\":null,\"sessionId\":\"s\",\"timestamp\":\"t\",\"type\":\"user\",\"isSidechain\":true,\"agentId\":\"general-purpose-1\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"Look.\"}]}}\n",
        "{\"uuid\":\"b\",\"parentUuid\":\"a\",\"sessionId\":\"s\",\"timestamp\":\"t\",\"type\":\"assistant\",\"isSidechain\":true,\"agentId\":\"general-purpose-1\",\"message\":{\"role\":\"model\",\"parts\":[{\"text\":\"Done.\"}]}}\n",
    );
    let parsed = lines(text);
    assert!(!claude::is_transcript_line(&parsed[0]));
    assert!(!claude::has_envelope(&parsed[1]));
    assert_eq!(
        agent_chunks::formats::detect(text.as_bytes()).unwrap().name,
        "qwen"
    );
}

#[test]
fn claude_lines_whose_message_holds_no_content_are_counted_not_dropped_or_left_empty() {
    let text = concat!(
        "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"s\",\"isSidechain\":false,\"userType\":\"external\",\"message\":{\"role\":\"user\"}}\n",
        "{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\",\"sessionId\":\"s\",\"isSidechain\":false,\"userType\":\"external\",\"message\":{\"role\":\"assistant\",\"id\":\"m\",\"content\":{\"text\":\"hi\"}}}\n",
        "{\"type\":\"assistant\",\"uuid\":\"a2\",\"parentUuid\":\"a1\",\"sessionId\":\"s\",\"isSidechain\":false,\"userType\":\"external\"}\n",
        "{\"type\":\"assistant\",\"uuid\":\"a3\",\"parentUuid\":\"a2\",\"sessionId\":\"s\",\"isSidechain\":false,\"userType\":\"external\",\"message\":{\"role\":\"assistant\",\"id\":\"n\",\"content\":[{\"type\":\"text\",\"text\":\"Here.\"}]}}\n",
    );
    let (out, skipped) = load_view(text.as_bytes(), HistoryFormat::Claude, View::Resumed);
    assert_eq!(out.as_array().unwrap().len(), 1, "{out}");
    assert_eq!(out[0]["chunks"][0]["text"], "Here.");
    assert_eq!(skipped.count, 3);
    assert!(
        skipped
            .examples
            .iter()
            .all(|e| e.ends_with("has no content (a string or content blocks)")),
        "{:?}",
        skipped.examples
    );
}
