//! Solar Network thoughts and stream events: never a panic; a thought that reads, written
//! and read again, gives the same message; a thought reconciled with its own chunks has no
//! difference.

#![no_main]

use agent_chunks::bytes::value::{self, Json};
use agent_chunks::formats::sn::thought as sn;
use agent_chunks::reading::model_json::chunk_json;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(json) = value::parse(data) else {
        return;
    };
    let thoughts = match &json {
        Json::Array(items) => items.clone(),
        other => vec![other.clone()],
    };
    for thought in &thoughts {
        let _ = sn::stream_events(thought);
        let Ok(message) = sn::read_thought(thought) else {
            continue;
        };
        let chunks: Vec<Json> = message.chunks.iter().map(chunk_json).collect();
        let (reconciled, difference) = sn::reconcile(&chunks, thought).expect("the thought read once");
        assert_eq!(reconciled, message);
        assert_eq!(difference, None, "a thought differs from its own chunks");
        if let Ok(written) = sn::write_thought(&message, None) {
            let again = sn::read_thought(&written).expect("a written thought reads back");
            assert_eq!(again.chunks, message.chunks, "write then read changed the chunks");
        }
    }
});
