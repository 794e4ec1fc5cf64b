//! OpenClaw 2026.9's gateway frames as a client receives them: `chat` frames of state
//! `status` while the run is prepared, `agent` streams beyond the tool, assistant and
//! lifecycle ones (`run_status`, `usage`, `item`, `command_output`), and a `tool` frame
//! that names no call. The capture is read, never refused for that frame: it is skipped
//! and counted, as OpenClaw's own UI passes over it; `strict` refuses it.

use agent_chunks::formats::find;
use agent_chunks::live::conversation::Conversation;
use agent_chunks::live::fold_stream;
use agent_chunks::reading::fold::owned_messages;
use agent_chunks::Chunk;

const CAPTURE: &[u8] = include_bytes!("../__test__/fixtures/openclaw-gateway-2026-9.ndjson");

#[test]
fn a_2026_9_capture_is_read_and_only_the_frame_naming_no_call_is_counted() {
    let folded = fold_stream(find("pi-stream").unwrap(), CAPTURE, false).unwrap();
    assert_eq!(folded.skips.count, 1, "{:?}", folded.skips.kinds);
    assert_eq!(
        folded.skips.examples,
        ["line 5: a tool frame without a \"toolCallId\""]
    );
    // The call, then the reply that goes on after its result: two stored messages.
    assert_eq!(folded.messages.len(), 2);
    let call = &folded.messages[0].chunks;
    assert!(
        matches!(&call[..], [Chunk::ToolBatch { calls }] if calls.len() == 1 && calls[0].id == "call_kiosk_1" && calls[0].result.is_some()),
        "{call:?}"
    );
    let reply = &folded.messages[1].chunks;
    assert!(
        matches!(&reply[..], [Chunk::Text { text }] if *text == "Die nächste Linie 8 fährt um 12:04, danach 12:14."),
        "{reply:?}"
    );
}

#[test]
fn strict_refuses_the_frame_naming_no_call() {
    let error = fold_stream(find("pi-stream").unwrap(), CAPTURE, true).unwrap_err();
    assert_eq!(error.line, Some(5), "{error:?}");
    assert!(error.problem.contains("toolCallId"), "{error:?}");
}

#[test]
fn live_agrees_with_the_capture_read_whole_after_every_frame() {
    let format = find("pi-stream").unwrap();
    let lines: Vec<&[u8]> = CAPTURE.split_inclusive(|&b| b == b'\n').collect();
    let mut live = Conversation::new(format, Default::default()).unwrap();
    for i in 0..lines.len() {
        live.push_bytes(lines[i]).unwrap();
        let whole = fold_stream(format, &lines[..=i].concat(), false).unwrap();
        assert_eq!(
            owned_messages(live.messages()),
            whole.messages,
            "after line {}",
            i + 1
        );
    }
}
