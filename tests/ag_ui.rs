//! The `ag-ui` format: read the same whatever the framing (SSE with LF, CRLF or CR line
//! ends, JSON lines), what it passes over and counts, what it refuses, and the writer: any
//! stream of the examples written out as AG-UI after every frame, the events read back by
//! the format itself, give the conversation they were written from.

use agent_chunks::bytes::value::{self, Json};
use agent_chunks::formats::{detect, find};
use agent_chunks::live::conversation::{Conversation, LiveOptions};
use agent_chunks::live::fold_stream;
use agent_chunks::reading::fold::owned_messages;
use agent_chunks::reading::model_json::{message_json, FormatMessage};

const EXAMPLE: &[u8] = include_bytes!("../examples/ag-ui-stream.sse");

fn ag_ui() -> &'static agent_chunks::reading::format::Format {
    find("ag-ui").unwrap()
}

fn json(messages: &[FormatMessage]) -> String {
    let list = Json::Array(messages.iter().map(message_json).collect());
    String::from_utf8(list.to_json()).unwrap()
}

/// The example's events, parsed.
fn events() -> Vec<Json> {
    std::str::from_utf8(EXAMPLE)
        .unwrap()
        .split("\n\n")
        .filter_map(|frame| frame.strip_prefix("data: "))
        .map(|data| value::parse(data.as_bytes()).unwrap())
        .collect()
}

#[test]
fn the_example_reads_the_same_in_every_framing() {
    let whole = fold_stream(ag_ui(), EXAMPLE, false).unwrap();
    assert_eq!(whole.messages.len(), 8);
    assert_eq!(whole.skips.count, 0);
    let text = std::str::from_utf8(EXAMPLE).unwrap();
    let ndjson: String = events()
        .iter()
        .map(|e| format!("{}\n", String::from_utf8(e.to_json()).unwrap()))
        .collect();
    for framed in [text.replace('\n', "\r\n"), text.replace('\n', "\r"), ndjson] {
        assert_eq!(detect(framed.as_bytes()).unwrap().name, "ag-ui");
        let read = fold_stream(ag_ui(), framed.as_bytes(), false).unwrap();
        assert_eq!(json(&read.messages), json(&whole.messages));
        assert_eq!(read.skips.kinds, whole.skips.kinds);
    }
}

#[test]
fn what_keeps_no_message_is_counted_by_kind_and_never_refused() {
    let read = fold_stream(ag_ui(), EXAMPLE, true).unwrap();
    let kinds: Vec<(&str, u64)> = read.skips.kinds.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    assert_eq!(
        kinds,
        [
            ("CUSTOM", 1),
            ("STATE_DELTA", 1),
            ("STATE_SNAPSHOT", 1),
            ("STEP_FINISHED", 2),
            ("STEP_STARTED", 2)
        ]
    );
}

fn ndjson(lines: &[&str]) -> Vec<u8> {
    lines.iter().flat_map(|l| format!("{l}\n").into_bytes()).collect()
}

#[test]
fn what_the_client_refuses_is_read_on_and_counted_and_strict_refuses_it() {
    let bytes = ndjson(&[
        r#"{"type":"RUN_STARTED","thread_id":"t","run_id":"r"}"#,
        r#"{"type":"STEP_STARTED","stepName":"agent"}"#,
        r#"{"type":"TEXT_MESSAGE_START","message_id":"a"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","message_id":"a","delta":"hi"}"#,
        r#"{"type":"STEP_STARTED","stepName":"agent"}"#,
        r#"{"type":"TOOL_CALL_START","tool_call_id":"c","tool_call_name":"f","parent_message_id":"a"}"#,
        r#"{"type":"TOOL_CALL_END","tool_call_id":"c"}"#,
        r#"{"type":"TOOL_CALL_RESULT","toolCallId":"c","result":"ok"}"#,
        r#"{"type":"TOOL_CALL_RESULT","messageId":"x","toolCallId":"nowhere","content":"lost"}"#,
        r#"{"type":"SOMETHING_NEW"}"#,
    ]);
    let read = fold_stream(ag_ui(), &bytes, false).unwrap();
    assert_eq!(
        json(&read.messages),
        r#"[{"id":"a","role":"assistant","chunks":[{"type":"text","text":"hi"},{"type":"tool-batch","calls":[{"id":"c","name":"f","result":"ok","isError":false}]}]}]"#
    );
    let kinds: Vec<&str> = read.skips.kinds.keys().map(String::as_str).collect();
    assert_eq!(
        kinds,
        [
            "STEP_STARTED",
            "STEP_STARTED for a step already started (read on; @ag-ui/client refuses the run)",
            "TOOL_CALL_RESULT for a call no message holds",
            "TOOL_CALL_RESULT without messageId (read on; @ag-ui/client refuses the run)",
            "an event of a type AG-UI 1.0 does not list (\"SOMETHING_NEW\")"
        ]
    );
    assert_eq!(read.skips.count, 4, "passed over is not skipped");
    let error = fold_stream(ag_ui(), &bytes, true).unwrap_err();
    assert_eq!(
        error.to_string(),
        "line 5: STEP_STARTED for a step already started (read on; @ag-ui/client refuses the run) (strict: unknown lines are refused)"
    );
}

#[test]
fn a_malformed_field_refuses_its_frame_alone() {
    let mut live = Conversation::new(ag_ui(), LiveOptions::default()).unwrap();
    live.push_bytes(&ndjson(&[r#"{"type":"TEXT_MESSAGE_START","messageId":"a"}"#]))
        .unwrap();
    for (frame, error) in [
        (
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":5}"#,
            "line 2: delta must be a string, got number (in TEXT_MESSAGE_CONTENT)",
        ),
        (
            r#"{"type":"TEXT_MESSAGE_START","messageId":"b","role":"tool"}"#,
            "line 3: role must be 'assistant', 'user', 'system' or 'developer', got string (in TEXT_MESSAGE_START)",
        ),
        (
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"role":"user","content":"x"}]}"#,
            "line 4: messages[0].id must be a string, got undefined",
        ),
        (
            r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"x"}"#,
            "line 5: messageId must be a string: the first TEXT_MESSAGE_CHUNK of a stream names it (the client refuses the run)",
        ),
    ] {
        let before = owned_messages(live.messages());
        let (changes, refused) = live.push_bytes(&ndjson(&[frame])).unwrap_err();
        assert!(changes.is_empty());
        assert_eq!(refused.error.to_string(), error);
        assert_eq!(owned_messages(live.messages()), before, "a refused frame changes nothing");
    }
    live.push_bytes(&ndjson(&[
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"ok"}"#,
    ]))
    .unwrap();
    assert_eq!(
        json(&owned_messages(live.messages())),
        r#"[{"id":"a","role":"assistant","chunks":[{"type":"text","text":"ok"}]}]"#
    );
}

/// The stream examples of every format (all that fold without error), a frame at a time.
const STREAMS: &[(&str, &[u8])] = &[
    ("acp", include_bytes!("../examples/acp-session.ndjson")),
    ("acp", include_bytes!("../examples/acp-v1-load.ndjson")),
    ("events", include_bytes!("../examples/agent-session.sse")),
    ("events", include_bytes!("../examples/demo-stream.ndjson")),
    ("ai-sdk", include_bytes!("../examples/ai-sdk-stream.sse")),
    ("pi-events", include_bytes!("../examples/pi-events.ndjson")),
    (
        "pi-events",
        include_bytes!("../__test__/fixtures/pi-lost-updates.events.ndjson"),
    ),
    ("pi-stream", include_bytes!("../examples/openclaw-gateway.ndjson")),
    ("sn-stream", include_bytes!("../examples/sn-thinking.sse")),
    ("ag-ui", EXAMPLE),
];

/// `messages` as JSON, without the order results came in (`meta.agUi.result.order`): the
/// writer writes results of parallel calls as they land, which the conversation holds in
/// the calls' order (docs/formats/ag-ui.md, "Writing").
fn results_in_call_order(messages: &[FormatMessage]) -> String {
    let mut messages = messages.to_vec();
    for message in &mut messages {
        for chunk in &mut message.chunks {
            if let agent_chunks::model::Chunk::ToolBatch { calls } = chunk {
                for call in calls {
                    if let Some(Json::Object(outer)) = &mut call.meta {
                        for (_, agui) in outer.iter_mut() {
                            if let Some(Json::Object(result)) = agui.get_mut("result") {
                                result.retain(|(k, _)| *k != "order");
                            }
                            if let Json::Object(fields) = agui {
                                fields.retain(|(k, v)| !(*k == "result" && *v == Json::Object(Vec::new())));
                            }
                        }
                        outer.retain(|(_, v)| *v != Json::Object(Vec::new()));
                    }
                    if call.meta == Some(Json::Object(Vec::new())) {
                        call.meta = None;
                    }
                }
            }
        }
    }
    json(&messages)
}

#[test]
fn any_stream_written_as_ag_ui_reads_back_as_itself_after_every_frame() {
    let options = Json::object([("threadId", Json::string("t")), ("runId", Json::string("r"))]);
    for &(name, bytes) in STREAMS {
        let mut live = Conversation::new(find(name).unwrap(), LiveOptions::default()).unwrap();
        let mut written = Vec::new();
        let mut back = Conversation::new(ag_ui(), LiveOptions::default()).unwrap();
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            live.push_bytes(line).unwrap();
            let events = live.serve_with(ag_ui(), &options).unwrap();
            for event in &events {
                back.push_value(event.clone()).unwrap();
            }
            written.extend(events);
            // At frame ends: what was written so far reads as the conversation so far.
            if line == b"\n" || !bytes.starts_with(b"data") {
                assert_eq!(
                    results_in_call_order(&owned_messages(back.messages())),
                    json(&owned_messages(live.messages())),
                    "{name}: after {} events",
                    written.len()
                );
            }
        }
        live.end().unwrap();
        for event in live.serve_with(ag_ui(), &Json::Undefined).unwrap() {
            back.push_value(event).unwrap();
        }
        assert_eq!(
            results_in_call_order(&owned_messages(back.messages())),
            json(&owned_messages(live.messages())),
            "{name}: at the end"
        );
        assert_eq!(back.skips().count, 0, "{name}: {:?}", back.skips().examples);
    }
}

#[test]
fn the_first_call_names_the_run() {
    let mut live = Conversation::new(find("events").unwrap(), LiveOptions::default()).unwrap();
    let error = live.serve_with(ag_ui(), &Json::Undefined).unwrap_err();
    assert!(error.starts_with("options.threadId must be a string"), "{error}");
    let error = live
        .serve_with(
            ag_ui(),
            &Json::object([("threadId", Json::string("t")), ("runId", Json::Bool(true))]),
        )
        .unwrap_err();
    assert_eq!(error, "options.runId must be a string, got boolean");
}

/// What a conversation of `name` writes as AG-UI for `frames`, written after each frame,
/// cut after frame `cut` and gone on from its resume state (through JSON text) when given.
fn written(name: &str, frames: &[&[u8]], cut: Option<usize>) -> Vec<Json> {
    let format = find(name).unwrap();
    let options = Json::object([("threadId", Json::string("t")), ("runId", Json::string("r"))]);
    let mut live = Conversation::new(format, LiveOptions::default()).unwrap();
    let mut out = Vec::new();
    for (k, frame) in frames.iter().enumerate() {
        if Some(k) == cut {
            let state = value::parse(&live.resume_state().to_json()).unwrap();
            let messages = owned_messages(live.messages());
            live = Conversation::resume(format, LiveOptions::default(), messages, Some(&state)).unwrap();
        }
        live.push_bytes(frame).unwrap();
        out.extend(live.serve_with(ag_ui(), &options).unwrap());
    }
    live.end().unwrap();
    out.extend(live.serve_with(ag_ui(), &Json::Undefined).unwrap());
    out
}

#[test]
fn gone_on_from_its_resume_state_at_any_frame_the_writer_writes_what_one_conversation_writes() {
    for &(name, bytes) in STREAMS {
        // Frames: NDJSON lines, or SSE frames with their blank line.
        let sse = bytes.starts_with(b"data") || bytes.starts_with(b"retry");
        let mut frames: Vec<&[u8]> = Vec::new();
        let mut start = 0;
        for (at, _) in bytes
            .iter()
            .enumerate()
            .filter(|&(at, &b)| b == b'\n' && (!sse || bytes.get(at + 1) == Some(&b'\n')))
        {
            let end = if sse { at + 2 } else { at + 1 };
            frames.push(&bytes[start..end.min(bytes.len())]);
            start = end;
        }
        if start < bytes.len() {
            frames.push(&bytes[start..]);
        }
        let whole = written(name, &frames, None);
        for cut in 0..=frames.len() {
            assert_eq!(
                written(name, &frames, Some(cut)),
                whole,
                "{name}: cut after frame {cut}"
            );
        }
    }
}

#[test]
fn a_result_that_carried_nothing_is_no_tool_message_as_the_reloaded_call_has_none() {
    let frames: [&[u8]; 4] = [
        b"{\"type\":\"turn-start\",\"turnId\":\"a\"}\n",
        b"{\"type\":\"tool-call\",\"toolCall\":{\"id\":\"c1\",\"name\":\"bash\",\"arguments\":{}}}\n",
        b"{\"type\":\"tool-result\",\"toolResult\":{\"toolCallId\":\"c1\"}}\n",
        b"{\"type\":\"tool-result\",\"toolResult\":{\"toolCallId\":\"c1\",\"result\":null}}\n",
    ];
    let results = |events: &[Json]| {
        events
            .iter()
            .filter(|e| {
                String::from_utf8(e.to_json())
                    .unwrap()
                    .starts_with("{\"type\":\"TOOL_CALL_RESULT\"")
            })
            .map(|e| String::from_utf8(e.to_json()).unwrap())
            .collect::<Vec<_>>()
    };
    // Nothing written for the empty result; the `null` one that follows is a result.
    let before = results(&written("events", &frames[..3], None));
    assert!(before.is_empty(), "{before:?}");
    let after = results(&written("events", &frames, None));
    assert_eq!(after.len(), 1, "{after:?}");
}
