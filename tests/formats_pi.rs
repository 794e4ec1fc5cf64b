//! Pi / OpenClaw: session trees, every entry and role, the live streams against the
//! session files the same runs wrote, round trips, errors.

use agent_chunks::bytes::value::{parse, Json};
use agent_chunks::formats::find;
use agent_chunks::formats::pi::session::{
    leaves, read_lines, read_session, read_session_with, write_session, SessionOptions,
};
use agent_chunks::live::{fold_stream, FoldedStream};
use agent_chunks::reading::blocks::tool_result_value;
use agent_chunks::reading::check::Skips;
use agent_chunks::reading::model_json::{message_json, FormatMessage};
use agent_chunks::{Chunk, MessageRole, SystemChunkKind};

const SESSION: &[u8] = include_bytes!("../examples/pi-session.jsonl");
const SHORTHAND: &[u8] = include_bytes!("../examples/pi-session.stream.ndjson");
const TREE: &[u8] = include_bytes!("../__test__/fixtures/pi-tree.jsonl");
const V1: &[u8] = include_bytes!("../__test__/fixtures/pi-v1.jsonl");
const V2: &[u8] = include_bytes!("../__test__/fixtures/pi-v2.jsonl");
const LENIENT: &[u8] = include_bytes!("../__test__/fixtures/pi-lenient.jsonl");
const PI_EVENTS: &[u8] = include_bytes!("../examples/pi-events.ndjson");
const PI_EVENTS_SESSION: &[u8] = include_bytes!("../examples/pi-events.session.jsonl");
const GATEWAY: &[u8] = include_bytes!("../examples/openclaw-gateway.ndjson");
const OPENCLAW_SESSION: &[u8] = include_bytes!("../examples/openclaw-session.jsonl");

fn json(message: &FormatMessage) -> String {
    String::from_utf8(message_json(message).to_json()).unwrap()
}

fn fold(format: &str, bytes: &[u8]) -> FoldedStream {
    fold_stream(find(format).unwrap(), bytes, false).unwrap()
}

/// Role and chunks of the messages of `roles`, in order (ids differ: a stream has none).
fn shown(messages: &[FormatMessage], roles: &[MessageRole]) -> Vec<(MessageRole, String)> {
    messages
        .iter()
        .filter(|m| roles.contains(&m.role))
        .map(|m| {
            let text = json(m);
            (m.role, text[text.find("\"chunks\"").unwrap()..].to_string())
        })
        .collect()
}

#[test]
fn the_shorthand_stream_builds_the_persisted_assistant_messages() {
    let history = read_session(SESSION).unwrap();
    let streamed = fold("pi-stream", SHORTHAND);
    assert_eq!(streamed.skips.count, 0);
    let assistant = [MessageRole::Assistant];
    assert_eq!(shown(&streamed.messages, &assistant), shown(&history, &assistant));
    assert_eq!(
        streamed.messages.len(),
        6,
        "one message per stored assistant message"
    );
}

#[test]
fn pi_agent_events_build_the_session_the_same_run_wrote() {
    let history = read_session(PI_EVENTS_SESSION).unwrap();
    let streamed = fold("pi-events", PI_EVENTS);
    assert_eq!(streamed.skips.count, 0, "{:?}", streamed.skips.examples);
    let roles = [MessageRole::User, MessageRole::Assistant];
    assert_eq!(shown(&streamed.messages, &roles), shown(&history, &roles));
    let last = history.last().unwrap();
    assert!(
        matches!(last.chunks.last(), Some(Chunk::Error { message, .. }) if message.to_string().starts_with("400 ")),
        "the failed request ends in its error: {}",
        json(last)
    );
    assert!(
        matches!(history[2].chunks[1], Chunk::File { .. }),
        "the user's image is kept"
    );
}

#[test]
fn openclaw_gateway_frames_build_the_session_the_same_runs_wrote() {
    let history = read_session(OPENCLAW_SESSION).unwrap();
    let streamed = fold("pi-stream", GATEWAY);
    assert_eq!(streamed.skips.count, 0, "{:?}", streamed.skips.examples);
    let assistant = [MessageRole::Assistant];
    assert_eq!(shown(&streamed.messages, &assistant), shown(&history, &assistant));
    let texts: Vec<String> = streamed.messages.iter().map(json).collect();
    assert!(
        texts[1].contains(r#"{"type":"text","text":"It is 18 °C"#),
        "the reply after the tool is a message of its own"
    );
    assert!(texts[2].ends_with(r#"{"type":"error","message":"Operation aborted"}]}"#));
    assert!(texts[3].contains("429 rate_limit_error"));
}

#[test]
fn a_cumulative_text_that_does_not_extend_the_last_one_loses_nothing_until_the_final() {
    let frames = concat!(
        r#"{"type":"event","event":"chat","payload":{"state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"Hello wor"}]}}}"#,
        "\n",
        r#"{"type":"event","event":"chat","payload":{"state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"Hello world"}]}}}"#,
        "\n",
        r#"{"type":"event","event":"chat","payload":{"state":"delta","message":{"role":"assistant","content":[{"type":"text","text":"Hello there, world"}]}}}"#,
        "\n",
        r#"{"type":"event","event":"chat","payload":{"state":"final","message":{"role":"assistant","content":[{"type":"text","text":"Hello there, world"}]}}}"#,
        "\n"
    );
    let lines: Vec<&str> = frames.lines().collect();
    let streamed = fold("pi-stream", lines[..3].join("\n").as_bytes());
    assert_eq!(
        streamed.messages[0].chunks,
        vec![Chunk::Text {
            text: "Hello worldthere, world".into()
        }],
        "while it streams, what was shown stays and what is new is added"
    );
    // The final holds the reply as OpenClaw shows it and its session stores it.
    let folded = fold("pi-stream", frames.as_bytes());
    assert_eq!(
        folded.messages[0].chunks,
        vec![Chunk::Text {
            text: "Hello there, world".into()
        }],
        "the final's text, not the deltas glued"
    );
}

#[test]
fn two_stored_assistant_messages_are_two_messages() {
    let text = concat!(
        r#"{"role":"assistant","content":[{"type":"text","text":"(terminal default)"}]}"#,
        "\n",
        r#"{"role":"assistant","content":[{"type":"text","text":"I don't have a way"}]}"#
    );
    let messages = read_session(text.as_bytes()).unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(
        json(&messages[1]),
        r#"{"id":"line-2","role":"assistant","chunks":[{"type":"text","text":"I don't have a way"}]}"#
    );
}

#[test]
fn the_conversation_is_the_path_to_the_last_entry() {
    let messages = read_session(TREE).unwrap();
    let ids: Vec<&str> = messages.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "a0000001", "a0000002", "a0000003", "a0000004", "a0000005", "a0000006", "a0000007", "a0000008", "a000000a",
            "a000000d", "a000000e", "a000000f", "a0000010", "a0000012", "a0000013", "a0000014", "a0000015"
        ],
        "the abandoned branch (a000000b, a000000c) is left out; tool results, hidden messages and state entries make no message"
    );
    let kinds: Vec<_> = messages
        .iter()
        .filter_map(|m| match m.chunks.as_slice() {
            [Chunk::System { kind, .. }] => Some(*kind),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        [
            SystemChunkKind::ModelChanged,
            SystemChunkKind::ThinkingLevelChanged,
            SystemChunkKind::BranchSummary,
            SystemChunkKind::Custom,
            SystemChunkKind::Compaction,
            SystemChunkKind::ModelChanged
        ]
    );
    assert_eq!(
        json(&messages[0]),
        r#"{"id":"a0000001","role":"system","chunks":[{"type":"system","kind":"model-changed","text":"anthropic/claude-opus-4-5"}]}"#
    );
    assert_eq!(
        json(&messages[11]),
        r#"{"id":"a000000f","role":"assistant","chunks":[{"type":"error","message":"fetch failed"}]}"#
    );
}

#[test]
fn every_leaf_is_listed_and_can_be_read() {
    let all = leaves(TREE).unwrap();
    let listed: Vec<(&str, usize, bool)> = all.iter().map(|l| (l.id.as_str(), l.depth, l.current)).collect();
    assert_eq!(listed, [("a000000c", 12, false), ("a0000018", 22, true)]);
    let mut abandoned = Vec::new();
    read_session_with(
        TREE,
        SessionOptions {
            leaf: Some("a000000c".into()),
            strict: false,
            ..SessionOptions::default()
        },
        |m| {
            abandoned.push(m);
            true
        },
    )
    .unwrap();
    let last = abandoned.last().unwrap();
    assert_eq!(
        json(last),
        r#"{"id":"a000000c","role":"assistant","chunks":[{"type":"text","text":"Voici la version"},{"type":"error","message":"Operation aborted"}]}"#,
        "an abort without a message of its own reads as pi's UI words it"
    );
    let missing = read_session_with(
        TREE,
        SessionOptions {
            leaf: Some("nope".into()),
            strict: false,
            ..SessionOptions::default()
        },
        |_| true,
    );
    assert!(missing
        .unwrap_err()
        .to_string()
        .contains("no entry with id \"nope\""));
}

#[test]
fn bash_executions_are_the_users_own_calls() {
    let messages = read_session(TREE).unwrap();
    let by_id = |id: &str| json(messages.iter().find(|m| m.id == id).unwrap());
    assert_eq!(
        by_id("a0000005"),
        r#"{"id":"a0000005","role":"user","chunks":[{"type":"tool-batch","calls":[{"id":"a0000005","name":"bash","arguments":{"command":"ls docs"},"result":{"output":"intro.md\nsetup.md\n","exitCode":0,"cancelled":false,"truncated":false},"isError":false}]}]}"#
    );
    assert!(by_id("a0000006")
        .ends_with(r#""exitCode":1,"cancelled":false,"truncated":false},"isError":true}]}]}"#));
    assert!(by_id("a0000015").ends_with(
        r#""cancelled":true,"truncated":true,"fullOutputPath":"/tmp/pi-bash-7f3a.log"},"isError":true}]}]}"#
    ));
}

#[test]
fn images_are_file_chunks_with_their_type_and_data_as_stored() {
    let messages = read_session(TREE).unwrap();
    let Chunk::File {
        media_type,
        data,
        url,
        filename,
    } = &messages[2].chunks[1]
    else {
        panic!("{}", json(&messages[2]));
    };
    assert_eq!(media_type.to_string(), "image/png");
    assert!(data.as_ref().unwrap().to_string().starts_with("iVBORw0KGgo"));
    assert_eq!((url, filename), (&None, &None));
}

#[test]
fn version_1_entries_chain_in_file_order() {
    let messages = read_session(V1).unwrap();
    let roles: Vec<_> = messages.iter().map(|m| (m.id.as_str(), m.role)).collect();
    assert_eq!(
        roles,
        [
            ("line-2", MessageRole::User),
            ("line-3", MessageRole::Assistant),
            ("line-4", MessageRole::System),
            ("line-5", MessageRole::System),
            ("line-6", MessageRole::User)
        ]
    );
}

#[test]
fn version_2_hook_messages_are_custom_messages() {
    let messages = read_session(V2).unwrap();
    assert_eq!(
        json(&messages[1]),
        r#"{"id":"b10c0002","role":"system","chunks":[{"type":"system","kind":"custom","text":"On branch main, nothing to commit"}]}"#
    );
}

#[test]
fn unknown_lines_are_skipped_and_counted_or_refused_when_strict() {
    let text = concat!(
        r#"{"type":"session","version":3,"id":"s"}"#,
        "\n",
        r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"audio","data":"x"}]}}"#,
        "\n",
        r#"{"type":"telemetry","id":"b","parentId":"a"}"#,
        "\n",
        r#"{"type":"message","id":"c","parentId":"b","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}"#,
        "\n"
    );
    let mut count = 0;
    let skips = read_session_with(text.as_bytes(), SessionOptions::default(), |_| {
        count += 1;
        true
    })
    .unwrap();
    assert_eq!(count, 2);
    assert_eq!(
        skips,
        Skips {
            strict: false,
            count: 2,
            examples: vec![
                "line 2: message.content[1]: unknown content block \"audio\"".into(),
                "line 3: unknown entry type \"telemetry\"".into()
            ],
            kinds: [
                (
                    "message.content[1]: unknown content block \"audio\"".to_string(),
                    1
                ),
                ("unknown entry type \"telemetry\"".to_string(), 1)
            ]
            .into(),
            ..Skips::default()
        }
    );
    let strict = read_session_with(
        text.as_bytes(),
        SessionOptions {
            leaf: None,
            strict: true,
            ..SessionOptions::default()
        },
        |_| true,
    )
    .unwrap_err();
    assert_eq!(strict.line, Some(2));
    assert!(strict.to_string().contains("strict"), "{strict}");
}

#[test]
fn write_then_read_gives_the_same_messages() {
    for session in [SESSION, TREE, PI_EVENTS_SESSION, OPENCLAW_SESSION] {
        let history = read_session(session).unwrap();
        assert_eq!(read_session(&write_session(&history)).unwrap(), history);
    }
}

#[test]
fn parsed_lines_read_like_the_text() {
    let lines: Vec<Json> = TREE
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| parse(l).unwrap())
        .collect();
    assert_eq!(
        read_lines(lines, SessionOptions::default()).unwrap(),
        read_session(TREE).unwrap()
    );
}

#[test]
fn thinking_signature_becomes_metadata_keyed_by_provider() {
    let text = br#"{"role":"assistant","content":[{"type":"thinking","thinking":"a","thinkingSignature":"s"},{"type":"thinking","thinking":"b"}]}"#;
    let messages = read_session(text).unwrap();
    assert_eq!(
        json(&messages[0]),
        r#"{"id":"line-1","role":"assistant","chunks":[{"type":"thinking","text":"a","metadata":{"unknown":{"signature":"s"}}},{"type":"thinking","text":"b"}]}"#
    );
}

#[test]
fn tool_results_are_joined_text_or_content_as_given() {
    let joined =
        tool_result_value(parse(br#"[{"type":"text","text":"a"},{"type":"text","text":"b"}]"#).unwrap());
    assert_eq!(joined, Json::string("ab"));
    let mixed = parse(br#"[{"type":"text","text":"a"},{"type":"image","data":""}]"#).unwrap();
    assert_eq!(tool_result_value(mixed.clone()), mixed);
    assert_eq!(tool_result_value(Json::string("s")), Json::string("s"));
}

#[test]
fn a_result_without_its_call_keeps_its_place() {
    let text = br#"{"role":"toolResult","toolCallId":"nope","toolName":"read","content":"x"}"#;
    let messages = read_session(text).unwrap();
    assert_eq!(
        json(&messages[0]),
        r#"{"id":"line-1","role":"assistant","chunks":[{"type":"tool-batch","calls":[{"id":"nope","name":"read","result":"x","isError":false}]}]}"#
    );
}

#[test]
fn errors_name_line_and_path() {
    let text = b"{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\",\"id\":\"x\"}]}";
    assert_eq!(
        read_session(text).unwrap_err().to_string(),
        "line 3: content[0].name must be a string, got undefined"
    );
    // A line cut short is read past (counted), and refused when strict.
    let cut = b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\n\n";
    assert_eq!(read_session(cut).unwrap().len(), 1);
    let strict = SessionOptions {
        strict: true,
        ..SessionOptions::default()
    };
    let truncated = read_session_with(cut, strict, |_| true).unwrap_err();
    assert_eq!(truncated.line, Some(2));
    assert!(truncated.problem.starts_with("truncated JSON"), "{truncated}");
}

/// A thinking block whose text is under `text`, a call without `id`, results without
/// `toolCallId`: entries pi keeps and shows.
#[test]
fn entries_pi_shows_are_read_though_fields_are_missing() {
    let mut messages = Vec::new();
    let skips = read_session_with(LENIENT, SessionOptions::default(), |m| {
        messages.push(json(&m));
        true
    })
    .unwrap();
    assert_eq!(
        messages,
        [
            r#"{"id":"u1","role":"user","chunks":[{"type":"text","text":"Count the lines of notes.txt"}]}"#,
            // pi shows no thinking of a block without `thinking`: skipped and counted; the
            // call without an id is a call, and the result that names none lands on it.
            r#"{"id":"a1","role":"assistant","chunks":[{"type":"text","text":"Counting."},{"type":"tool-batch","calls":[{"id":"","name":"bash","arguments":{"command":"wc -l notes.txt"},"result":"12 notes.txt","isError":false}]}]}"#,
            r#"{"id":"a2","role":"assistant","chunks":[{"type":"tool-batch","calls":[{"id":"call-7","name":"read","arguments":{"path":"notes.txt"}}]}]}"#,
            // No call without an id before it: kept in its place, as any result whose call
            // is not in the message before it.
            r#"{"id":"r2","role":"assistant","chunks":[{"type":"tool-batch","calls":[{"id":"","name":"","result":"first line","isError":false}]}]}"#,
            r#"{"id":"a3","role":"assistant","chunks":[{"type":"text","text":"It has 12 lines."}]}"#,
        ]
    );
    assert_eq!(skips.count, 1);
    assert_eq!(
        skips.examples,
        ["line 3: message.content[0]: a thinking block without \"thinking\""]
    );
    let lines: Vec<Json> = LENIENT
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| parse(l).unwrap())
        .collect();
    let parsed: Vec<String> = read_lines(lines, SessionOptions::default())
        .unwrap()
        .iter()
        .map(json)
        .collect();
    assert_eq!(parsed, messages, "parsed lines read as the text");
}

#[test]
fn strict_reading_refuses_each_missing_field_by_name() {
    let strict = || SessionOptions {
        strict: true,
        ..SessionOptions::default()
    };
    let text = String::from_utf8(LENIENT.to_vec()).unwrap();
    let error = read_session_with(LENIENT, strict(), |_| true).unwrap_err();
    assert_eq!(
        error.to_string(),
        "line 3: message.content[0].thinking must be a string, got undefined"
    );
    let thought = text.replace(r#""text":"wc -l"#, r#""thinking":"wc -l"#);
    let error = read_session_with(thought.as_bytes(), strict(), |_| true).unwrap_err();
    assert_eq!(
        error.to_string(),
        "line 3: message.content[2].id must be a string, got undefined"
    );
    let called = thought.replace(
        r#""toolCall","name":"bash""#,
        r#""toolCall","id":"c","name":"bash""#,
    );
    let error = read_session_with(called.as_bytes(), strict(), |_| true).unwrap_err();
    assert_eq!(
        error.to_string(),
        "line 4: message.toolCallId must be a string, got undefined"
    );
}

/// pi's agent events: a call announced without an id is a call there too, as in the file
/// the same run writes; strict reading refuses it.
#[test]
fn pi_events_keep_a_call_announced_without_an_id() {
    let events = concat!(
        r#"{"type":"message_start","message":{"role":"assistant","content":[]}}"#,
        "\n",
        r#"{"type":"message_update","assistantMessageEvent":{"type":"toolcall_end","contentIndex":0,"toolCall":{"type":"toolCall","name":"ls","arguments":{}}}}"#,
        "\n",
        r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"toolCall","name":"ls","arguments":{}}]}}"#,
        "\n",
        r#"{"type":"message_end","message":{"role":"toolResult","content":[{"type":"text","text":"a.txt"}]}}"#,
        "\n"
    );
    let folded = fold("pi-events", events.as_bytes());
    let shown: Vec<String> = folded.messages.iter().map(json).collect();
    assert_eq!(
        shown,
        [
            r#"{"id":"message-1","role":"assistant","chunks":[{"type":"tool-batch","calls":[{"id":"","name":"ls","arguments":{},"result":"a.txt","isError":false}]}]}"#
        ]
    );
    let strict = fold_stream(find("pi-events").unwrap(), events.as_bytes(), true).unwrap_err();
    assert_eq!(
        strict.to_string(),
        "line 2: assistantMessageEvent.toolCall.id must be a string, got undefined"
    );
}

/// An assistant message stored with `"content": "text"` (written by a tool other than
/// pi; pi's own hold blocks): OpenClaw's UI reads it as that text, as a user message of
/// that shape reads. One such message must not cost the whole history.
#[test]
fn an_assistant_message_whose_content_is_a_string_reads_as_its_text() {
    let text = concat!(
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-05-02T09:00:00.000Z","cwd":"/srv/kiosk"}"#,
        "\n",
        r#"{"type":"message","id":"e1","parentId":null,"timestamp":"2026-05-02T09:00:01.000Z","message":{"role":"user","content":"Wann fährt die nächste Fähre?"}}"#,
        "\n",
        r#"{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-05-02T09:00:02.000Z","message":{"role":"assistant","content":"Um 14:30 ab Steg 2.","stopReason":"stop"}}"#,
        "\n",
        r#"{"type":"message","id":"e3","parentId":"e2","timestamp":"2026-05-02T09:00:03.000Z","message":{"role":"assistant","content":"","stopReason":"error","errorMessage":"overloaded"}}"#,
        "\n",
    );
    for strict in [false, true] {
        let options = SessionOptions {
            strict,
            ..SessionOptions::default()
        };
        let mut messages = Vec::new();
        let skips = read_session_with(text.as_bytes(), options, |m| {
            messages.push(json(&m));
            true
        })
        .unwrap();
        assert_eq!(skips.count, 0);
        assert_eq!(
            messages,
            [
                r#"{"id":"e1","role":"user","chunks":[{"type":"text","text":"Wann fährt die nächste Fähre?"}]}"#,
                r#"{"id":"e2","role":"assistant","chunks":[{"type":"text","text":"Um 14:30 ab Steg 2."}]}"#,
                // An empty string is no text (the UI shows none); the error still stands.
                r#"{"id":"e3","role":"assistant","chunks":[{"type":"error","message":"overloaded"}]}"#,
            ]
        );
    }
}

/// pi's `SessionManager` keeps no entry of a file whose first line is not a session header
/// (`loadEntriesFromFile`; its test "truncates and rewrites file without valid header"):
/// such a file is no session. Nothing of it is read, its lines are counted, and `strict`
/// refuses its first line; by every reader of the format.
#[test]
fn a_file_that_does_not_start_with_a_session_header_is_no_session() {
    use agent_chunks::history::{read_with, HistoryFormat, Message};
    use agent_chunks::reading::format::{Input, ReadOptions};
    let headless = concat!(
        "\n",
        r#"{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}"#,
        "\n",
        r#"{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}"#,
        "\n"
    );
    let counted = |skips: &Skips| {
        assert_eq!(skips.count, 2);
        assert_eq!(
            skips.examples,
            [
                "line 2: no session: the file does not start with a session header",
                "line 3: no session: the file does not start with a session header"
            ]
        );
    };
    let mut read = 0;
    counted(
        &read_session_with(headless.as_bytes(), SessionOptions::default(), |_| {
            read += 1;
            true
        })
        .unwrap(),
    );
    assert_eq!(read, 0);
    for strict in [false, true] {
        let options = ReadOptions {
            strict,
            ..ReadOptions::default()
        };
        let mut cursor = std::io::Cursor::new(headless.as_bytes());
        for input in [Input::Bytes(headless.as_bytes()), Input::Reader(&mut cursor)] {
            let mut messages = 0;
            let got = read_with(input, HistoryFormat::Pi, &options, &mut |_: Message| {
                messages += 1;
                true
            });
            assert_eq!(messages, 0);
            match got {
                Ok(skips) => {
                    assert!(!strict);
                    counted(&skips);
                }
                Err(e) => {
                    assert!(strict);
                    assert_eq!(e.line, Some(2));
                    assert!(
                        e.message.contains("does not start with a session header"),
                        "{}",
                        e.message
                    );
                }
            }
        }
    }
    let lines: Vec<Json> = headless
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| parse(l.as_bytes()).unwrap())
        .collect();
    assert!(read_lines(lines, SessionOptions::default()).unwrap().is_empty());
    // With the header first, the same entries are the conversation; bare message lines (no
    // `type`) are messages without one.
    let with_header = format!("{}\n{}", r#"{"type":"session","version":3,"id":"s"}"#, headless);
    assert_eq!(read_session(with_header.as_bytes()).unwrap().len(), 2);
    let bare = concat!(
        r#"{"role":"user","content":[{"type":"text","text":"hi"}]}"#,
        "\n",
        r#"{"role":"assistant","content":[{"type":"text","text":"hello"}]}"#,
        "\n"
    );
    assert_eq!(read_session(bare.as_bytes()).unwrap().len(), 2);
}
