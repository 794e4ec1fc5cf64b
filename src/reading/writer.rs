//! A live conversation served in a format as it grows: a writer that, each time it is
//! asked, writes what the messages gained since it last wrote, in the protocol a frontend
//! reads (a row's [`Serve`] face). Its state is kept in the conversation's resume state,
//! under the face's key, so that a conversation taken over by another process goes on
//! writing where this one stopped.

use crate::bytes::value::Json;
use crate::reading::fold::{Folded, Rewrite};

/// A writer of one conversation.
pub trait LiveWriter {
    /// What the messages gained since the last call (`ended`: the stream ended, every
    /// message is finished), given the chunks changed since then that it asked for
    /// ([`LiveWriter::wants`]).
    fn write(&mut self, messages: &Folded, ended: bool, touched: &[(usize, Option<usize>)]) -> Vec<Json>;

    /// Whether a change to chunk `chunk` of message `message` (`None`: its id) is for
    /// [`LiveWriter::write`] to look at (what it has written already).
    fn wants(&self, messages: &Folded, message: usize, chunk: Option<usize>) -> bool;

    /// A message was replaced whole by what its stream said last.
    fn rewritten(&mut self, rewrite: &Rewrite, messages: &Folded);

    /// The messages were replaced whole (see [`Folded::replace_messages`]): what was
    /// written is to be measured against `messages` anew.
    fn reset(&mut self, messages: &Folded);

    /// Forgets what was written of the response being written, so that the next write
    /// sends it again from its start: for a client reconnecting to it.
    fn replay(&mut self, messages: &Folded);

    /// What was written, as plain JSON, with the chunks changed since the last write.
    fn save(&self, messages: &Folded, touched: &[(usize, Option<usize>)]) -> Json;

    /// Whether the protocol's end marker is to be written now: once, after the end.
    fn mark_end(&mut self) -> bool;

    /// More of the stream was pushed. After an end, that begins the next response of the
    /// conversation (a chat's next request), which ends with its own end marker whatever
    /// it writes before it: a writer that marks its ends forgets the last one here.
    fn pushed(&mut self) {}

    /// Takes the options a call to write was given (what names the stream it writes,
    /// for a protocol whose stream needs names); the error names the option, after
    /// `options`. A writer that takes none refuses any.
    fn configure(&mut self, options: &Json) -> Result<(), String> {
        match options {
            Json::Undefined | Json::Null => Ok(()),
            _ => Err(" are not taken by this writer".into()),
        }
    }
}

/// A writer restored from its saved state, and the chunks changed since it last wrote.
pub type Restored = (Box<dyn LiveWriter>, Vec<(usize, Option<usize>)>);

/// A row's face for serving live conversations.
#[derive(Clone, Copy)]
pub struct Serve {
    /// The key of the writer's state in a conversation's resume state.
    pub key: &'static str,
    /// A writer of a conversation that goes on from `messages` (none for a new one), with
    /// no state of what was written: what it makes of the messages it was given.
    pub new: fn(&Folded) -> Box<dyn LiveWriter>,
    /// A writer from its saved state, checked against the messages it goes with, and the
    /// chunks changed since it last wrote; the error names the field.
    pub restore: fn(&Json, &Folded) -> Result<Restored, String>,
}
