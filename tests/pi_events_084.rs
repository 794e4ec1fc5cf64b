//! pi 0.84 and later: `message_update`s carry deltas only (no `message`, no `partial`), a
//! `thinking_end` names no signature, compaction is `compaction_start` / `compaction_end`,
//! and a run ends with `agent_settled`; `queue_update` reports the prompt queues. The
//! events still build the session the same run wrote: every signature (from the
//! message's end), an empty encrypted thought, the compaction summary, nothing counted.

use agent_chunks::formats::find;
use agent_chunks::formats::pi::session::read_session;
use agent_chunks::live::fold_stream;
use agent_chunks::reading::model_json::{message_json, FormatMessage};
use agent_chunks::{Chunk, MessageRole};

mod pi_events_common;

const STREAM: &[u8] = include_bytes!("../__test__/fixtures/pi-events-084.ndjson");
const SESSION: &[u8] = include_bytes!("../__test__/fixtures/pi-events-084.session.jsonl");

/// Role and chunks (ids differ: a stream names none).
fn shown(messages: &[FormatMessage]) -> Vec<(MessageRole, String)> {
    messages
        .iter()
        .map(|m| {
            let text = String::from_utf8(message_json(m).to_json()).unwrap();
            (m.role, text[text.find("\"chunks\"").unwrap()..].to_string())
        })
        .collect()
}

#[test]
fn delta_only_events_build_the_session_the_same_run_wrote() {
    let folded = fold_stream(find("pi-events").unwrap(), STREAM, true).unwrap();
    assert_eq!(folded.skips.count, 0, "{:?}", folded.skips.examples);
    let history = read_session(SESSION).unwrap();
    assert_eq!(shown(&folded.messages), shown(&history));
}

#[test]
fn the_signatures_only_the_end_holds_are_kept() {
    let folded = fold_stream(find("pi-events").unwrap(), STREAM, true).unwrap();
    let thoughts: Vec<(String, String)> = folded
        .messages
        .iter()
        .flat_map(|m| &m.chunks)
        .filter_map(|chunk| match chunk {
            Chunk::Thinking { text, metadata } => Some((
                text.to_string(),
                metadata
                    .as_ref()
                    .map(|m| String::from_utf8(m.to_json()).unwrap())
                    .unwrap_or_default(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(thoughts.len(), 2, "{thoughts:?}");
    assert_eq!(thoughts[0].0, "Erst die Datei lesen.");
    assert!(thoughts[0].1.contains("c2lnLWdhcmRlbi0x"), "{thoughts:?}");
    // The encrypted thought streams no delta: its chunk is empty, and holds its signature.
    assert_eq!(thoughts[1].0, "");
    assert!(thoughts[1].1.contains("rs_garden_2"), "{thoughts:?}");
}

#[test]
fn live_agrees_with_the_recording_read_whole_after_every_line() {
    let text = std::str::from_utf8(STREAM).unwrap();
    let frames: Vec<&str> = text.lines().collect();
    let live = pi_events_common::read(&frames);
    assert_eq!(
        live,
        fold_stream(find("pi-events").unwrap(), STREAM, true)
            .unwrap()
            .messages
    );
}

#[test]
fn the_new_event_names_are_detected_as_pi_events_and_keep_nothing() {
    // An RPC capture may begin with the queue report, before any message event; a direct
    // bash command's output chunks and compaction's summarization retries keep nothing
    // (strict: nothing is refused).
    let capture = br#"{"type":"queue_update","steering":[],"followUp":[]}
{"type":"bash_execution_update","id":"req-1","delta":"total 48\n"}
{"type":"summarization_retry_scheduled","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"terminated"}
{"type":"summarization_retry_attempt_start","source":"compaction","reason":"threshold"}
{"type":"summarization_retry_finished"}
{"type":"agent_settled"}
"#;
    let folded = fold_stream(find("pi-events").unwrap(), capture, true).unwrap();
    assert_eq!(folded.messages.len(), 0);
    let detected = agent_chunks::formats::detect(capture).map(|f| f.name);
    assert_eq!(detected.ok(), Some("pi-events"));
}
