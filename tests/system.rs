//! System-notice routing on Rust-owned messages.

use agent_chunks::{random_uuid, route_system_event, ChatMessage, Chunk, MessageRole, SystemChunkKind};
use std::convert::Infallible;

fn message(id: &str, role: MessageRole) -> ChatMessage {
    ChatMessage {
        id: id.into(),
        role,
        chunks: Vec::new(),
    }
}

#[test]
fn appends_to_a_trailing_system_message_without_asking_for_an_id() {
    let mut messages = vec![message("u", MessageRole::User), message("s", MessageRole::System)];
    let id = route_system_event(
        &mut messages,
        (SystemChunkKind::Notice, "hi".into()),
        || -> Result<String, Infallible> { panic!("no id needed") },
    )
    .unwrap();
    assert_eq!(id, "s");
    assert_eq!(
        messages[1].chunks,
        vec![Chunk::System {
            kind: SystemChunkKind::Notice,
            text: "hi".into()
        }]
    );
}

#[test]
fn creates_a_system_message_otherwise_asking_once() {
    let mut messages = vec![message("a", MessageRole::Assistant)];
    let mut asked = 0;
    let id = route_system_event(&mut messages, (SystemChunkKind::Cancelled, "stop".into()), || {
        asked += 1;
        Ok::<_, Infallible>("new".to_string())
    })
    .unwrap();
    assert_eq!((id.as_str(), asked, messages.len()), ("new", 1, 2));
    assert_eq!(messages[1].role, MessageRole::System);

    let mut empty: Vec<ChatMessage> = Vec::new();
    let id = route_system_event(&mut empty, (SystemChunkKind::Notice, "x".into()), || {
        Ok::<_, Infallible>("first".into())
    })
    .unwrap();
    assert_eq!((id.as_str(), empty.len()), ("first", 1));
}

#[test]
fn random_ids_are_v4_uuids() {
    let a = random_uuid().unwrap();
    let b = random_uuid().unwrap();
    assert_ne!(a, b);
    let groups: Vec<&str> = a.split('-').collect();
    assert_eq!(
        groups.iter().map(|g| g.len()).collect::<Vec<_>>(),
        [8, 4, 4, 4, 12]
    );
    assert!(groups[2].starts_with('4'));
    assert!(matches!(groups[3].chars().next(), Some('8' | '9' | 'a' | 'b')));
    assert!(a
        .chars()
        .all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
}
