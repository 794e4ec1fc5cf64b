//! Claude Code's stream-json (`claude -p --output-format stream-json`): detected by its
//! content, folded as the transcript of the same run reads, with and without partial
//! messages.

mod common;

use agent_chunks::formats::{detect, find};
use agent_chunks::history::HistoryFormat;
use agent_chunks::live::fold_stream;
use agent_chunks::reading::format::{ReadOptions, View};
use agent_chunks::reading::model_json::{chunk_json, FormatMessage};
use agent_chunks::{Chunk, MessageRole};
use common::{assistants, fold, lines, read_history};

const PLAIN: &[u8] = include_bytes!("../examples/claude-code-stream.ndjson");
const PARTIAL: &[u8] = include_bytes!("../examples/claude-code-stream.partial.ndjson");
const TRANSCRIPT: &[u8] = include_bytes!("../examples/claude-code-stream.session.jsonl");

fn transcript(bytes: &[u8], view: View) -> Vec<FormatMessage> {
    let options = ReadOptions {
        view,
        ..ReadOptions::default()
    };
    read_history(bytes, HistoryFormat::Claude, &options).unwrap().0
}

#[test]
fn a_stream_json_capture_is_told_from_a_chatviewer_file_and_a_transcript() {
    assert_eq!(detect(PLAIN).unwrap().name, "claude-stream");
    assert_eq!(detect(PARTIAL).unwrap().name, "claude-stream");
    assert_eq!(detect(TRANSCRIPT).unwrap().name, "claude");
    assert_eq!(
        detect(include_bytes!("../examples/chatviewer-session.jsonl"))
            .unwrap()
            .name,
        "chatviewer"
    );
    // An assistant line alone, as a capture cut to its first reply.
    let first = lines(&[
        r#"{"type":"assistant","uuid":"u1","session_id":"s","parent_tool_use_id":null,"message":{"id":"m","role":"assistant","content":[{"type":"text","text":"hi"}]}}"#,
    ]);
    assert_eq!(detect(&first).unwrap().name, "claude-stream");
}

#[test]
fn with_and_without_partial_messages_the_stream_is_the_transcript_of_the_run() {
    let plain = fold("claude-stream", PLAIN);
    let partial = fold("claude-stream", PARTIAL);
    assert_eq!(plain.messages, partial.messages);
    let history = transcript(TRANSCRIPT, View::Resumed);
    // The prompt given to `-p` is not in the stream; every other message is, as stored.
    assert_eq!(history[0].role, MessageRole::User);
    assert_eq!(plain.messages, history[1..]);
    assert_eq!(assistants(&plain.messages).len(), 2);
    assert_eq!(plain.skips.count, 0);
    assert_eq!(partial.skips.count, 0);
}

#[test]
fn a_block_whose_line_never_came_stays_as_its_deltas_built_it() {
    // The stream cut after the thinking block's deltas and stop, and after the call's
    // input deltas and stop: no assistant line for either.
    let cut = lines(&[
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"message_start","message":{"id":"m1","role":"assistant","content":[]}}}"#,
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}}"#,
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Look first."}}}"#,
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}}"#,
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_stop","index":0}}"#,
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}}}"#,
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\":"}}}"#,
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"ls\"}"}}}"#,
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_stop","index":1}}"#,
    ]);
    let whole = lines(&[
        r#"{"type":"assistant","session_id":"s","parent_tool_use_id":null,"message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"Look first.","signature":"c2ln"}]}}"#,
        r#"{"type":"assistant","session_id":"s","parent_tool_use_id":null,"message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#,
    ]);
    assert_eq!(
        fold("claude-stream", &cut).messages,
        fold("claude-stream", &whole).messages
    );
}

#[test]
fn one_line_for_several_streamed_blocks_and_lines_named_anew_end_as_without_partials() {
    // Qwen Code's shape: the line comes after the block's stop, names the message anew,
    // and one line holds both calls it streamed.
    let start = |i: u8, block: &str| {
        format!(
            r#"{{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{{"type":"content_block_start","index":{i},"content_block":{block}}}}}"#
        )
    };
    let stop = |i: u8| {
        format!(
            r#"{{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{{"type":"content_block_stop","index":{i}}}}}"#
        )
    };
    let text_line = r#"{"type":"assistant","session_id":"s","parent_tool_use_id":null,"message":{"id":"a1","role":"assistant","content":[{"type":"text","text":"Both."}]}}"#;
    let calls_line = r#"{"type":"assistant","session_id":"s","parent_tool_use_id":null,"message":{"id":"a2","role":"assistant","content":[{"type":"tool_use","id":"c1","name":"sh","input":{"n":1}},{"type":"tool_use","id":"c2","name":"sh","input":{"n":2}}]}}"#;
    let partial = lines(&[
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"message_start","message":{"id":"a1","role":"assistant","content":[]}}}"#,
        &start(0, r#"{"type":"text","text":""}"#),
        r#"{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Both."}}}"#,
        &stop(0),
        text_line,
        &start(0, r#"{"type":"tool_use","id":"c1","name":"sh","input":{}}"#),
        &stop(0),
        &start(1, r#"{"type":"tool_use","id":"c2","name":"sh","input":{}}"#),
        &stop(1),
        calls_line,
    ]);
    let plain = lines(&[text_line, calls_line]);
    let expected = fold("claude-stream", &plain).messages;
    assert_eq!(expected.len(), 2);
    assert_eq!(fold("claude-stream", &partial).messages, expected);
}

#[test]
fn sub_agent_lines_are_left_out_with_their_reason() {
    let stream = lines(&[
        r#"{"type":"assistant","session_id":"s","parent_tool_use_id":null,"message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"task1","name":"Task","input":{}}]}}"#,
        r#"{"type":"assistant","session_id":"s","parent_tool_use_id":"task1","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"inside"}]}}"#,
        r#"{"type":"user","session_id":"s","parent_tool_use_id":"task1","message":{"role":"user","content":"sub prompt"}}"#,
        r#"{"type":"user","session_id":"s","parent_tool_use_id":null,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"task1","content":"42"}]}}"#,
    ]);
    let folded = fold("claude-stream", &stream);
    assert_eq!(folded.messages.len(), 1);
    assert_eq!(folded.skips.left_out.count, 2);
    assert!(folded
        .skips
        .left_out
        .reasons
        .contains_key(agent_chunks::formats::claude::stream::SUB_AGENT));
}

#[test]
fn a_compaction_summary_an_api_error_and_notices_read_as_the_transcript_reads_them() {
    let stream = lines(&[
        r#"{"type":"system","subtype":"compact_boundary","session_id":"s","compact_metadata":{"trigger":"auto","pre_tokens":1}}"#,
        r#"{"type":"user","session_id":"s","parent_tool_use_id":null,"uuid":"sum","isSynthetic":true,"message":{"role":"user","content":[{"type":"text","text":"This session is being continued…"}]}}"#,
        r#"{"type":"assistant","session_id":"s","parent_tool_use_id":null,"error":"invalid_request","message":{"id":"e1","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"Prompt is too long"}]}}"#,
        r#"{"type":"system","subtype":"local_command_output","session_id":"s","uuid":"n1","content":"Context left: 12%"}"#,
        r#"{"type":"user","session_id":"s","parent_tool_use_id":null,"uuid":"r1","isSynthetic":true,"message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#,
    ]);
    let folded = fold("claude-stream", &stream);
    let json: Vec<String> = folded
        .messages
        .iter()
        .map(|m| String::from_utf8(agent_chunks::reading::model_json::message_json(m).to_json()).unwrap())
        .collect();
    assert_eq!(
        json,
        [
            r#"{"id":"sum","role":"system","chunks":[{"type":"system","kind":"compaction","text":"This session is being continued…"}]}"#,
            r#"{"id":"e1","role":"assistant","chunks":[{"type":"error","message":"Prompt is too long"}]}"#,
            r#"{"id":"n1","role":"system","chunks":[{"type":"system","kind":"notice","text":"Context left: 12%"}]}"#,
            r#"{"id":"r1","role":"user","chunks":[{"type":"text","text":"[Request interrupted by user]"}]}"#,
        ]
    );
}

#[test]
fn lines_of_kinds_it_does_not_know_are_counted_and_refused_under_strict() {
    let stream = lines(&[
        r#"{"type":"system","subtype":"init","session_id":"s"}"#,
        r#"{"type":"system","subtype":"brand_new","session_id":"s"}"#,
        r#"{"type":"hologram","session_id":"s"}"#,
        r#"{"type":"result","subtype":"success","session_id":"s","is_error":false}"#,
    ]);
    let folded = fold("claude-stream", &stream);
    assert_eq!(folded.skips.count, 2);
    assert_eq!(folded.skips.kinds.get("system/init"), Some(&1));
    assert_eq!(folded.skips.kinds.get("result"), Some(&1));
    let refused = fold_stream(find("claude-stream").unwrap(), &stream, true).unwrap_err();
    assert_eq!(refused.line, Some(2));
}

#[test]
fn a_compacted_stream_is_the_transcript_s_whole_branch() {
    // Resumed, a compacted transcript starts at its summary; the stream holds all.
    let stream = lines(&[
        r#"{"type":"assistant","session_id":"s","parent_tool_use_id":null,"uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"before"}]}}"#,
        r#"{"type":"system","subtype":"compact_boundary","session_id":"s","uuid":"b1","compact_metadata":{"trigger":"auto","pre_tokens":1}}"#,
        r#"{"type":"user","session_id":"s","parent_tool_use_id":null,"uuid":"sum","isSynthetic":true,"message":{"role":"user","content":[{"type":"text","text":"Summary."}]}}"#,
        r#"{"type":"assistant","session_id":"s","parent_tool_use_id":null,"uuid":"a2","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"after"}]}}"#,
    ]);
    let history = lines(&[
        r#"{"type":"user","uuid":"p","parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"role":"user","content":"go"}}"#,
        r#"{"type":"assistant","uuid":"a1","parentUuid":"p","isSidechain":false,"sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"before"}]}}"#,
        r#"{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,"logicalParentUuid":"a1","isSidechain":false,"sessionId":"s","content":"Conversation compacted"}"#,
        r#"{"type":"user","uuid":"sum","parentUuid":"b1","isSidechain":false,"isCompactSummary":true,"sessionId":"s","message":{"role":"user","content":"Summary."}}"#,
        r#"{"type":"assistant","uuid":"a2","parentUuid":"sum","isSidechain":false,"sessionId":"s","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"after"}]}}"#,
    ]);
    let folded = fold("claude-stream", &stream).messages;
    assert_eq!(folded, transcript(&history, View::Transcript)[1..]);
    assert_eq!(folded[1..], transcript(&history, View::Resumed)[..]);
}

/// Qwen Code's stream-json names every content block's line (and, with partial messages,
/// its `message_start`) anew, where Claude Code's lines of one response share an id: its
/// init line says it is Qwen's, and a response is then the `assistant` lines between two
/// lines of another kind: one message per response, as its chat recording of the same run
/// has them (the calls with their results, the recording's read as the stream shows them).
#[test]
fn qwen_codes_stream_is_a_message_per_response_as_its_recording() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/__test__/fixtures/lab/qwen/0.24.4");
    for scenario in ["text", "tool", "thinking", "parallel", "failing-tool"] {
        let capture = std::path::Path::new(dir).join(scenario);
        // Each stream and the recording of its own run (named by its session id).
        let recording_of = |stream: &[u8]| {
            let session = String::from_utf8_lossy(stream)
                .split("\"session_id\":\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap()
                .to_string();
            let chats = std::fs::read_dir(capture.join("files/qwen/projects"))
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path()
                .join("chats");
            let recording = std::fs::read(chats.join(format!("{session}.jsonl"))).unwrap();
            read_history(&recording, HistoryFormat::Qwen, &ReadOptions::default())
                .unwrap()
                .0
        };
        // What the two both carry: the chunks (the stream names a message by its first
        // block, the recording by its record), a call with its result (the recording's
        // read as the stream shows it) and whether it failed.
        let shown = |messages: &[&FormatMessage]| -> Vec<String> {
            messages
                .iter()
                .map(|m| {
                    let chunks: Vec<_> = m.chunks.iter().map(chunk_json).collect();
                    String::from_utf8(agent_chunks::bytes::value::Json::Array(chunks).to_json()).unwrap()
                })
                .collect()
        };
        let stream = std::fs::read(capture.join("stream.jsonl")).unwrap();
        let plain = fold("claude-stream", &stream);
        assert_eq!(
            shown(&assistants(&plain.messages)),
            shown(&assistants(&recording_of(&stream))),
            "{scenario}"
        );
        let stream = std::fs::read(capture.join("stream.partial.jsonl")).unwrap();
        let partial = fold("claude-stream", &stream);
        assert_eq!(
            shown(&assistants(&partial.messages)),
            shown(&assistants(&recording_of(&stream))),
            "{scenario} partial"
        );
        // A result lands on its call.
        if scenario == "tool" {
            let Chunk::ToolBatch { calls } = &assistants(&plain.messages)[0].chunks[2] else {
                panic!("a tool batch")
            };
            assert!(calls[0].result.is_some());
        }
    }
}

#[test]
fn qwen_codes_goal_state_events_are_its_bookkeeping_read_strictly_too() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/__test__/fixtures/lab/qwen/0.24.4");
    for scenario in ["text", "tool", "thinking", "parallel", "failing-tool"] {
        let stream = std::fs::read(std::path::Path::new(dir).join(scenario).join("stream.jsonl")).unwrap();
        assert!(
            String::from_utf8_lossy(&stream).contains("\"goal_state\""),
            "{scenario}"
        );
        let strict = ReadOptions {
            strict: true,
            ..ReadOptions::default()
        };
        let (_, skips) = read_history(&stream, HistoryFormat::ClaudeStream, &strict).unwrap();
        assert!(
            skips.kinds.contains_key("stream_event/goal_state"),
            "{scenario}: {:?}",
            skips.kinds
        );
    }
    // In a stream of Claude Code's, which sends none, it is a type this version does not know.
    let claude = "{\"type\":\"stream_event\",\"uuid\":\"u\",\"session_id\":\"s\",\"event\":{\"type\":\"goal_state\"}}\n";
    let (_, skips) = read_history(
        claude.as_bytes(),
        HistoryFormat::ClaudeStream,
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(skips.count, 1);
}
