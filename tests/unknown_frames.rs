//! Every stream format counts each frame its fold does not use, by kind, and refuses it
//! under `strict`: the same in the recording read whole, its history, and the live
//! conversation pushed a line at a time. Known frames that carry nothing are not counted;
//! an SSE comment is no frame at all.

use agent_chunks::bytes::value::Json;
use agent_chunks::formats::find;
use agent_chunks::history::{read_with, HistoryFormat};
use agent_chunks::live::conversation::{Conversation, LiveOptions};
use agent_chunks::live::fold_stream;
use agent_chunks::model::Chunk;
use agent_chunks::reading::check::Skips;
use agent_chunks::reading::fold::owned_messages;
use agent_chunks::reading::format::{Input, ReadOptions};

/// Reads `bytes` in `format` every way there is, checks that they agree, and returns the
/// skips.
fn skips_of(format: &str, bytes: &[u8]) -> Skips {
    let format = find(format).unwrap();
    let whole = fold_stream(format, bytes, false).unwrap();
    let mut live = Conversation::new(format, LiveOptions::default()).unwrap();
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        live.push_bytes(line).unwrap();
    }
    live.end().unwrap();
    assert_eq!(
        owned_messages(live.messages()),
        whole.messages,
        "{}: live = whole",
        format.name
    );
    assert_eq!(
        live.skips().kinds,
        whole.skips.kinds,
        "{}: live skips = whole",
        format.name
    );
    if format.history.is_some() {
        let skips = read_with(
            Input::Bytes(bytes),
            HistoryFormat(format),
            &ReadOptions::default(),
            &mut |_| true,
        )
        .unwrap();
        assert_eq!(
            skips.kinds, whole.skips.kinds,
            "{}: history skips = whole",
            format.name
        );
    }
    whole.skips
}

/// Each of `frames` is refused under `strict` (whole, live and as a history), naming its line.
fn refused_when_strict(format: &str, known: &[u8], frames: &[&str]) {
    let format = find(format).unwrap();
    for frame in frames {
        let mut bytes = known.to_vec();
        bytes.extend_from_slice(frame.as_bytes());
        bytes.push(b'\n');
        let line = bytes.iter().filter(|&&b| b == b'\n').count();
        let error = fold_stream(format, &bytes, true).expect_err(frame);
        assert_eq!(error.line, Some(line), "{}: {frame}", format.name);
        let strict = LiveOptions {
            strict: true,
            ..LiveOptions::default()
        };
        let mut live = Conversation::new(format, strict).unwrap();
        live.push_bytes(known).unwrap();
        let before = owned_messages(live.messages());
        let (_, error) = live.push_bytes(&bytes[known.len()..]).expect_err(frame);
        assert_eq!(error.error.line, Some(line));
        assert_eq!(
            owned_messages(live.messages()),
            before,
            "a refused frame changes nothing"
        );
        if format.history.is_some() {
            let options = ReadOptions {
                strict: true,
                ..ReadOptions::default()
            };
            let read = read_with(Input::Bytes(&bytes), HistoryFormat(format), &options, &mut |_| {
                true
            });
            assert!(read.is_err(), "{}: history strict {frame}", format.name);
        }
    }
}

fn ndjson(frames: &[&str]) -> Vec<u8> {
    frames
        .iter()
        .flat_map(|f| [f.as_bytes(), b"\n"].concat())
        .collect()
}

fn count(skips: &Skips, kind: &str) -> u64 {
    skips.kinds.get(kind).copied().unwrap_or(0)
}

const PI_KNOWN: &str =
    r#"{"type":"message_start","message":{"role":"assistant","content":[],"provider":"anthropic"}}"#;

#[test]
fn pi_events_counts_unknown_frames() {
    let unknown = [
        r#"{"type":"tool_execution_progress","toolCallId":"x"}"#,
        r#"{"type":"message_update","assistantMessageEvent":{"type":"image_delta","delta":"…"}}"#,
        r#"{"type":"message_update"}"#,
        r#"[1,2]"#,
        r#""text""#,
        r#"{"type":"message_end","message":{"role":"toolResult","toolCallId":"nowhere","toolName":"read","content":[],"isError":false}}"#,
    ];
    let known = [
        PI_KNOWN,
        r#"{"type":"message_update","assistantMessageEvent":{"type":"text_start","contentIndex":0}}"#,
        r#"{"type":"agent_start"}"#,
        r#"{"type":"turn_end"}"#,
    ];
    let skips = skips_of("pi-events", &ndjson(&[&known[..], &unknown[..]].concat()));
    assert_eq!(skips.count, unknown.len() as u64, "{:?}", skips.kinds);
    assert_eq!(count(&skips, "unknown event type \"tool_execution_progress\""), 1);
    assert_eq!(
        count(&skips, "unknown assistantMessageEvent type \"image_delta\""),
        1
    );
    assert_eq!(count(&skips, "a value that is not an object"), 2);
    assert_eq!(count(&skips, "a tool result for a call not seen"), 1);
    refused_when_strict("pi-events", &ndjson(&[PI_KNOWN]), &unknown);
}

#[test]
fn pi_stream_counts_unknown_frames() {
    let unknown = [
        r#"{"type":"event","event":"chat","payload":{"state":"streaming"}}"#,
        r#"{"type":"event","event":"agent","payload":{"stream":"tool","data":{"phase":"queued","toolCallId":"c"}}}"#,
        r#"{"type":"event","payload":{}}"#,
        r#"{"type":"whisper"}"#,
        r#"42"#,
    ];
    let known = [
        r#"{"type":"event","event":"tick","payload":{"ts":1}}"#,
        r#"{"type":"res","id":"1","ok":true}"#,
        r#"{"type":"event","event":"agent","payload":{"stream":"assistant","data":{"text":"x"}}}"#,
        r#"{"type":"event","event":"agent","payload":{"stream":"tool","data":{"phase":"update","toolCallId":"c"}}}"#,
    ];
    let skips = skips_of("pi-stream", &ndjson(&[&known[..], &unknown[..]].concat()));
    assert_eq!(skips.count, unknown.len() as u64, "{:?}", skips.kinds);
    assert_eq!(count(&skips, "unknown chat state \"streaming\""), 1);
    assert_eq!(count(&skips, "unknown tool phase \"queued\""), 1);
    refused_when_strict("pi-stream", &ndjson(&known[..1]), &unknown);
}

#[test]
fn sn_stream_counts_unknown_frames() {
    let unknown = [r#"{"type":"image","data":"x"}"#, r#"{"data":"no type"}"#, r#"[]"#];
    // An SSE comment (a keep-alive) is no frame; an event name is not read, the data is.
    let mut bytes = b": keep-alive\n\ndata: {\"type\":\"text\",\"data\":\"Hi\"}\n\n".to_vec();
    for frame in unknown {
        bytes.extend_from_slice(format!("event: other\ndata: {frame}\n\n").as_bytes());
    }
    let skips = skips_of("sn-stream", &bytes);
    assert_eq!(skips.count, unknown.len() as u64, "{:?}", skips.kinds);
    assert_eq!(count(&skips, "unknown event type \"image\""), 1);
    assert_eq!(count(&skips, "an event without a \"type\""), 1);
    assert_eq!(count(&skips, "a value that is not an object"), 1);
    refused_when_strict("sn-stream", b"", &unknown);
    // Under strict a comment is still nothing.
    let strict = fold_stream(
        find("sn-stream").unwrap(),
        b": ping\n\ndata: {\"type\":\"text\",\"data\":\"Hi\"}\n\n",
        true,
    );
    assert_eq!(strict.unwrap().messages.len(), 1);
}

#[test]
fn ai_sdk_counts_unknown_chunks() {
    let unknown = [
        r#"{"type":"text-shimmer","id":"t"}"#,
        r#"{"id":"no type"}"#,
        r#"null"#,
        r#"{"type":"tool-output-available","toolCallId":"never","output":"42"}"#,
        r#"{"type":"tool-output-error","toolCallId":"never","errorText":"no"}"#,
        r#"{"type":"tool-output-denied","toolCallId":"never"}"#,
    ];
    let known = [
        r#"{"type":"start","messageId":"m1"}"#,
        r#"{"type":"data-weather","data":{}}"#,
        r#"{"type":"source-url","sourceId":"s","url":"https://example.invalid"}"#,
        r#"{"type":"finish-step"}"#,
    ];
    let skips = skips_of("ai-sdk", &ndjson(&[&known[..], &unknown[..]].concat()));
    assert_eq!(skips.count, unknown.len() as u64, "{:?}", skips.kinds);
    assert_eq!(count(&skips, "unknown chunk type \"text-shimmer\""), 1);
    assert_eq!(
        count(&skips, "tool-output-available for a call never announced"),
        1
    );
    assert_eq!(count(&skips, "tool-output-error for a call never announced"), 1);
    assert_eq!(count(&skips, "tool-output-denied for a call never announced"), 1);
    refused_when_strict("ai-sdk", &ndjson(&known[..1]), &unknown);
}

#[test]
fn an_ai_sdk_output_for_a_call_of_an_earlier_message_lands_on_it() {
    let bytes = ndjson(&[
        r#"{"type":"start","messageId":"m1"}"#,
        r#"{"type":"tool-input-available","toolCallId":"c1","toolName":"ask","input":{}}"#,
        r#"{"type":"finish"}"#,
        r#"{"type":"start","messageId":"m2"}"#,
        r#"{"type":"tool-output-available","toolCallId":"c1","output":"yes"}"#,
        r#"{"type":"text-start","id":"t"}"#,
        r#"{"type":"text-delta","id":"t","delta":"Done"}"#,
        r#"{"type":"finish"}"#,
    ]);
    let skips = skips_of("ai-sdk", &bytes);
    assert_eq!(skips.count, 0);
    let whole = fold_stream(find("ai-sdk").unwrap(), &bytes, true).unwrap();
    let Chunk::ToolBatch { calls } = &whole.messages[0].chunks[0] else {
        panic!("{:?}", whole.messages[0]);
    };
    assert_eq!(
        calls[0].result.as_ref().map(|(r, _)| r),
        Some(&Json::string("yes"))
    );
}

#[test]
fn events_counts_unknown_frames() {
    let unknown = [r#"{"type":"text-shimmer"}"#, r#"[1]"#, r#"{"delta":"no type"}"#];
    let known = [
        r#"{"type":"text-delta","delta":"Hi"}"#,
        r#"{"type":"usage","tokens":3}"#,
    ];
    let skips = skips_of("events", &ndjson(&[&known[..], &unknown[..]].concat()));
    assert_eq!(skips.count, unknown.len() as u64, "{:?}", skips.kinds);
    refused_when_strict("events", &ndjson(&known), &unknown);
}

#[test]
fn acp_counts_unknown_updates_and_lines() {
    let unknown = [
        r#"{"sessionId":"s","update":{"sessionUpdate":"agent_hologram_chunk","content":{}}}"#,
        r#"{"kind":"not acp at all"}"#,
    ];
    let known = [
        r#"{"sessionId":"s","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"Hi"}}}"#,
        r#"{"sessionId":"s","update":{"sessionUpdate":"available_commands_update","availableCommands":[]}}"#,
    ];
    let skips = skips_of("acp", &ndjson(&[&known[..], &unknown[..]].concat()));
    assert_eq!(skips.count, unknown.len() as u64, "{:?}", skips.kinds);
    refused_when_strict("acp", &ndjson(&known), &unknown);
    // A value that is not an object is refused as the notification it should be, whole and
    // live alike.
    let bytes = ndjson(&[known[0], "[1]"]);
    assert!(fold_stream(find("acp").unwrap(), &bytes, false).is_err());
}
