//! A stored OpenCode session as OpenCode hands it out: `opencode export <id>` (`{info,
//! messages: [{info, parts}]}`, pretty-printed) and the server's `GET /session/:id/message`
//! (`[{info, parts}]`). A reader of OpenCode's database or of its older JSON tree makes the
//! same document of each session and reads it here ([`read_export`]).

use crate::bytes::value::{self, str_of, Json};
use crate::reading::check::{FormatError, Skips};
use crate::reading::format::{Input, ReadOptions};
use crate::reading::history::{HistoryError, Message};

use super::parts::{messages_of, note_part, Entry};

/// The `opencode` history: an export or a `GET /session/:id/message` answer.
pub fn read_history(
    input: Input<'_>,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    read_export(&input.bytes()?, options, emit)
}

/// Reads one session from the bytes of an export-shaped document (`{info, messages}`, or
/// the `messages` array alone), handing each message to `emit` as OpenCode shows it.
pub fn read_export(
    bytes: &[u8],
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // An empty file is an empty history, as in every format.
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Skips::new(options.strict));
    }
    let document = value::parse(bytes).map_err(|e| HistoryError {
        line: None,
        offset: None,
        message: format!("an OpenCode session must be one JSON document: {e}"),
    })?;
    read_document(&document, options, emit)
}

/// Reads one session from an export-shaped document already parsed.
pub fn read_document(
    document: &Json,
    options: &ReadOptions,
    emit: &mut dyn FnMut(Message) -> bool,
) -> Result<Skips, HistoryError> {
    let refuse = |e: FormatError| HistoryError {
        line: None,
        offset: None,
        message: e.to_string(),
    };
    let (items, base) = match document {
        Json::Array(items) => (items.as_slice(), ""),
        Json::Object(_) => match document.get("messages") {
            Some(Json::Array(items)) => (items.as_slice(), "messages"),
            other => {
                return Err(refuse(crate::reading::check::wrong("messages".into(), "an array", other)))
            }
        },
        other => {
            return Err(refuse(FormatError::new(
                "",
                format!(
                    "an OpenCode session must be an object {{info, messages}} or an array of {{info, parts}}, got {}",
                    other.kind().name()
                ),
            )))
        }
    };
    let mut skips = Skips::new(options.strict);
    let mut entries = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("{base}[{i}]");
        match entry_of(item) {
            Ok(entry) => {
                for part in &entry.parts {
                    note_part(part, &mut skips);
                }
                entries.push(entry);
            }
            Err(e) if options.strict => return Err(refuse(e.under(&path))),
            Err(e) => {
                let e = e.under(&path);
                skips
                    .skip(i + 1, format_args!("a message that cannot be read ({e})"))
                    .map_err(refuse)?;
            }
        }
    }
    for message in messages_of(&entries, Some(&mut skips)) {
        if !emit(Message::Format(message)) {
            break;
        }
    }
    Ok(skips)
}

/// A `{info, parts}` item.
fn entry_of(item: &Json) -> Result<Entry, FormatError> {
    let info = crate::reading::check::object(item.get("info").unwrap_or(&Json::Undefined), "info")?;
    let id = crate::reading::check::string(info, "id", "info")?;
    crate::reading::check::string(info, "role", "info")?;
    let parts = crate::reading::check::array(item, "parts", "")?;
    for (i, part) in parts.iter().enumerate() {
        crate::reading::check::object(part, &format!("parts[{i}]"))?;
        if str_of(part, "type").is_none() {
            return Err(crate::reading::check::wrong(
                format!("parts[{i}].type"),
                "a string",
                part.get("type"),
            ));
        }
    }
    Ok(Entry {
        id: id.to_string_lossy().into_owned(),
        info: Some(info.clone()),
        parts: parts.to_vec(),
        kept: None,
    })
}

/// Whether `value` is a `{info, parts}` item of a session (a message with its parts).
pub fn is_message(value: &Json) -> bool {
    let Some(info @ Json::Object(_)) = value.get("info") else {
        return false;
    };
    matches!(value.get("parts"), Some(Json::Array(_)))
        && str_of(info, "id").is_some()
        && matches!(
            str_of(info, "role").map(|r| r.as_bytes()),
            Some(b"user" | b"assistant")
        )
        && str_of(info, "sessionID").is_some()
}

/// Whether `value` is an export on one line: `{info: Session, messages: [{info, parts}]}`.
pub fn is_export(value: &Json) -> bool {
    let Some(info @ Json::Object(_)) = value.get("info") else {
        return false;
    };
    let Some(Json::Array(messages)) = value.get("messages") else {
        return false;
    };
    str_of(info, "id").is_some()
        && match messages.first() {
            Some(first) => is_message(first),
            None => info.get("projectID").is_some() && info.get("time").is_some(),
        }
}
