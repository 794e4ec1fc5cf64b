//! The `*_CHUNK` shorthand expanded as `@ag-ui/client` 1.0 expands it
//! (`chunks/transform.ts`): a chunk continues the stream its lane has open when it names
//! no id or the same one, else it ends that stream and opens another. A lane is the
//! subagent run a chunk is attributed to (none: the parent). An explicit event of a lane
//! ends the lane's stream; a run-level event (`RUN_*`, `MESSAGES_SNAPSHOT`) ends every
//! lane's. A stream still open when the recording ends gets no end, as there.
//!
//! The three shorthands (text, tool call, reasoning) differ only in their names and in the
//! fields their first chunk establishes, so each is a [`Shorthand`] and one expander runs
//! them all.
//!
//! Where the client fails the run (a first chunk without its id, a repeat that contradicts
//! the opener, a chunk two lanes could continue), the frame is refused.

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::ag_ui::events::{self, Type};
use crate::reading::check::{FormatError, FormatResult};
use crate::reading::resume;

/// A field the first chunk of a stream establishes, written into the start event it makes;
/// a later chunk of the stream may repeat it, saying the same, or leave it out.
struct Field {
    /// Its name in the chunk and the start event.
    key: &'static str,
    /// Its name in a resume state.
    saved: &'static str,
    /// What the start has when the first chunk leaves it out: `None` when the first chunk
    /// must name it, `Some(None)` when the start leaves it out too.
    default: Option<Option<&'static str>>,
    /// The values the client takes (empty: any string).
    allowed: &'static [&'static str],
}

/// One `*_CHUNK` shorthand: the events it stands for and the fields it carries.
struct Shorthand {
    /// Its kind in a resume state.
    kind: &'static str,
    chunk: Type,
    start: Type,
    content: Type,
    end: Type,
    /// The field naming the stream.
    id: &'static str,
    fields: &'static [Field],
    /// Fields of the start event that no chunk gives.
    fixed: &'static [(&'static str, &'static str)],
}

const SHORTHANDS: [Shorthand; 3] = [
    Shorthand {
        kind: "text",
        chunk: Type::TEXT_MESSAGE_CHUNK,
        start: Type::TEXT_MESSAGE_START,
        content: Type::TEXT_MESSAGE_CONTENT,
        end: Type::TEXT_MESSAGE_END,
        id: "messageId",
        fields: &[
            Field {
                key: "role",
                saved: "role",
                default: Some(Some("assistant")),
                allowed: &["assistant", "user", "system", "developer"],
            },
            Field {
                key: "name",
                saved: "name",
                default: Some(None),
                allowed: &[],
            },
        ],
        fixed: &[],
    },
    Shorthand {
        kind: "tool",
        chunk: Type::TOOL_CALL_CHUNK,
        start: Type::TOOL_CALL_START,
        content: Type::TOOL_CALL_ARGS,
        end: Type::TOOL_CALL_END,
        id: "toolCallId",
        fields: &[
            Field {
                key: "toolCallName",
                saved: "name",
                default: None,
                allowed: &[],
            },
            Field {
                key: "parentMessageId",
                saved: "parent",
                default: Some(None),
                allowed: &[],
            },
        ],
        fixed: &[],
    },
    Shorthand {
        kind: "reasoning",
        chunk: Type::REASONING_MESSAGE_CHUNK,
        start: Type::REASONING_MESSAGE_START,
        content: Type::REASONING_MESSAGE_CONTENT,
        end: Type::REASONING_MESSAGE_END,
        id: "messageId",
        fields: &[],
        fixed: &[("role", "reasoning")],
    },
];

/// The stream a lane is assembling from chunks: its shorthand, its id and the values of
/// the shorthand's fields its first chunk established.
#[derive(Debug, Clone, PartialEq)]
struct Pending {
    shorthand: usize,
    id: Wtf8,
    fields: Vec<Option<Wtf8>>,
}

impl Pending {
    fn shorthand(&self) -> &'static Shorthand {
        &SHORTHANDS[self.shorthand]
    }

    /// The end the client makes for it.
    fn end(&self, lane: &Option<Wtf8>) -> (Type, Json) {
        let shorthand = self.shorthand();
        event(
            shorthand.end,
            vec![
                (shorthand.id, text(&self.id)),
                ("subagentRunId", lane.as_ref().and_then(text)),
            ],
        )
    }
}

/// The open chunk streams, per lane, in the order they opened.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lanes {
    open: Vec<(Option<Wtf8>, Pending)>,
}

fn event(ty: Type, fields: Vec<(&str, Option<Json>)>) -> (Type, Json) {
    let mut all = vec![(Wtf8::from("type"), Json::string(ty.name()))];
    all.extend(fields.into_iter().filter_map(|(k, v)| Some((Wtf8::from(k), v?))));
    (ty, Json::Object(all))
}

fn text(value: &Wtf8) -> Option<Json> {
    Some(Json::String(value.clone()))
}

impl Lanes {
    fn close(&mut self, lane: &Option<Wtf8>, out: &mut Vec<(Type, Json)>) {
        if let Some(at) = self.open.iter().position(|(l, _)| l == lane) {
            let (lane, pending) = self.open.remove(at);
            out.push(pending.end(&lane));
        }
    }

    fn close_all(&mut self, out: &mut Vec<(Type, Json)>) {
        for (lane, pending) in std::mem::take(&mut self.open) {
            out.push(pending.end(&lane));
        }
    }

    /// Which lane a chunk of shorthand `kind` naming `id` (or none) and attributed to `tag`
    /// is in.
    fn resolve(&self, kind: usize, id: Option<&Wtf8>, tag: Option<Wtf8>) -> FormatResult<Option<Wtf8>> {
        let what = SHORTHANDS[kind].chunk.name();
        if let Some(id) = id {
            if let Some((holder, _)) = self.open.iter().find(|(_, p)| p.shorthand == kind && p.id == *id) {
                if tag.is_some() && tag != *holder {
                    return Err(FormatError::new(
                        "subagentRunId",
                        format!("does not match the open stream's: {what} cannot continue '{id}' (the client refuses the run)"),
                    ));
                }
                return Ok(holder.clone());
            }
            return Ok(tag);
        }
        if tag.is_some() {
            return Ok(tag);
        }
        if self.open.iter().any(|(l, p)| l.is_none() && p.shorthand == kind) {
            return Ok(None);
        }
        let candidates: Vec<&Option<Wtf8>> = self
            .open
            .iter()
            .filter(|(_, p)| p.shorthand == kind)
            .map(|(l, _)| l)
            .collect();
        match candidates.as_slice() {
            [] => Ok(None),
            [one] => Ok((*one).clone()),
            _ => Err(FormatError::new(
                "",
                format!("{what} names no id and no subagentRunId, but several lanes are open (the client refuses the run)"),
            )),
        }
    }

    fn pending(&self, lane: &Option<Wtf8>) -> Option<&Pending> {
        self.open.iter().find(|(l, _)| l == lane).map(|(_, p)| p)
    }

    fn set(&mut self, lane: Option<Wtf8>, pending: Pending) {
        self.open.retain(|(l, _)| *l != lane);
        self.open.push((lane, pending));
    }

    /// The events `value` (of type `ty`) stands for, after the chunk streams it ends.
    pub fn expand(&mut self, ty: Type, value: Json) -> FormatResult<Vec<(Type, Json)>> {
        let mut out = Vec::new();
        if let Some(kind) = SHORTHANDS.iter().position(|s| s.chunk == ty) {
            self.chunk(kind, value, &mut out)?;
            return Ok(out);
        }
        match ty {
            Type::RUN_STARTED | Type::RUN_FINISHED | Type::RUN_ERROR | Type::MESSAGES_SNAPSHOT => {
                self.close_all(&mut out);
                out.push((ty, value));
            }
            Type::RAW
            | Type::ACTIVITY_SNAPSHOT
            | Type::ACTIVITY_DELTA
            | Type::REASONING_ENCRYPTED_VALUE
            | Type::SUBAGENT_STARTED => out.push((ty, value)),
            Type::SUBAGENT_FINISHED | Type::SUBAGENT_ERROR => {
                if let Some(lane) = events::lane(&value) {
                    self.close(&Some(lane), &mut out);
                }
                out.push((ty, value));
            }
            _ => {
                self.close(&events::lane(&value), &mut out);
                out.push((ty, value));
            }
        }
        Ok(out)
    }

    /// A chunk of shorthand `kind`: the start of a stream when it opens one, and the
    /// content it carries.
    fn chunk(&mut self, kind: usize, chunk: Json, out: &mut Vec<(Type, Json)>) -> FormatResult<()> {
        let shorthand = &SHORTHANDS[kind];
        let id = events::optional(&chunk, shorthand.id)?.cloned();
        let mut fields = Vec::with_capacity(shorthand.fields.len());
        for field in shorthand.fields {
            let value = events::optional(&chunk, field.key)?.cloned();
            if let Some(value) = value.as_ref().filter(|v| {
                !field.allowed.is_empty() && !field.allowed.iter().any(|a| v.as_bytes() == a.as_bytes())
            }) {
                return Err(FormatError::new(
                    field.key,
                    format!("must be {}, got '{value}'", one_of(field.allowed)),
                ));
            }
            fields.push(value);
        }
        let delta = events::optional(&chunk, "delta")?.cloned();
        let tag = events::lane(&chunk);
        let lane = self.resolve(kind, id.as_ref(), tag.clone())?;
        let metadata = events::metadata(&chunk).cloned();
        let (id, opened) = match self.pending(&lane) {
            Some(open) if open.shorthand == kind && id.as_ref().is_none_or(|id| *id == open.id) => {
                for ((field, incoming), established) in shorthand.fields.iter().zip(&fields).zip(&open.fields)
                {
                    agree(field.key, incoming.as_ref(), established.as_ref(), &open.id)?;
                }
                (open.id.clone(), false)
            }
            _ => {
                let id = id.ok_or_else(|| first(shorthand.chunk.name(), shorthand.id))?;
                let mut established = Vec::with_capacity(fields.len());
                for (field, value) in shorthand.fields.iter().zip(fields) {
                    established.push(match (value, field.default) {
                        (Some(value), _) => Some(value),
                        (None, Some(default)) => default.map(Wtf8::from),
                        (None, None) => return Err(first(shorthand.chunk.name(), field.key)),
                    });
                }
                self.close(&lane, out);
                let mut start = vec![(shorthand.id, text(&id))];
                for (field, value) in shorthand.fields.iter().zip(&established) {
                    start.push((field.key, value.as_ref().and_then(text)));
                }
                for &(key, value) in shorthand.fixed {
                    start.push((key, Some(Json::string(value))));
                }
                start.push(("subagentRunId", tag.as_ref().and_then(text)));
                start.push(("metadata", metadata.clone()));
                out.push(event(shorthand.start, start));
                self.set(
                    lane.clone(),
                    Pending {
                        shorthand: kind,
                        id: id.clone(),
                        fields: established,
                    },
                );
                (id, true)
            }
        };
        content(shorthand, id, delta, metadata, opened, out);
        Ok(())
    }

    /// The open streams, as plain JSON for a resume state.
    pub fn save(&self) -> Json {
        Json::Array(
            self.open
                .iter()
                .map(|(lane, pending)| {
                    let shorthand = pending.shorthand();
                    let mut fields = vec![
                        ("lane", resume::optional(lane.as_ref())),
                        ("kind", Json::string(shorthand.kind)),
                        ("id", Json::String(pending.id.clone())),
                    ];
                    for (field, value) in shorthand.fields.iter().zip(&pending.fields) {
                        fields.push((field.saved, resume::optional(value.as_ref())));
                    }
                    Json::Object(fields.into_iter().map(|(k, v)| (Wtf8::from(k), v)).collect())
                })
                .collect(),
        )
    }

    /// What [`Lanes::save`] wrote; the error names the field.
    pub fn restore(state: Option<&Json>) -> Result<Self, String> {
        let items = match state {
            None | Some(Json::Null | Json::Undefined) => return Ok(Lanes::default()),
            Some(Json::Array(items)) => items,
            Some(_) => return Err(".lanes must be an array".into()),
        };
        let mut lanes = Lanes::default();
        for (i, item) in items.iter().enumerate() {
            let at = |e: String| format!(".lanes[{i}]{e}");
            resume::object(item).map_err(at)?;
            let lane = resume::optional_text(item, "lane").map_err(at)?;
            let id = resume::text(item, "id").map_err(at)?.clone();
            let tag = resume::text(item, "kind").map_err(at)?;
            let Some(kind) = SHORTHANDS
                .iter()
                .position(|s| tag.as_bytes() == s.kind.as_bytes())
            else {
                let kinds: Vec<&str> = SHORTHANDS.iter().map(|s| s.kind).collect();
                return Err(at(format!(".kind must be {}", one_of(&kinds))));
            };
            let mut fields = Vec::new();
            for field in SHORTHANDS[kind].fields {
                // A field with a default was established whatever the first chunk said.
                fields.push(match field.default {
                    Some(None) => resume::optional_text(item, field.saved).map_err(at)?,
                    _ => Some(resume::text(item, field.saved).map_err(at)?.clone()),
                });
            }
            lanes.open.push((
                lane,
                Pending {
                    shorthand: kind,
                    id,
                    fields,
                },
            ));
        }
        Ok(lanes)
    }
}

/// `'a', 'b' or 'c'`.
fn one_of(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("'{v}'")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// A repeat of a field the opener established must say the same.
fn agree(field: &str, incoming: Option<&Wtf8>, established: Option<&Wtf8>, id: &Wtf8) -> FormatResult<()> {
    match incoming {
        Some(value) if Some(value) != established => Err(FormatError::new(
            field,
            format!(
                "'{value}' does not match the open stream's ({}): the chunk cannot continue '{id}' (the client refuses the run)",
                established.map_or("absent".to_string(), |e| format!("'{e}'"))
            ),
        )),
        _ => Ok(()),
    }
}

fn first(what: &str, field: &str) -> FormatError {
    FormatError::new(
        field,
        format!("must be a string: the first {what} of a stream names it (the client refuses the run)"),
    )
}

/// The content event a chunk makes: for its delta, or an empty one that carries a
/// continuation's metadata.
fn content(
    shorthand: &Shorthand,
    id: Wtf8,
    delta: Option<Wtf8>,
    metadata: Option<Json>,
    opened: bool,
    out: &mut Vec<(Type, Json)>,
) {
    if delta.is_none() && (opened || metadata.is_none()) {
        return;
    }
    out.push(event(
        shorthand.content,
        vec![
            (shorthand.id, Some(Json::String(id))),
            ("delta", Some(Json::String(delta.unwrap_or_default()))),
            ("metadata", metadata),
        ],
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(lanes: &mut Lanes, text: &str) -> FormatResult<Vec<String>> {
        let value = crate::bytes::value::parse(text.as_bytes()).unwrap();
        let ty = Type::from_tag(value.get("type").unwrap().as_str().unwrap().as_bytes()).unwrap();
        Ok(lanes
            .expand(ty, value)?
            .into_iter()
            .map(|(_, v)| String::from_utf8(v.to_json()).unwrap())
            .collect())
    }

    #[test]
    fn chunks_open_continue_and_end_streams() {
        let mut lanes = Lanes::default();
        assert_eq!(
            expand(
                &mut lanes,
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"a","delta":"he"}"#
            )
            .unwrap(),
            [
                r#"{"type":"TEXT_MESSAGE_START","messageId":"a","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"he"}"#
            ]
        );
        assert_eq!(
            expand(&mut lanes, r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"llo"}"#).unwrap(),
            [r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"a","delta":"llo"}"#]
        );
        assert_eq!(
            expand(
                &mut lanes,
                r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c","toolCallName":"f","delta":"{}"}"#
            )
            .unwrap(),
            [
                r#"{"type":"TEXT_MESSAGE_END","messageId":"a"}"#,
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}"#,
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{}"}"#
            ]
        );
        assert_eq!(
            expand(&mut lanes, r#"{"type":"RUN_FINISHED"}"#).unwrap(),
            [
                r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#,
                r#"{"type":"RUN_FINISHED"}"#
            ]
        );
        assert_eq!(Lanes::restore(Some(&lanes.save())).unwrap(), lanes);
    }

    #[test]
    fn what_the_client_refuses_is_refused_and_changes_nothing() {
        let mut lanes = Lanes::default();
        assert!(expand(&mut lanes, r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"x"}"#).is_err());
        expand(
            &mut lanes,
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"a","role":"user"}"#,
        )
        .unwrap();
        let before = lanes.clone();
        let error = expand(
            &mut lanes,
            r#"{"type":"TEXT_MESSAGE_CHUNK","role":"assistant","delta":"x"}"#,
        );
        assert!(error
            .unwrap_err()
            .to_string()
            .starts_with("role 'assistant' does not match"));
        assert_eq!(lanes, before);
    }

    #[test]
    fn a_metadata_only_continuation_makes_an_empty_content() {
        let mut lanes = Lanes::default();
        expand(
            &mut lanes,
            r#"{"type":"REASONING_MESSAGE_CHUNK","messageId":"r"}"#,
        )
        .unwrap();
        assert_eq!(
            expand(
                &mut lanes,
                r#"{"type":"REASONING_MESSAGE_CHUNK","metadata":{"k":1}}"#
            )
            .unwrap(),
            [r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":"","metadata":{"k":1}}"#]
        );
        let mut restored = Lanes::restore(Some(&lanes.save())).unwrap();
        assert_eq!(
            expand(&mut restored, r#"{"type":"TEXT_MESSAGE_START","messageId":"b"}"#).unwrap(),
            [
                r#"{"type":"REASONING_MESSAGE_END","messageId":"r"}"#,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"b"}"#
            ]
        );
    }
}
