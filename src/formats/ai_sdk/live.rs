//! A UI message stream folded live.

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::ai_sdk::chunks::{is_agent_event_type, is_ui_chunk_type, StreamState};
use crate::model::MessageRole;
use crate::reading::check::{FormatResult, Skips};
use crate::reading::fold::{Folded as Messages, LiveFold};

/// A UI message stream folded live: each `start` chunk begins a message named by its
/// `messageId`.
#[derive(Debug, Default)]
pub struct UiStream {
    state: StreamState,
    /// The `messageId` of the open message: a `start` with the same id continues it.
    open_id: Option<String>,
}

impl UiStream {
    /// [`LiveFold::save`], also for the `events` stream when it is a UI stream.
    pub fn save_state(&self) -> Json {
        let mut state = self.state.save();
        if let Json::Object(fields) = &mut state {
            fields.push((
                Wtf8::from("openId"),
                self.open_id.as_deref().map_or(Json::Null, Json::string),
            ));
        }
        state
    }

    pub fn restore_state(state: &Json) -> Result<Self, String> {
        crate::reading::resume::object(state)?;
        Ok(UiStream {
            state: StreamState::restore(state)?,
            open_id: crate::reading::resume::optional_text(state, "openId")?
                .map(|id| id.to_string_lossy().into_owned()),
        })
    }
}

impl LiveFold for UiStream {
    fn save(&self) -> Json {
        self.save_state()
    }

    fn restore(&mut self, state: &Json, _messages: &Messages) -> Result<(), String> {
        *self = Self::restore_state(state)?;
        Ok(())
    }

    fn push(&mut self, value: Json, line: usize, out: &mut Messages, skips: &mut Skips) -> FormatResult<()> {
        if !matches!(value, Json::Object(_)) {
            return skips.skip(line, "a value that is not an object");
        }
        let Some(tag) = value.get("type").and_then(Json::as_str) else {
            return skips.skip(line, "a chunk without a \"type\"");
        };
        let bytes = tag.as_bytes();
        if !is_ui_chunk_type(bytes) && !is_agent_event_type(bytes) {
            return skips.skip(line, format_args!("unknown chunk type \"{tag}\""));
        }
        // The SDK refuses a tool's output for a call its message does not hold; its name and
        // input are nowhere, so there is no call to show it on.
        if matches!(
            bytes,
            b"tool-output-available" | b"tool-output-error" | b"tool-output-denied"
        ) {
            if let Some(id) = value.get("toolCallId").and_then(Json::as_str) {
                if !out.has_call(id) {
                    return skips.skip(line, format_args!("{tag} for a call never announced"));
                }
            }
        }
        if *tag == "start" {
            let id = match value.get("messageId") {
                Some(Json::String(id)) => Some(id.to_string_lossy().into_owned()),
                _ => None,
            };
            if id.is_none() || id != self.open_id || out.open_role().is_none() {
                out.begin(MessageRole::Assistant, id.clone());
                self.state.start_message();
                self.open_id = id;
            }
            return Ok(());
        }
        let len = out.open_len();
        for step in self.state.ui_chunk(&value, len)? {
            out.fold_open(step);
        }
        Ok(())
    }
}
