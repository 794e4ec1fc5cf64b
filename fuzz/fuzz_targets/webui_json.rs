//! The webui adapters, ACP and the timeline over arbitrary JSON: errors, never panics.

#![no_main]

use agent_chunks::bytes::value;
use agent_chunks::formats::acp::updates::{read_update, to_agent_events, webview_messages};
use agent_chunks::formats::chatviewer::adapter::adapt_jsonl_messages;
use agent_chunks::reading::model_json::messages_from_json;
use agent_chunks::reading::source::{Reader, Source, Step};
use agent_chunks::views::serde_source::JsonSource;
use agent_chunks::views::timeline::{build_timeline, sources_from_chunks, TimelineOptions};
use agent_chunks::views::unified::to_unified_messages;
use agent_chunks::views::webui::adapt_acp_messages;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Dates as the tests read them: numbers as they are, anything else invalid.
fn time(value: &Value) -> f64 {
    value.as_f64().unwrap_or(f64::NAN)
}

fuzz_target!(|data: &[u8]| {
    if let Ok(input) = serde_json::from_slice::<Value>(data) {
        let source = JsonSource::new(time);
        let _ = adapt_acp_messages(&&source, Some(&input));
        let _ = adapt_jsonl_messages(&&source, Some(&input));
        let _ = to_unified_messages(&&source, Some(&input));
        let reader = Reader {
            source: &&source,
            root: "updates",
        };
        let updates: Vec<&Value> = match &input {
            Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        let mut decoded = Vec::new();
        for (index, update) in updates.into_iter().enumerate() {
            if let Ok(update) = read_update(&reader, Some(update), &[Step::Index(index)]) {
                let _ = to_agent_events(&update);
                decoded.push(update);
            }
        }
        let _ = webview_messages(&decoded, |id| (&source).units(id));
    }
    // The chunk model read from JSON, and its timeline.
    if let Ok(json) = value::parse(data) {
        if let Ok(messages) = messages_from_json(&json, "messages") {
            for message in &messages {
                let sources = sources_from_chunks(&message.chunks);
                for finished in [false, true] {
                    let groups = build_timeline(
                        sources.clone(),
                        message.chunks.len(),
                        TimelineOptions { finished },
                    );
                    let items: usize = groups.iter().map(|g| 1 + g.children.len()).sum();
                    assert_eq!(items, sources.len(), "every source is one timeline item");
                }
            }
        }
    }
});
