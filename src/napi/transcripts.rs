//! A whole session (JSONL text, a Buffer, or its lines already parsed) as messages, by
//! the rules `loadHistory` reads its format with: what the formats' `toMessages` faces
//! share.

use napi::bindgen_prelude::{Env, Result, Unknown};
use napi::JsValue;

use crate::bytes::value::Json;
use crate::history::{self, HistoryFormat, Message};
use crate::reading::format::{Input, ReadOptions, View};
use crate::reading::line_tree::ReadLines;
use crate::reading::model_json::FormatMessage;

use super::json_bridge::{give_messages, history, Bridge, History};

/// Reads a session given whole (JSONL text, a Buffer, or its lines already parsed) as its
/// format's transcript: text by the format's history reader, parsed lines by `items`.
pub(in crate::napi) fn read_transcript(
    env: &Env,
    name: &'static str,
    value: Unknown,
    format: HistoryFormat,
    items: fn(&[Json]) -> std::result::Result<Vec<FormatMessage>, String>,
) -> Result<Unknown<'static>> {
    let b = Bridge::new(env, name)?;
    let mut messages: Vec<FormatMessage> = Vec::new();

    match history(&b, value.raw(), "history", true)? {
        History::Text(text) => {
            // The format's own reader gives the whole transcript.
            let options = ReadOptions {
                view: View::Transcript,
                ..ReadOptions::default()
            };
            history::read_with(
                Input::Bytes(text.bytes()),
                format,
                &options,
                &mut |message| match message {
                    Message::Format(message) => {
                        messages.push(message);
                        true
                    }
                    // Not asked for (`settle`).
                    Message::Settled { .. } => true,
                },
            )
            .map_err(|e| b.type_error(e))?;
        }
        History::Items(parsed) => {
            messages = items(&parsed).map_err(|e| b.type_error(e))?;
        }
    }
    give_messages(&b, env, &messages)
}

/// Every message of a transcript's lines already parsed (numbered from 1), read whole.
pub(in crate::napi) fn read_all(items: &[Json], read: ReadLines) -> Vec<FormatMessage> {
    let numbers: Vec<usize> = (1..=items.len()).collect();
    let mut messages = Vec::new();
    read(items, &numbers, View::Transcript, &mut |message| {
        messages.push(message);
        true
    });
    messages
}
