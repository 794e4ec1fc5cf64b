//! NDJSON lines through the bytes path against serde_json and the owned reducer: the same
//! lines must be accepted and rejected, and the accepted ones must give the same chunks.
//! Lines are cut by the event-stream rules (a leading BOM skipped; CRLF, LF, CR).

#![no_main]

#[path = "common.rs"]
mod common;

use agent_chunks::append_event;
use agent_chunks::bytes::Framing;
use agent_chunks::json::event_from_json;
use agent_chunks::live::reduce_to_json;
use libfuzzer_sys::fuzz_target;

/// The lines as the event-stream rules cut them: a leading BOM skipped, CRLF, LF and CR
/// each ending one line.
fn lines(data: &[u8]) -> Vec<&[u8]> {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < data.len() {
        match data[i] {
            b'\n' => {
                out.push(&data[start..i]);
                start = i + 1;
            }
            b'\r' => {
                out.push(&data[start..i]);
                if data.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&data[start..]);
    out
}

fuzz_target!(|data: &[u8]| {
    let bytes = reduce_to_json(data, Framing::Ndjson);

    // The same lines, parsed by serde_json and folded by the owned reducer.
    let mut chunks: Vec<common::OwnedChunk> = Vec::new();
    let mut serde_refused_a_js_value = false;
    let mut owned_ok = true;
    for line in lines(data) {
        if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            continue;
        }
        match serde_json::from_slice::<serde_json::Value>(line) {
            Ok(value) if value.is_object() => match event_from_json(&value) {
                Ok(event) => {
                    let Ok(()) = append_event(&mut chunks, event);
                }
                Err(_) => {
                    owned_ok = false;
                    break;
                }
            },
            Ok(_) => {
                owned_ok = false;
                break;
            }
            Err(e) => {
                serde_refused_a_js_value = common::serde_only_limit(&e);
                owned_ok = false;
                break;
            }
        }
    }

    match (&bytes, owned_ok) {
        (Ok(json), true) => {
            assert!(json.is_ascii(), "the output is ASCII");
            if let Ok(parsed) = serde_json::from_str::<serde_json::Value>(json) {
                assert_eq!(
                    common::as_js(&parsed),
                    common::as_js(&common::chunks_value(&chunks)),
                    "bytes path and owned reducer disagree on {:?}",
                    String::from_utf8_lossy(data)
                );
            }
        }
        (Err(e), true) => panic!("the bytes path refused what serde_json accepts: {e}"),
        (Ok(_), false) => assert!(
            serde_refused_a_js_value,
            "the bytes path accepted what serde_json refuses: {:?}",
            String::from_utf8_lossy(data)
        ),
        (Err(_), false) => {}
    }
});
