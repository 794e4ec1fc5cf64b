//! OpenCode's live streams, folded into the session they are about ([`Session`]):
//!
//! - [`RunStream`]: `opencode run --format json`, a line per finished part
//!   (`{type, timestamp, sessionID, part}`: `step_start`, `reasoning` (with `--thinking`
//!   only), `tool_use` (a call's final state), `text`, `step_finish`), or `{type: "error",
//!   error}`. It carries no user message and no message info: every part is the
//!   assistant's, grouped by its `messageID`.
//! - [`EventStream`]: the server's `GET /event` (`{id, type, properties}`), its `GET
//!   /global/event` (the same in `{directory, project, payload}`) and Kilo's `GET
//!   /api/event` (`{id, type, durable?, location, data}`). `message.updated` carries a
//!   message's info, `message.part.updated` a whole part (put in place of the part with
//!   its id; the `delta` older versions put beside it is already in the part),
//!   `message.part.delta` a piece of a part's field, `message.removed` and
//!   `message.part.removed` what went. `sync` events (`/global/event`'s and Kilo's
//!   `/event`'s copy of every durable event, `{type: "sync", syncEvent}`) are counted and
//!   not read again; the rest (session status, heartbeats, plugins, …) is counted.

use crate::bytes::value::{str_of, Json};
use crate::bytes::wtf8::Wtf8;
use crate::reading::check::{FormatError, FormatResult, Skips};
use crate::reading::fold::{Folded, LiveFold};

use super::session::Session;

/// A field of a known kind of event that cannot be read: skipped and counted, naming the
/// field (refused under strict).
fn unreadable(skips: &mut Skips, line: usize, kind: &str, error: FormatError) -> FormatResult<()> {
    if skips.strict {
        return Err(error.at_line(line));
    }
    skips.skip(line, format_args!("{kind}: {error}"))
}

fn save(session: &Session) -> Json {
    session.save()
}

/// `opencode run --format json`.
#[derive(Debug, Default)]
pub struct RunStream {
    session: Session,
}

/// The line types of `opencode run --format json`.
pub const RUN_TYPES: &[&[u8]] = &[
    b"step_start",
    b"step_finish",
    b"text",
    b"reasoning",
    b"tool_use",
    b"error",
];

impl LiveFold for RunStream {
    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let Some(kind) = str_of(&value, "type").cloned() else {
            return skips.skip(line, "a line without a \"type\"");
        };
        if !RUN_TYPES.contains(&kind.as_bytes()) {
            return skips.skip(line, format_args!("unknown line type \"{kind}\""));
        }
        if !self.session.admit(str_of(&value, "sessionID"), skips) {
            return Ok(());
        }
        let mut value = value;
        if kind == "error" {
            let error = value.take("error").unwrap_or(Json::Undefined);
            if !matches!(error, Json::Object(_)) {
                return unreadable(
                    skips,
                    line,
                    "error",
                    FormatError::new("error", "must be an object"),
                );
            }
            self.session.error(error, out);
            return Ok(());
        }
        let part = match value.take("part") {
            Some(part @ Json::Object(_)) => part,
            other => {
                let error = crate::reading::check::wrong("part".into(), "an object", other.as_ref());
                return unreadable(skips, line, &kind.to_string(), error);
            }
        };
        match self.session.update_part(part, out, skips) {
            Ok(()) => Ok(()),
            Err(error) => unreadable(skips, line, &kind.to_string(), error),
        }
    }

    fn resume(&mut self, messages: &Folded) {
        self.session.resume(messages);
    }

    fn save(&self) -> Json {
        save(&self.session)
    }

    fn restore(&mut self, state: &Json, messages: &Folded) -> Result<(), String> {
        self.session = Session::restore(state, messages, false)?;
        Ok(())
    }
}

/// Which of OpenCode's event channels a stream is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Channel {
    /// `GET /event` (and Kilo's `GET /api/event`).
    #[default]
    Event,
    /// `GET /global/event`: each event in `{directory, project, payload}`.
    Global,
}

/// The server's event streams.
#[derive(Debug, Default)]
pub struct EventStream {
    pub channel: Channel,
    session: Session,
}

impl EventStream {
    pub fn new(channel: Channel) -> Self {
        EventStream {
            channel,
            session: Session::new(true),
        }
    }
}

/// The session an event names.
fn session_of(properties: &Json) -> Option<&Wtf8> {
    str_of(properties, "sessionID")
        .or_else(|| properties.get("info").and_then(|i| str_of(i, "sessionID")))
        .or_else(|| properties.get("part").and_then(|p| str_of(p, "sessionID")))
}

impl LiveFold for EventStream {
    fn push(&mut self, value: Json, line: usize, out: &mut Folded, skips: &mut Skips) -> FormatResult<()> {
        let mut value = value;
        if self.channel == Channel::Global {
            value = match value.take("payload") {
                Some(payload @ Json::Object(_)) => payload,
                _ => return skips.skip(line, "a global event without a \"payload\" object"),
            };
        }
        let Some(kind) = str_of(&value, "type").cloned() else {
            return skips.skip(line, "an event without a \"type\"");
        };
        // Kilo's `/api/event` puts the properties under `data`.
        let properties = match value.take("properties").or_else(|| value.take("data")) {
            Some(properties @ Json::Object(_)) => properties,
            _ if kind == "sync" => {
                skips.pass("sync (a copy of a durable event, read once as itself)");
                return Ok(());
            }
            _ => Json::Object(Vec::new()),
        };
        match kind.as_bytes() {
            b"sync" => {
                skips.pass("sync (a copy of a durable event, read once as itself)");
                Ok(())
            }
            b"message.updated"
            | b"message.part.updated"
            | b"message.part.delta"
            | b"message.removed"
            | b"message.part.removed" => {
                if !self.session.admit(session_of(&properties), skips) {
                    return Ok(());
                }
                let kind_name = kind.to_string();
                match self.message_event(kind.as_bytes(), properties, line, out, skips) {
                    Ok(()) => Ok(()),
                    Err(error) if error.line.is_some() => Err(error),
                    Err(error) => unreadable(skips, line, &kind_name, error.under("properties")),
                }
            }
            b"session.created" | b"session.updated" => {
                if let Some(info) = properties.get("info") {
                    self.session.note_session(info);
                }
                skips.pass(&kind.to_string());
                Ok(())
            }
            _ => {
                skips.pass(&kind.to_string());
                Ok(())
            }
        }
    }

    fn resume(&mut self, messages: &Folded) {
        self.session.resume(messages);
    }

    fn save(&self) -> Json {
        save(&self.session)
    }

    fn restore(&mut self, state: &Json, messages: &Folded) -> Result<(), String> {
        self.session = Session::restore(state, messages, true)?;
        Ok(())
    }
}

impl EventStream {
    fn message_event(
        &mut self,
        kind: &[u8],
        mut properties: Json,
        line: usize,
        out: &mut Folded,
        skips: &mut Skips,
    ) -> FormatResult<()> {
        let string = |p: &Json, key: &str| -> FormatResult<Wtf8> {
            str_of(p, key)
                .cloned()
                .ok_or_else(|| crate::reading::check::wrong(key.into(), "a string", p.get(key)))
        };
        match kind {
            b"message.updated" => match properties.take("info") {
                Some(info @ Json::Object(_)) => self.session.update_info(info, out),
                other => Err(crate::reading::check::wrong(
                    "info".into(),
                    "an object",
                    other.as_ref(),
                )),
            },
            b"message.part.updated" => match properties.take("part") {
                Some(part @ Json::Object(_)) => self.session.update_part(part, out, skips),
                other => Err(crate::reading::check::wrong(
                    "part".into(),
                    "an object",
                    other.as_ref(),
                )),
            },
            b"message.part.delta" => {
                let message = string(&properties, "messageID")?;
                let part = string(&properties, "partID")?;
                let field = string(&properties, "field")?;
                let delta = string(&properties, "delta")?;
                self.session
                    .append([&message, &part, &field], &delta, out, skips, line)
            }
            b"message.removed" => {
                let message = string(&properties, "messageID")?;
                self.session.remove(&message, out);
                Ok(())
            }
            _ => {
                let message = string(&properties, "messageID")?;
                let part = string(&properties, "partID")?;
                self.session.remove_part(&message, &part, out);
                Ok(())
            }
        }
    }
}
