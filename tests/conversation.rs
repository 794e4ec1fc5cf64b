//! The live conversation of the core: pushed a line at a time (and in random pieces), every
//! stream example equals `fold_stream` of what was pushed, after every push; each push's
//! report names every message and chunk that changed.

use agent_chunks::formats::ai_sdk::AI_SDK;
use agent_chunks::formats::find;
use agent_chunks::live::conversation::{Changes, Conversation};
use agent_chunks::live::fold_stream;
use agent_chunks::reading::fold::owned_messages;
use agent_chunks::reading::model_json::FormatMessage;
use proptest::prelude::*;

const EXAMPLES: &[(&str, &[u8])] = &[
    ("acp", include_bytes!("../examples/acp-session.ndjson")),
    ("acp", include_bytes!("../examples/acp-v1-load.ndjson")),
    ("events", include_bytes!("../examples/agent-session.sse")),
    ("events", include_bytes!("../examples/demo-stream.ndjson")),
    ("ai-sdk", include_bytes!("../examples/ai-sdk-stream.sse")),
    (
        "claude-stream",
        include_bytes!("../examples/claude-code-stream.ndjson"),
    ),
    (
        "claude-stream",
        include_bytes!("../examples/claude-code-stream.partial.ndjson"),
    ),
    (
        "copilot",
        include_bytes!("../examples/copilot-session.stream.ndjson"),
    ),
    ("pi-events", include_bytes!("../examples/pi-events.ndjson")),
    (
        "pi-events",
        include_bytes!("../__test__/fixtures/pi-unannounced.events.ndjson"),
    ),
    (
        "pi-events",
        include_bytes!("../__test__/fixtures/pi-lost-updates.events.ndjson"),
    ),
    ("pi-stream", include_bytes!("../examples/openclaw-gateway.ndjson")),
    (
        "pi-stream",
        include_bytes!("../examples/pi-session.stream.ndjson"),
    ),
    (
        "pi-stream",
        include_bytes!("../__test__/fixtures/openclaw-webchat-edges.ndjson"),
    ),
    ("sn-stream", include_bytes!("../examples/sn-thinking.sse")),
    ("sn-stream", include_bytes!("../__test__/fixtures/sn-server.sse")),
    ("codex-exec", include_bytes!("../examples/codex-exec.jsonl")),
    (
        "codex-exec",
        include_bytes!("../__test__/fixtures/codex/0.20.0-tool/stream.jsonl"),
    ),
    ("ag-ui", include_bytes!("../examples/ag-ui-stream.sse")),
    ("opencode-run", include_bytes!("../examples/opencode-run.jsonl")),
    (
        "opencode-events",
        include_bytes!("../examples/opencode-events.sse"),
    ),
    (
        "opencode-global",
        include_bytes!("../examples/opencode-global.sse"),
    ),
    (
        "opencode-events",
        include_bytes!("../__test__/fixtures/opencode/kilo-7.7.7-event.sse"),
    ),
    (
        "opencode-events",
        include_bytes!("../__test__/fixtures/opencode/kilo-7.7.7-api-event.sse"),
    ),
];

/// Checks that `changes` names everything that differs between `before` and `after`.
fn check_report(before: &[FormatMessage], after: &[FormatMessage], changes: &Changes) {
    assert_eq!(changes.added, before.len()..after.len());
    for (i, message) in before.iter().enumerate() {
        let Some(change) = changes.changed.iter().find(|c| c.index == i) else {
            assert_eq!(&after[i], message, "message {i} changed unreported");
            continue;
        };
        if !change.renamed {
            assert_eq!(after[i].id, message.id);
        }
        for (j, chunk) in after[i].chunks.iter().enumerate() {
            if !change.chunks.contains(&j) {
                assert_eq!(
                    Some(chunk),
                    message.chunks.get(j),
                    "chunk {i}.{j} changed unreported"
                );
            }
        }
    }
}

#[test]
fn a_line_at_a_time_every_example_equals_its_prefix_read_whole() {
    for &(format, bytes) in EXAMPLES {
        let format = find(format).unwrap();
        let mut live = Conversation::new(format, Default::default()).unwrap();
        let mut at = 0;
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            let before = owned_messages(live.messages());
            let changes = live.push_bytes(line).unwrap();
            at += line.len();
            let after = owned_messages(live.messages());
            check_report(&before, &after, &changes);
            // An SSE frame ends at its blank line: compare there (and at every NDJSON line).
            if line == b"\n" || !bytes.starts_with(b"data") && !bytes.starts_with(b"retry") {
                let whole = fold_stream(format, &bytes[..at], false).unwrap();
                assert_eq!(after, whole.messages, "{} after byte {at}", format.name);
            }
        }
        live.end().unwrap();
        assert_eq!(
            owned_messages(live.messages()),
            fold_stream(format, bytes, false).unwrap().messages
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn split_anywhere_the_end_is_the_same(example in 0..EXAMPLES.len(), cuts in prop::collection::vec(0.0f64..1.0, 0..40)) {
        let (format, bytes) = EXAMPLES[example];
        let format = find(format).unwrap();
        let mut cuts: Vec<usize> = cuts.iter().map(|c| (c * bytes.len() as f64) as usize).collect();
        cuts.push(bytes.len());
        cuts.sort_unstable();
        let mut live = Conversation::new(format, Default::default()).unwrap();
        let mut at = 0;
        for cut in cuts {
            let before = owned_messages(live.messages());
            let changes = live.push_bytes(&bytes[at..cut]).unwrap();
            check_report(&before, &owned_messages(live.messages()), &changes);
            at = cut;
        }
        live.end().unwrap();
        prop_assert_eq!(owned_messages(live.messages()), fold_stream(format, bytes, false).unwrap().messages);
    }
}

#[test]
fn shell_output_after_text_reports_the_batch_it_lands_on() {
    // Shell output rebuilds the newest batch's last call even when text follows the batch.
    let lines: &[&[u8]] = &[
        br#"{"type":"turn-start","turnId":"t1"}"#,
        br#"{"type":"tool-call","toolCall":{"id":"c1","name":"bash","arguments":{}}}"#,
        br#"{"type":"text-delta","delta":"running"}"#,
        br#"{"type":"shell-output","stream":"stdout","data":"ok\n"}"#,
    ];
    let mut live = Conversation::new(find("events").unwrap(), Default::default()).unwrap();
    for line in lines {
        let before = owned_messages(live.messages());
        let changes = live.push_bytes(&[line, &b"\n"[..]].concat()).unwrap();
        check_report(&before, &owned_messages(live.messages()), &changes);
    }
}

#[test]
fn a_reasoning_end_after_text_reports_the_thinking_chunk_it_seals() {
    // The newest thinking chunk is sealed even when text follows it.
    let lines: &[&[u8]] = &[
        br#"{"type":"turn-start","turnId":"t1"}"#,
        br#"{"type":"reasoning-delta","delta":"hmm"}"#,
        br#"{"type":"text-delta","delta":"answer"}"#,
        br#"{"type":"reasoning-end","metadata":{}}"#,
    ];
    let mut live = Conversation::new(find("events").unwrap(), Default::default()).unwrap();
    for line in lines {
        let before = owned_messages(live.messages());
        let changes = live.push_bytes(&[line, &b"\n"[..]].concat()).unwrap();
        check_report(&before, &owned_messages(live.messages()), &changes);
    }
}

/// The places a recording can be cut between frames: after each NDJSON line, or after
/// each SSE frame's blank line.
fn frame_ends(bytes: &[u8]) -> Vec<usize> {
    let sse = bytes.starts_with(b"data") || bytes.starts_with(b"retry");
    let mut ends = vec![0];
    let mut at = 0;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        at += line.len();
        if !sse || line == b"\n" {
            ends.push(at);
        }
    }
    ends
}

#[test]
fn going_on_from_any_frame_with_the_resume_state_equals_the_whole_recording() {
    use agent_chunks::bytes::value;
    use agent_chunks::live::conversation::LiveOptions;
    for &(name, bytes) in EXAMPLES {
        let format = find(name).unwrap();
        let read = fold_stream(format, bytes, false).unwrap();
        let whole = read.messages;
        for cut in frame_ends(bytes) {
            let loaded = fold_stream(format, &bytes[..cut], false).unwrap();
            // Through JSON text, as an application keeps it.
            let state = value::parse(&loaded.resume.to_json()).unwrap();
            let mut live =
                Conversation::resume(format, LiveOptions::default(), loaded.messages, Some(&state)).unwrap();
            live.push_bytes(&bytes[cut..]).unwrap();
            live.end().unwrap();
            assert_eq!(
                owned_messages(live.messages()),
                whole,
                "{name} going on from byte {cut}"
            );
            assert_eq!(
                live.skips(),
                &read.skips,
                "{name} going on from byte {cut}: skipped"
            );
        }
    }
}

#[test]
fn a_resume_state_of_another_format_or_other_messages_is_refused() {
    let events = find("events").unwrap();
    let mut live = Conversation::new(events, Default::default()).unwrap();
    live.push_bytes(b"{\"type\":\"text-delta\",\"delta\":\"a\"}\n")
        .unwrap();
    let state = live.resume_state();
    let messages = owned_messages(live.messages());
    let refused = |format, messages: Vec<FormatMessage>| {
        Conversation::resume(find(format).unwrap(), Default::default(), messages, Some(&state))
            .err()
            .unwrap()
    };
    assert!(refused("acp", messages.clone()).starts_with("resume.format is 'events'"));
    assert!(refused("events", Vec::new()).starts_with("resume.messages"));
    assert!(Conversation::resume(events, Default::default(), messages, Some(&state)).is_ok());
}

#[test]
fn a_fold_state_of_the_wrong_kind_is_refused_for_every_stream_format() {
    for format in agent_chunks::formats::FORMATS
        .iter()
        .filter(|format| format.stream.is_some())
    {
        let name = format.name;
        let mut state = Conversation::new(format, Default::default())
            .unwrap()
            .resume_state();
        let remembers = !matches!(state.get("fold"), Some(agent_chunks::bytes::value::Json::Null));
        if let Some(fold) = state.get_mut("fold") {
            *fold = agent_chunks::bytes::value::Json::Bool(true);
        }
        let error = Conversation::resume(format, Default::default(), Vec::new(), Some(&state))
            .err()
            .unwrap_or_default();
        // A fold that remembers nothing (it saved `null`) takes back only `null`.
        let expected = if remembers {
            "resume.fold must be an object, got boolean"
        } else {
            "resume.fold must be null"
        };
        assert!(error.starts_with(expected), "{name}: {error}");
    }
}

/// The frames of an example, each with its line break (an SSE frame with its blank line).
fn frames_of(bytes: &[u8]) -> Vec<&[u8]> {
    let ends = frame_ends(bytes);
    ends.windows(2).map(|w| &bytes[w[0]..w[1]]).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn random_recordings_go_on_exactly_from_every_frame(example in 0..EXAMPLES.len(), keep in prop::collection::vec(0u8..10, 0..200)) {
        use agent_chunks::live::conversation::LiveOptions;
        use agent_chunks::bytes::value;
        let (name, bytes) = EXAMPLES[example];
        let format = find(name).unwrap();
        // Frames dropped (0) and repeated (9) at random.
        let mut recording = Vec::new();
        for (i, frame) in frames_of(bytes).into_iter().enumerate() {
            let roll = keep.get(i).copied().unwrap_or(5);
            for _ in 0..match roll { 0 => 0, 9 => 2, _ => 1 } {
                recording.extend_from_slice(frame);
            }
        }
        let Ok(whole) = fold_stream(format, &recording, false) else { return Ok(()) };
        for cut in frame_ends(&recording) {
            let loaded = fold_stream(format, &recording[..cut], false).unwrap();
            let state = value::parse(&loaded.resume.to_json()).unwrap();
            let mut live = Conversation::resume(format, LiveOptions::default(), loaded.messages, Some(&state)).unwrap();
            live.push_bytes(&recording[cut..]).unwrap();
            live.end().unwrap();
            prop_assert_eq!(owned_messages(live.messages()), whole.messages.clone(), "{} going on from byte {}", name, cut);
            prop_assert_eq!(live.skips(), &whole.skips, "{} going on from byte {}: skipped", name, cut);
        }
    }
}

/// A conversation resumed from a state saved after its end (and after its UI stream was
/// written to the end) writes nothing again: no message restarted, no `finish` twice, no
/// second end marker — whether or not the resumed one is ended again.
#[test]
fn resumed_after_its_end_the_ui_stream_is_not_written_again() {
    use agent_chunks::bytes::value;
    use agent_chunks::live::conversation::LiveOptions;
    let format = find("events").unwrap();
    let mut live = Conversation::new(format, LiveOptions::default()).unwrap();
    live.push_bytes(b"{\"type\":\"text-delta\",\"delta\":\"Hi\"}\n")
        .unwrap();
    assert!(!live.serve(&AI_SDK).is_empty());
    live.end().unwrap();
    let closing = live.serve(&AI_SDK);
    assert_eq!(
        closing
            .last()
            .and_then(|c| c.get("type"))
            .and_then(value::Json::as_str)
            .map(|t| t.to_string_lossy().into_owned()),
        Some("finish".into())
    );
    assert!(live.serve_end_marker(&AI_SDK), "the marker ends the stream once");
    assert!(!live.serve_end_marker(&AI_SDK));
    let state = value::parse(&live.resume_state().to_json()).unwrap();
    let messages = owned_messages(live.messages());
    let mut again = Conversation::resume(format, LiveOptions::default(), messages, Some(&state)).unwrap();
    assert_eq!(again.serve(&AI_SDK), Vec::new());
    again.end().unwrap();
    assert_eq!(
        again.serve(&AI_SDK),
        Vec::new(),
        "the finished message is not written again"
    );
    assert!(
        !again.serve_end_marker(&AI_SDK),
        "the marker was written before the state was saved"
    );
}

/// Saved after the end but before the stream was written to it, the resumed conversation
/// writes the rest and the marker once it ends.
#[test]
fn resumed_after_its_end_before_the_stream_was_closed_it_closes_it_once() {
    use agent_chunks::bytes::value;
    use agent_chunks::live::conversation::LiveOptions;
    let format = find("events").unwrap();
    let mut live = Conversation::new(format, LiveOptions::default()).unwrap();
    live.push_bytes(b"{\"type\":\"text-delta\",\"delta\":\"Hi\"}\n")
        .unwrap();
    let begun = live.serve(&AI_SDK);
    live.end().unwrap();
    let state = value::parse(&live.resume_state().to_json()).unwrap();
    let mut again = Conversation::resume(
        format,
        LiveOptions::default(),
        owned_messages(live.messages()),
        Some(&state),
    )
    .unwrap();
    assert!(!again.serve_end_marker(&AI_SDK), "not ended yet");
    again.end().unwrap();
    let rest = again.serve(&AI_SDK);
    assert!(again.serve_end_marker(&AI_SDK));
    let mut whole = Conversation::new(format, LiveOptions::default()).unwrap();
    whole
        .push_bytes(b"{\"type\":\"text-delta\",\"delta\":\"Hi\"}\n")
        .unwrap();
    whole.end().unwrap();
    assert_eq!([begun, rest].concat(), whole.serve(&AI_SDK));
}
