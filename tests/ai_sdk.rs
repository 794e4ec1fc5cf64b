//! The AI SDK rules: UI message stream chunks, fullStream parts and UIMessages.

use agent_chunks::bytes::value::{parse, Json};
use agent_chunks::bytes::Framing;
use agent_chunks::formats::ai_sdk::chunks::{fold_ui_chunks, read_message, write_message, StreamState};
use agent_chunks::formats::ai_sdk::AI_SDK;
use agent_chunks::formats::find;
use agent_chunks::live::conversation::Conversation;
use agent_chunks::live::{read_turns, reduce_to_json};
use agent_chunks::reading::model_json::{chunk_json, FormatChunk};

fn json(text: &str) -> Json {
    parse(text.as_bytes()).unwrap()
}

fn chunks_text(chunks: &[FormatChunk]) -> String {
    String::from_utf8(Json::Array(chunks.iter().map(chunk_json).collect()).to_json()).unwrap()
}

fn sse(chunks: &[&str]) -> String {
    chunks
        .iter()
        .map(|c| format!("data: {c}\n\n"))
        .collect::<String>()
        + "data: [DONE]\n\n"
}

#[test]
fn interleaved_text_parts_keep_their_own_text() {
    let chunks = [
        r#"{"type":"text-start","id":"a"}"#,
        r#"{"type":"text-start","id":"b"}"#,
        r#"{"type":"text-delta","id":"a","delta":"1"}"#,
        r#"{"type":"text-delta","id":"b","delta":"2"}"#,
        r#"{"type":"text-delta","id":"a","delta":"3"}"#,
    ];
    let wanted = r#"[{"type":"text","text":"13"},{"type":"text","text":"2"}]"#;
    let folded = fold_ui_chunks(&chunks.map(json)).unwrap();
    assert_eq!(chunks_text(&folded), wanted);
    assert_eq!(
        reduce_to_json(sse(&chunks).as_bytes(), Framing::Auto).unwrap(),
        wanted
    );
}

#[test]
fn reasoning_keeps_the_latest_provider_metadata_of_its_part() {
    let chunks = [
        r#"{"type":"reasoning-start","id":"r","providerMetadata":{"a":1}}"#,
        r#"{"type":"reasoning-delta","id":"r","delta":"x"}"#,
        r#"{"type":"reasoning-delta","id":"r","delta":"","providerMetadata":{"a":2}}"#,
        r#"{"type":"reasoning-end","id":"r"}"#,
        // A part without any metadata is a thinking chunk of its own all the same.
        r#"{"type":"reasoning-start","id":"s"}"#,
        r#"{"type":"reasoning-delta","id":"s","delta":"y"}"#,
        r#"{"type":"reasoning-end","id":"s"}"#,
        r#"{"type":"reasoning-start","id":"t"}"#,
        r#"{"type":"reasoning-delta","id":"t","delta":"z"}"#,
        r#"{"type":"reasoning-end","id":"t","providerMetadata":{"b":1.0}}"#,
    ];
    let wanted = concat!(
        r#"[{"type":"thinking","text":"x","metadata":{"a":2}},"#,
        r#"{"type":"thinking","text":"y"},"#,
        r#"{"type":"thinking","text":"z","metadata":{"b":1.0}}]"#
    );
    assert_eq!(chunks_text(&fold_ui_chunks(&chunks.map(json)).unwrap()), wanted);
    assert_eq!(
        reduce_to_json(sse(&chunks).as_bytes(), Framing::Sse).unwrap(),
        wanted
    );
}

#[test]
fn an_agent_event_in_a_ui_stream_is_an_error_not_a_loss() {
    let text = sse(&[
        r#"{"type":"start"}"#,
        r#"{"type":"tool-call","toolCall":{"id":"1","name":"n","arguments":{}}}"#,
    ]);
    let error = reduce_to_json(text.as_bytes(), Framing::Auto).unwrap_err();
    assert_eq!(error.line, 3);
    assert!(
        error.to_string().contains("'tool-call' is an agent event"),
        "{error}"
    );
}

#[test]
fn full_stream_errors_become_text() {
    let mut state = StreamState::default();
    let events = state
        .full_stream_events(&json(
            r#"{"type":"tool-error","toolCallId":"c","error":{"name":"E"}}"#,
        ))
        .unwrap();
    assert_eq!(
        format!("{events:?}").matches(r#"{\"name\":\"E\"}"#).count(),
        1,
        "{events:?}"
    );
}

#[test]
fn a_capture_of_several_responses_is_one_turn_per_start() {
    let mut text = sse(&[
        r#"{"type":"start","messageId":"m\u0031"}"#,
        r#"{"type":"text-delta","id":"t","delta":"a"}"#,
    ]);
    text += &sse(&[
        r#"{"type":"start"}"#,
        r#"{"type":"text-delta","id":"t","delta":"b"}"#,
    ]);
    let mut turns = Vec::new();
    read_turns(text.as_bytes(), Framing::Auto, |turn| {
        turns.push((turn.id.0.clone(), turn.chunks.len()));
        true
    })
    .unwrap();
    // The id as a JSON string body: the escape is decoded and written again.
    assert_eq!(turns, [("m1".to_string(), 1), ("turn-2".to_string(), 1)]);
}

#[test]
fn a_message_round_trips_through_a_ui_message() {
    let message = json(
        r#"{"id":"m","role":"assistant","parts":[{"type":"step-start"},{"type":"reasoning","text":"r","providerMetadata":{"x":{"y":1}}},{"type":"text","text":"t"},{"type":"tool-bash","toolCallId":"1","state":"output-available","input":{"c":1},"output":"ok"},{"type":"dynamic-tool","toolName":"d","toolCallId":"2","state":"input-available","input":null},{"type":"step-start"},{"type":"file","mediaType":"image/png","url":"https://x/y.png"}]}"#,
    );
    let read = read_message(&message).unwrap();
    assert_eq!(
        chunks_text(&read.chunks),
        concat!(
            r#"[{"type":"thinking","text":"r","metadata":{"x":{"y":1}}},{"type":"text","text":"t"},"#,
            r#"{"type":"tool-batch","calls":[{"id":"1","name":"bash","arguments":{"c":1},"result":"ok","isError":false},"#,
            r#"{"id":"2","name":"d","arguments":null,"meta":{"dynamic":true}}]},"#,
            r#"{"type":"file","mediaType":"image/png","url":"https://x/y.png"}]"#
        )
    );
    let written = write_message(&read);
    assert_eq!(read_message(&written).unwrap(), read);
    let parts = match written.get("parts") {
        Some(Json::Array(parts)) => parts,
        _ => panic!("parts"),
    };
    assert_eq!(
        String::from_utf8(parts[4].to_json()).unwrap(),
        r#"{"type":"dynamic-tool","toolName":"d","toolCallId":"2","state":"input-available","input":null}"#
    );
    let bad =
        json(r#"{"id":"m","role":"assistant","parts":[{"type":"tool-x","toolCallId":"1","state":"done"}]}"#);
    assert_eq!(
        read_message(&bad).unwrap_err().to_string(),
        "parts[0].state must be a tool part state (input-streaming, input-available, \
         approval-requested, approval-responded, output-available, output-error, output-denied), got 'done'"
    );
}

/// A recording of a UI message stream in which one `data:` line was damaged in transit
/// (cut short) and another holds two chunks written back to back.
fn damaged_recording() -> String {
    let frames = [
        r#"{"type":"start","messageId":"m1"}"#,
        r#"{"type":"start-step"}"#,
        r#"{"type":"text-start","id":"t"}"#,
        r#"{"type":"text-delta","id":"t","delta":"Tide "}"#,
        r#"{"type":"text-delta","id":"t","delta":"tables "}"#,
        r#"{"type":"text-delta","id":"t","delta":"for "}"#,
        r#"{"type":"text-delta","id":"t","delta":"Brest"}"#,
        r#"{"type":"text-delta","id":"t","delta":" at 06:"#,
        r#"{"type":"text-delta","id":"t","delta":"12"}{"type":"text-end","id":"t"}"#,
        r#"{"type":"finish-step"}"#,
        r#"{"type":"finish"}"#,
    ];
    sse(&frames)
}

#[test]
fn detection_reads_past_a_damaged_line_as_the_reader_does() {
    use agent_chunks::formats::detect;
    use agent_chunks::live::fold_stream;
    let recording = damaged_recording();
    // The damaged frame is on line 15; detection names the format as `--format ai-sdk`
    // reads it, instead of refusing the file at that line.
    assert_eq!(detect(recording.as_bytes()).unwrap().name, "ai-sdk");
    let read = fold_stream(find("ai-sdk").unwrap(), recording.as_bytes(), false).unwrap();
    assert_eq!(read.skips.count, 1, "{:?}", read.skips.examples);
    assert!(
        read.skips.examples[0].starts_with("line 15:"),
        "{:?}",
        read.skips.examples
    );
    assert_eq!(
        chunks_text(&read.messages[0].chunks),
        r#"[{"type":"text","text":"Tide tables for Brest12"}]"#
    );
    // A capture whose only data is damaged is still refused, at its first damaged line.
    let error = detect(b"data: {\"type\":\"start\"\n\ndata: nope\n\n").unwrap_err();
    assert_eq!(error.line, Some(1), "{error:?}");
}

#[test]
fn a_character_split_across_two_deltas_is_written_whole() {
    let mut live = Conversation::new(find("events").unwrap(), Default::default()).unwrap();
    live.push_bytes(b"{\"type\":\"text-delta\",\"delta\":\"a\\ud835\"}\n")
        .unwrap();
    let first = live.serve(&AI_SDK);
    live.push_bytes(b"{\"type\":\"text-delta\",\"delta\":\"\\udcb3b\"}\n")
        .unwrap();
    let second = live.serve(&AI_SDK);
    assert_eq!(
        String::from_utf8(first.last().unwrap().to_json()).unwrap(),
        r#"{"type":"text-delta","id":"0-0","delta":"a\ud835"}"#
    );
    assert_eq!(
        String::from_utf8(second[0].to_json()).unwrap(),
        r#"{"type":"text-delta","id":"0-0","delta":"\udcb3b"}"#
    );
}

/// The chunks written, as JSON text, one per line.
fn served(live: &mut Conversation) -> String {
    live.serve(&AI_SDK)
        .iter()
        .map(|chunk| String::from_utf8(chunk.to_json()).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

fn conversation(format: &str) -> Conversation {
    Conversation::new(find(format).unwrap(), Default::default()).unwrap()
}

#[test]
fn the_assistant_messages_of_a_turn_are_one_ui_message_with_a_step_each() {
    let mut live = conversation("events");
    live.push_bytes(
        br#"{"type":"turn-start","turnId":"a"}
{"type":"text-delta","delta":"one"}
{"type":"turn-start","turnId":"b"}
{"type":"error","error":"only an error"}
{"type":"turn-start","turnId":"c"}
{"type":"text-delta","delta":"two"}
"#,
    )
    .unwrap();
    live.end().unwrap();
    // One `start`; the message of errors alone has no step (it has no part).
    assert_eq!(
        served(&mut live),
        [
            r#"{"type":"start","messageId":"a"}"#,
            r#"{"type":"start-step"}"#,
            r#"{"type":"text-start","id":"0-0"}"#,
            r#"{"type":"text-delta","id":"0-0","delta":"one"}"#,
            r#"{"type":"text-end","id":"0-0"}"#,
            r#"{"type":"finish-step"}"#,
            r#"{"type":"start-step"}"#,
            r#"{"type":"text-start","id":"2-0"}"#,
            r#"{"type":"text-delta","id":"2-0","delta":"two"}"#,
            r#"{"type":"text-end","id":"2-0"}"#,
            r#"{"type":"finish-step"}"#,
            r#"{"type":"finish"}"#,
        ]
        .join("\n")
    );
}

#[test]
fn write_messages_groups_a_turn_and_a_message_of_errors_has_no_part() {
    let messages = agent_chunks::reading::model_json::messages_from_json(
        &json(
            r#"[{"id":"u","role":"user","chunks":[{"type":"text","text":"hi"}]},
            {"id":"a","role":"assistant","chunks":[{"type":"text","text":"one"}]},
            {"id":"b","role":"assistant","chunks":[{"type":"error","message":"x"}]},
            {"id":"c","role":"assistant","chunks":[{"type":"thinking","text":"t","metadata":"not an object"}]},
            {"id":"u2","role":"user","chunks":[{"type":"text","text":"again"}]},
            {"id":"d","role":"assistant","chunks":[{"type":"error","message":"y"}]}]"#,
        ),
        "messages",
    )
    .unwrap();
    let written = agent_chunks::formats::ai_sdk::chunks::write_messages(&messages);
    let text: Vec<_> = written
        .iter()
        .map(|m| String::from_utf8(m.to_json()).unwrap())
        .collect();
    assert_eq!(
        text,
        [
            r#"{"id":"u","role":"user","parts":[{"type":"text","text":"hi","state":"done"}]}"#,
            concat!(
                r#"{"id":"a","role":"assistant","parts":[{"type":"step-start"},{"type":"text","text":"one","state":"done"},"#,
                r#"{"type":"step-start"},{"type":"reasoning","text":"t","state":"done"}]}"#
            ),
            r#"{"id":"u2","role":"user","parts":[{"type":"text","text":"again","state":"done"}]}"#,
            r#"{"id":"d","role":"assistant","parts":[]}"#,
        ]
    );
}

#[test]
fn a_call_named_after_it_was_written_is_written_again_in_its_step() {
    let mut live = conversation("acp");
    live.push_bytes(
        br#"{"sessionUpdate":"tool_call","toolCallId":"c1","title":"other","kind":"other","status":"pending"}
"#,
    )
    .unwrap();
    let first = served(&mut live);
    assert!(
        first
            .contains(r#"{"type":"tool-input-available","toolCallId":"c1","toolName":"other","input":null}"#),
        "{first}"
    );
    live.push_bytes(
        br#"{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"Read a.txt","kind":"read","rawInput":{"path":"a.txt"}}
"#,
    )
    .unwrap();
    let second = served(&mut live);
    assert!(
        second.starts_with(r#"{"type":"tool-input-available","toolCallId":"c1","toolName":"#),
        "{second}"
    );
    assert!(second.contains(r#""input":{"path":"a.txt"}"#), "{second}");
    live.end().unwrap();
    assert!(!served(&mut live).contains("data-message-replaced"));
}

#[test]
fn a_response_renamed_after_its_start_goes_out_whole_under_the_new_id_and_replay_begins_again() {
    let mut live = conversation("sn-stream");
    live.push_bytes(b"data: {\"type\":\"text\",\"data\":\"Hi\"}\n\n")
        .unwrap();
    let first = served(&mut live);
    let started = first.lines().next().unwrap().to_string();
    live.push_bytes(
        b"data: {\"type\":\"thought\",\"data\":{\"id\":\"th1\",\"parts\":[{\"type\":0,\"text\":\"Hi\"}],\"role\":0,\"created_at\":\"2026-02-01T09:02:00Z\"}}\n\n",
    )
    .unwrap();
    // A reconnect gets the response again from its start, under the id the client has.
    let replayed = live.serve_replayed(&AI_SDK);
    assert_eq!(String::from_utf8(replayed[0].to_json()).unwrap(), started);
    live.end().unwrap();
    let end = served(&mut live);
    assert!(
        end.contains(r#""type":"data-message-replaced""#) && end.contains(r#""data":{"id":"th1""#),
        "{end}"
    );
    assert!(end.ends_with(r#"{"type":"finish"}"#), "{end}");
}

#[test]
fn a_result_that_carried_nothing_writes_no_output_as_the_reloaded_call_has_none() {
    let mut live = conversation("events");
    live.push_bytes(
        br#"{"type":"turn-start","turnId":"a"}
{"type":"tool-call","toolCall":{"id":"c1","name":"bash","arguments":{}}}
{"type":"tool-result","toolResult":{"toolCallId":"c1"}}
{"type":"tool-call","toolCall":{"id":"c2","name":"bash","arguments":{}}}
{"type":"tool-result","toolResult":{"toolCallId":"c2","result":null,"isError":false}}
"#,
    )
    .unwrap();
    live.end().unwrap();
    let written = served(&mut live);
    // The result with nothing in it is left out of the message's JSON, so a reload shows
    // the call waiting; the stream says the same. A `null` result is a result.
    assert!(!written.contains(r#""toolCallId":"c1","output""#), "{written}");
    assert!(
        written.contains(r#"{"type":"tool-output-available","toolCallId":"c2","output":null}"#),
        "{written}"
    );
}

#[test]
fn a_message_rewritten_after_its_part_of_the_response_was_written_can_be_resumed_from() {
    // An AG-UI call announced before its parent's text: the message is written as a call,
    // then its text arrives and goes before the call, after the writer has moved on to the
    // next message. The response is marked to go out whole, and the state saved then must
    // be one a conversation can go on from, writing what the one that went on writes.
    let frames = [
        r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"bash","parentMessageId":"a1"}"#,
        r#"{"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning"}"#,
        r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"think"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"a1","role":"assistant"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"Let me "}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"a1"}"#,
        r#"{"type":"REASONING_MESSAGE_END","messageId":"r1"}"#,
    ];
    let format = find("ag-ui").unwrap();
    let mut whole = conversation("ag-ui");
    for (k, frame) in frames.iter().enumerate() {
        whole.push_bytes(format!("{frame}\n").as_bytes()).unwrap();
        served(&mut whole);
        // Gone on from here, through the state's JSON text and the messages.
        let state = agent_chunks::bytes::value::parse(&whole.resume_state().to_json()).unwrap();
        let messages = agent_chunks::reading::fold::owned_messages(whole.messages());
        let mut resumed = Conversation::resume(format, Default::default(), messages, Some(&state))
            .unwrap_or_else(|e| panic!("after frame {k}: {e}"));
        let mut rest = Vec::new();
        let mut went_on = conversation("ag-ui");
        for frame in &frames[..=k] {
            went_on.push_bytes(format!("{frame}\n").as_bytes()).unwrap();
            served(&mut went_on);
        }
        for frame in &frames[k + 1..] {
            resumed.push_bytes(format!("{frame}\n").as_bytes()).unwrap();
            went_on.push_bytes(format!("{frame}\n").as_bytes()).unwrap();
            rest.push((served(&mut resumed), served(&mut went_on)));
        }
        resumed.end().unwrap();
        went_on.end().unwrap();
        rest.push((served(&mut resumed), served(&mut went_on)));
        for (from_state, from_start) in rest {
            assert_eq!(from_state, from_start, "gone on after frame {k}");
        }
    }
}
