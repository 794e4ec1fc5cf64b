//! NDJSON lines through the bytes path against serde_json and the owned reducer: the same
//! lines must be accepted and rejected, and the accepted ones must give the same chunks.

#![no_main]

#[path = "common.rs"]
mod common;

use agent_chunks::append_event;
use agent_chunks::bytes::{reduce_to_json, Framing};
use agent_chunks::json::event_from_json;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let bytes = reduce_to_json(data, Framing::Ndjson);

    // The same lines, parsed by serde_json and folded by the owned reducer.
    let mut chunks: Vec<common::OwnedChunk> = Vec::new();
    let mut serde_refused_a_js_value = false;
    let mut owned_ok = true;
    for line in data.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
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
