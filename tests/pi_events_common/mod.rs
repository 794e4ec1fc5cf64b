//! What the pi-events tests share: frames as NDJSON, and a recording read live, checked
//! against the recording read whole after every line.

use agent_chunks::formats::find;
use agent_chunks::live::conversation::Conversation;
use agent_chunks::live::fold_stream;
use agent_chunks::reading::fold::owned_messages;
use agent_chunks::reading::model_json::FormatMessage;

pub fn ndjson(frames: &[&str]) -> Vec<u8> {
    frames
        .iter()
        .flat_map(|f| [f.as_bytes(), b"\n"].concat())
        .collect()
}

/// The messages of `frames`, checked live against the recording read whole after every
/// line, with nothing skipped (the whole is read strictly).
pub fn read(frames: &[&str]) -> Vec<FormatMessage> {
    let format = find("pi-events").unwrap();
    let mut live = Conversation::new(format, Default::default()).unwrap();
    for (i, frame) in frames.iter().enumerate() {
        live.push_bytes(&ndjson(&[frame])).unwrap();
        let whole = fold_stream(format, &ndjson(&frames[..=i]), true).unwrap();
        assert_eq!(
            owned_messages(live.messages()),
            whole.messages,
            "after line {}",
            i + 1
        );
    }
    owned_messages(live.messages())
}
