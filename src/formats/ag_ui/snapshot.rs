//! `MESSAGES_SNAPSHOT`: the backend restating the conversation, read in the snapshot's
//! order with one message per id.
//!
//! `@ag-ui/client` 1.0 merges a snapshot into what it holds: the messages it has keep
//! their places (replaced by the snapshot's copy), the others are appended at the end, a
//! repeated id twice (ag-ui-protocol/ag-ui#2707, #2767). A tool result the backend re-keyed
//! then lands after the answer, and no later snapshot can move it back. Here the
//! snapshot's messages are taken in its order, one per id (the last copy's content at
//! the first copy's place), each result on its call; the messages the client keeps
//! although the snapshot leaves them out (reasoning when the snapshot holds none,
//! activities when it holds none of theirs) are kept before the first message that
//! followed them and is still there. Where the client's order already is the snapshot's
//! — a snapshot restating what streamed — the two agree.

use std::collections::{HashMap, HashSet};

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::ag_ui::events;
use crate::formats::ag_ui::messages::{self, ReadResult, ACTIVITY_TYPES};
use crate::formats::ag_ui::pieces::Kind;
use crate::formats::ag_ui::places::Places;
use crate::reading::check::{wrong, FormatResult};
use crate::reading::fold::{owned_message, Folded};
use crate::reading::model_json::FormatMessage;

/// A snapshot read, before it replaces the messages.
#[derive(Debug)]
pub struct Snapshot {
    pub messages: Vec<FormatMessage>,
    /// What the chunks do not hold, by kind.
    pub left: Vec<&'static str>,
    /// Results for calls no message of the snapshot holds.
    pub orphans: Vec<ReadResult>,
    /// Results that replaced another result for the same call.
    pub replaced: usize,
}

/// Whether the snapshot owns the activities of agent-chunks: it holds activities, or its
/// `metadata["@ag-ui/client"].authoritativeActivityTypes` says so (`null`: every type).
fn owns_activities(event: &Json, list: &[Json]) -> bool {
    let declared = events::metadata(event)
        .and_then(|m| m.get("@ag-ui/client"))
        .and_then(|m| m.get("authoritativeActivityTypes"));
    match declared {
        Some(Json::Null) => true,
        Some(Json::Array(types)) => types.iter().any(|t| {
            t.as_str()
                .is_some_and(|t| ACTIVITY_TYPES.iter().any(|a| *t == *a))
        }),
        _ => list.iter().any(|m| {
            events::get(m, "role")
                .and_then(Json::as_str)
                .is_some_and(|r| *r == "activity")
        }),
    }
}

/// Reads the snapshot `event` against the messages it restates.
pub fn read(event: &Json, messages: &Folded, places: &Places) -> FormatResult<Snapshot> {
    let list = match events::find(event, "messages") {
        Some(Json::Array(list)) => list,
        other => return Err(wrong("messages".into(), "an array", other)),
    };
    // One per id: at the first copy's place, the last copy.
    let mut at: HashMap<&Wtf8, usize> = HashMap::new();
    let mut deduped: Vec<&Json> = Vec::with_capacity(list.len());
    for message in list {
        match events::get(message, "id").and_then(Json::as_str) {
            Some(id) => match at.get(id) {
                Some(&i) => deduped[i] = message,
                None => {
                    at.insert(id, deduped.len());
                    deduped.push(message);
                }
            },
            None => deduped.push(message),
        }
    }
    let deduped: Vec<Json> = deduped.into_iter().cloned().collect();
    let read = messages::read_all(&deduped, "messages")?;
    let has_reasoning = list.iter().any(|m| {
        events::get(m, "role")
            .and_then(Json::as_str)
            .is_some_and(|r| *r == "reasoning")
    });
    let owns_activities = owns_activities(event, list);
    // The messages the client keeps although the snapshot leaves them out.
    let listed: HashSet<&str> = read.messages.iter().map(|m| m.id.as_str()).collect();
    let survivors = &read.messages;
    let mut before: HashMap<usize, Vec<FormatMessage>> = HashMap::new();
    let mut tail = Vec::new();
    for m in 0..messages.len() {
        let (id, _, _) = messages.message(m);
        if listed.contains(id) {
            continue;
        }
        let pieces = places.pieces(m);
        let client_only = (pieces.iter().all(|p| p.kind == Kind::Reasoning) && !has_reasoning)
            || (pieces.iter().all(|p| p.kind == Kind::Activity) && !owns_activities);
        if !client_only {
            continue;
        }
        // Before the first message that followed it and is still there.
        let after = (m + 1..messages.len())
            .map(|n| messages.message(n).0)
            .find(|n| listed.contains(n))
            .and_then(|n| survivors.iter().position(|r| r.id == n));
        let message = owned_message(messages, m);
        match after {
            Some(at) => before.entry(at).or_default().push(message),
            None => tail.push(message),
        }
    }
    let mut new = Vec::with_capacity(survivors.len() + tail.len());
    for (i, message) in read.messages.into_iter().enumerate() {
        new.extend(before.remove(&i).unwrap_or_default());
        new.push(message);
    }
    new.extend(tail);
    Ok(Snapshot {
        messages: new,
        left: read.left,
        orphans: read.unplaced.into_iter().map(|(_, r)| r).collect(),
        replaced: read.replaced,
    })
}
