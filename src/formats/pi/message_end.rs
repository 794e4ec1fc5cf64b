//! A pi assistant message's `message_end` against what its `message_update`s built.
//!
//! The end holds the whole message, and it is what pi shows: its screen redraws the
//! streamed message from it and its session file stores it. So a streamed message ends as
//! its end holds it ([`target`]), and what the updates built that the end does not hold
//! — not pieces lost, but something else — is thrown away and counted ([`covers`]).

use std::collections::{HashMap, HashSet};

use crate::model::{Chunk, ToolCallEntry};

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::reading::model_json::FormatChunk;

/// The kind counted for a message_end that throws away some of what its updates built.
pub const DIFFERS: &str =
    "a message_end that differs from what its updates built (the end's message is kept)";

/// Whether `target` holds everything `streamed` shows, in order: each kind of text a
/// subsequence of the target's (updates lost take pieces out, never put any in), each
/// seal and call (by id, name and arguments) there, every other chunk there.
pub fn covers(target: &[FormatChunk], streamed: &[FormatChunk]) -> bool {
    fn texts(chunks: &[FormatChunk], thinking: bool) -> Vec<u8> {
        let mut all = Vec::new();
        for chunk in chunks {
            match chunk {
                Chunk::Text { text } if !thinking => all.extend_from_slice(text.as_bytes()),
                Chunk::Thinking { text, .. } if thinking => all.extend_from_slice(text.as_bytes()),
                _ => {}
            }
        }
        all
    }
    fn within(part: &[u8], whole: &[u8]) -> bool {
        let mut rest = whole.iter();
        part.iter().all(|b| rest.any(|c| c == b))
    }
    let calls = |chunks: &[FormatChunk]| -> Vec<(Wtf8, Wtf8, Json)> {
        chunks
            .iter()
            .flat_map(|c| match c {
                Chunk::ToolBatch { calls } => calls.as_slice(),
                _ => &[],
            })
            .map(|call| (call.id.clone(), call.name.clone(), call.arguments.clone()))
            .collect()
    };
    let target_calls = calls(target);
    streamed.iter().all(|chunk| match chunk {
        Chunk::Text { .. } | Chunk::ToolBatch { .. } => true,
        Chunk::Thinking { metadata, .. } => metadata.as_ref().is_none_or(|seal| {
            target
                .iter()
                .any(|t| matches!(t, Chunk::Thinking { metadata: Some(m), .. } if m == seal))
        }),
        other => target.contains(other),
    }) && calls(streamed).iter().all(|call| target_calls.contains(call))
        && within(&texts(streamed, false), &texts(target, false))
        && within(&texts(streamed, true), &texts(target, true))
}

/// The chunks of a streamed message as its end holds them: each call that is already
/// in the message keeps its entry (its result, its output), with the end's name and
/// arguments; a call an execution made elsewhere stays there; a call an execution made
/// in this message that the end does not hold stays in it, after the end's content.
pub fn target(
    whole: Vec<FormatChunk>,
    streamed: &[FormatChunk],
    executed: &HashSet<Wtf8>,
) -> Vec<FormatChunk> {
    let mut have: HashMap<&Wtf8, &ToolCallEntry<Wtf8, Json>> = HashMap::new();
    for chunk in streamed {
        if let Chunk::ToolBatch { calls } = chunk {
            have.extend(calls.iter().map(|call| (&call.id, call)));
        }
    }
    let mut held = HashSet::new();
    let mut target = Vec::with_capacity(whole.len() + 1);
    for chunk in whole {
        let Chunk::ToolBatch { calls } = chunk else {
            target.push(chunk);
            continue;
        };
        let calls: Vec<_> = calls
            .into_iter()
            .filter_map(|call| match have.get(&call.id) {
                Some(entry) => {
                    held.insert(call.id.clone());
                    Some(ToolCallEntry {
                        name: call.name,
                        arguments: call.arguments,
                        ..(*entry).clone()
                    })
                }
                None if executed.contains(&call.id) => None,
                None => Some(call),
            })
            .collect();
        if !calls.is_empty() {
            target.push(Chunk::ToolBatch { calls });
        }
    }
    let made: Vec<_> = have
        .values()
        .filter(|call| executed.contains(&call.id) && !held.contains(&call.id))
        .map(|call| (*call).clone())
        .collect();
    if !made.is_empty() {
        // In the order the executions made them, before the message's error.
        let mut made = made;
        let order = |id: &Wtf8| {
            streamed
                .iter()
                .flat_map(|c| match c {
                    Chunk::ToolBatch { calls } => calls.as_slice(),
                    _ => &[],
                })
                .position(|call| &call.id == id)
        };
        made.sort_by_key(|call| order(&call.id));
        let at = match target.last() {
            Some(Chunk::Error { .. }) => target.len() - 1,
            _ => target.len(),
        };
        match at.checked_sub(1).map(|j| &mut target[j]) {
            Some(Chunk::ToolBatch { calls }) => calls.extend(made),
            _ => target.insert(at, Chunk::ToolBatch { calls: made }),
        }
    }
    target
}
