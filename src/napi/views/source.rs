//! The format adapters' [`Source`] over JavaScript values: handles in, handles out.

use crate::reading::source::{Invalid, Key, Source, ValueType};
use crate::views::webui::UnknownMessageType;

use super::super::raw::js::{Interned, Js, JsError, JsResult, Value};

/// Why an adapter call failed, before it becomes a JavaScript exception.
#[derive(Debug)]
pub enum AdaptError {
    Js(JsError),
    /// `Unknown message type: ${type}`: a plain `Error`, as the seed throws it.
    UnknownMessageType(Value),
}

impl From<JsError> for AdaptError {
    fn from(e: JsError) -> Self {
        AdaptError::Js(e)
    }
}

impl From<Invalid> for AdaptError {
    fn from(e: Invalid) -> Self {
        AdaptError::Js(JsError::Type(e.to_string()))
    }
}

impl From<UnknownMessageType<Value>> for AdaptError {
    fn from(e: UnknownMessageType<Value>) -> Self {
        AdaptError::UnknownMessageType(e.0)
    }
}

impl AdaptError {
    /// The exception to throw. The unknown-type message is built by V8 (`+` on the
    /// caller's string), so it holds the type exactly as given.
    pub fn into_js(self, js: &Js) -> JsError {
        match self {
            AdaptError::Js(e) => e,
            AdaptError::UnknownMessageType(ty) => {
                let build = || -> JsResult<Value> {
                    let prefix: Vec<u16> = "Unknown message type: ".encode_utf16().collect();
                    let message = js.plus(js.create_utf16(&prefix)?, ty)?;
                    js.error(message)
                };
                match build() {
                    Ok(error) => JsError::Throw(error),
                    Err(e) => e,
                }
            }
        }
    }
}

pub type AdaptResult<T> = Result<T, AdaptError>;

/// [`Source`] over the values of the current call.
pub struct JsSource<'a, 's> {
    pub js: &'a Js<'s>,
}

fn interned(key: Key) -> Interned {
    match key {
        Key::Arguments => Interned::Arguments,
        Key::Calls => Interned::Calls,
        Key::Chunks => Interned::Chunks,
        Key::Content => Interned::Content,
        Key::Data => Interned::Data,
        Key::Id => Interned::Id,
        Key::IsError => Interned::IsError,
        Key::Kind => Interned::Kind,
        Key::Locations => Interned::Locations,
        Key::Message => Interned::Message,
        Key::Name => Interned::ToolName,
        Key::Now => Interned::Now,
        Key::Parts => Interned::Parts,
        Key::RawInput => Interned::RawInput,
        Key::RawOutput => Interned::RawOutput,
        Key::Result => Interned::Result,
        Key::Role => Interned::Role,
        Key::SessionUpdate => Interned::SessionUpdate,
        Key::Status => Interned::Status,
        Key::Text => Interned::Text,
        Key::Timestamp => Interned::Timestamp,
        Key::Title => Interned::Title,
        Key::ToolCall => Interned::ToolCall,
        Key::ToolCallId => Interned::ToolCallId,
        Key::Type => Interned::Type,
        Key::Update => Interned::Update,
        Key::Uuid => Interned::Uuid,
        Key::DisplayText => Interned::DisplayText,
        Key::Entries => Interned::Entries,
        Key::HookContext => Interned::HookContext,
        Key::SystemPayload => Interned::SystemPayload,
        Key::MessageId => Interned::MessageId,
        Key::Jsonrpc => Interned::Jsonrpc,
        Key::Method => Interned::Method,
        Key::Params => Interned::Params,
    }
}

impl Source for JsSource<'_, '_> {
    type Value = Value;
    type Error = AdaptError;

    fn get(&self, object: Value, key: Key) -> AdaptResult<Value> {
        Ok(self.js.get(object, interned(key))?)
    }

    fn has(&self, object: Value, key: Key) -> AdaptResult<bool> {
        Ok(self.js.has(object, interned(key))?)
    }

    fn value_type(&self, value: Value) -> AdaptResult<ValueType> {
        Ok(self.js.value_type(value)?)
    }

    fn tag<'b>(&self, value: Value, buf: &'b mut [u8; 32]) -> AdaptResult<Option<&'b [u8]>> {
        Ok(self.js.tag(value, buf)?)
    }

    fn units(&self, value: Value) -> AdaptResult<Vec<u16>> {
        let mut units = Vec::new();
        self.js.utf16_into(value, &mut units)?;
        Ok(units)
    }

    fn array_len(&self, value: Value) -> AdaptResult<Option<usize>> {
        Ok(self.js.array_len(value)?)
    }

    fn element(&self, array: Value, index: usize) -> AdaptResult<Value> {
        Ok(self.js.element(array, index)?)
    }

    fn truthy(&self, value: Value) -> AdaptResult<bool> {
        Ok(self.js.truthy(value)?)
    }

    fn number(&self, value: Value) -> AdaptResult<f64> {
        Ok(self.js.number(value)?)
    }

    fn time(&self, value: Value) -> AdaptResult<f64> {
        Ok(self.js.time(value)?)
    }
}
