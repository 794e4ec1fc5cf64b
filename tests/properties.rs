//! Properties of the rules over arbitrary event sequences (proptest): the invariants the
//! open/close table promises, the indexed store against the plain one, and the bytes path
//! against the owned reducer.

use agent_chunks::owned::IndexedChunks;
use agent_chunks::{append_event, AgentEvent, Chunk, LifecycleKind, ShellStream};
use proptest::prelude::*;
use serde_json::{json, Value};

type Event = AgentEvent<String, Value>;
type Chunks = Vec<Chunk<String, Value>>;

/// Texts from a small alphabet (so deltas join and ids repeat), with characters beyond
/// the BMP, escapes JSON needs and a NUL.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!["a", "bc", "😀", "é", "\"", "\\", "\n", "\u{0}", " ", "t1"]),
        0..4,
    )
    .prop_map(|parts| parts.concat())
}

fn id() -> impl Strategy<Value = String> {
    (0..5u8).prop_map(|n| format!("t{n}"))
}

fn payload() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        text().prop_map(Value::String),
        (text(), text()).prop_map(|(k, v)| json!({ k: v, "__proto__": { "x": 1 }, "n": [1.5, -0.0] })),
    ]
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        4 => text().prop_map(|delta| AgentEvent::TextDelta { delta }),
        3 => text().prop_map(|delta| AgentEvent::ReasoningDelta { delta }),
        2 => prop::option::of(payload()).prop_map(|metadata| AgentEvent::ReasoningEnd { metadata }),
        3 => (id(), text(), payload()).prop_map(|(id, name, arguments)| AgentEvent::ToolCall { id, name, arguments }),
        3 => (id(), payload(), payload()).prop_map(|(tool_call_id, result, is_error)| AgentEvent::ToolResult {
            tool_call_id,
            result,
            is_error
        }),
        2 => (prop::sample::select(vec![ShellStream::Stdout, ShellStream::Stderr, ShellStream::Other]), text())
            .prop_map(|(stream, data)| AgentEvent::ShellOutput { stream, data }),
        1 => (text(), prop::option::of(100..600u16)).prop_map(|(error, code)| AgentEvent::Error {
            error,
            status_code: code.map(f64::from)
        }),
        1 => text().prop_map(|message| AgentEvent::Notice { message }),
        1 => (text(), text()).prop_map(|(model_id, key_id)| AgentEvent::ModelChanged { model_id, key_id }),
        1 => Just(AgentEvent::ConfigReload),
        1 => Just(AgentEvent::Lifecycle(LifecycleKind::Usage)),
        1 => Just(AgentEvent::Unknown),
    ]
}

fn events() -> impl Strategy<Value = Vec<Event>> {
    prop::collection::vec(event(), 0..60)
}

fn fold(events: &[Event]) -> Chunks {
    let mut chunks = Vec::new();
    for event in events {
        let Ok(()) = append_event(&mut chunks, event.clone());
    }
    chunks
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The index changes how fast the rules find things, never what they find: from an
    /// empty list, and from a list indexed after any number of events.
    #[test]
    fn the_indexed_store_gives_the_plain_stores_chunks(events in events(), split in 0..60usize) {
        let split = split.min(events.len());
        let mut indexed = IndexedChunks::new();
        let mut later = IndexedChunks::from(fold(&events[..split]));
        for event in &events {
            let Ok(()) = append_event(&mut indexed, event.clone());
        }
        for event in &events[split..] {
            let Ok(()) = append_event(&mut later, event.clone());
        }
        let plain = fold(&events);
        prop_assert_eq!(indexed.chunks(), &plain[..]);
        prop_assert_eq!(later.chunks(), &plain[..]);
    }
}
