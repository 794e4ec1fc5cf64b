//! The `*_CHUNK` shorthand expanded as `@ag-ui/client` 1.0 expands it
//! (`chunks/transform.ts`): a chunk continues the stream its lane has open when it names
//! no id or the same one, else it ends that stream and opens another. A lane is the
//! subagent run a chunk is attributed to (none: the parent). An explicit event of a lane
//! ends the lane's stream; a run-level event (`RUN_*`, `MESSAGES_SNAPSHOT`) ends every
//! lane's. A stream still open when the recording ends gets no end, as there.
//!
//! Where the client fails the run (a first chunk without its id, a repeat that contradicts
//! the opener, a chunk two lanes could continue), the frame is refused.

use crate::bytes::value::Json;
use crate::bytes::wtf8::Wtf8;
use crate::formats::ag_ui::events::{self, Type};
use crate::reading::check::{FormatError, FormatResult};
use crate::reading::resume;

/// The stream a lane is assembling from chunks.
#[derive(Debug, Clone, PartialEq)]
enum Pending {
    Text {
        id: Wtf8,
        role: Wtf8,
        name: Option<Wtf8>,
    },
    Tool {
        id: Wtf8,
        name: Wtf8,
        parent: Option<Wtf8>,
    },
    Reasoning {
        id: Wtf8,
    },
}

impl Pending {
    fn kind(&self) -> &'static str {
        match self {
            Pending::Text { .. } => "text",
            Pending::Tool { .. } => "tool",
            Pending::Reasoning { .. } => "reasoning",
        }
    }

    fn id(&self) -> &Wtf8 {
        match self {
            Pending::Text { id, .. } | Pending::Tool { id, .. } | Pending::Reasoning { id } => id,
        }
    }

    /// The end the client makes for it.
    fn end(&self, lane: &Option<Wtf8>) -> (Type, Json) {
        let (ty, key) = match self {
            Pending::Text { .. } => (Type::TEXT_MESSAGE_END, "messageId"),
            Pending::Tool { .. } => (Type::TOOL_CALL_END, "toolCallId"),
            Pending::Reasoning { .. } => (Type::REASONING_MESSAGE_END, "messageId"),
        };
        let mut fields = vec![
            (Wtf8::from("type"), Json::string(ty.name())),
            (Wtf8::from(key), Json::String(self.id().clone())),
        ];
        fields.extend(
            lane.clone()
                .map(|l| (Wtf8::from("subagentRunId"), Json::String(l))),
        );
        (ty, Json::Object(fields))
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

    /// Which lane a chunk of `kind` naming `id` (or none) and attributed to `tag` is in.
    fn resolve(
        &self,
        kind: &str,
        id: Option<&Wtf8>,
        tag: Option<Wtf8>,
        what: &str,
    ) -> FormatResult<Option<Wtf8>> {
        if let Some(id) = id {
            if let Some((holder, _)) = self.open.iter().find(|(_, p)| p.kind() == kind && p.id() == id) {
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
        if self.open.iter().any(|(l, p)| l.is_none() && p.kind() == kind) {
            return Ok(None);
        }
        let candidates: Vec<&Option<Wtf8>> = self
            .open
            .iter()
            .filter(|(_, p)| p.kind() == kind)
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
        match ty {
            Type::TEXT_MESSAGE_CHUNK => self.text(value, &mut out)?,
            Type::TOOL_CALL_CHUNK => self.tool(value, &mut out)?,
            Type::REASONING_MESSAGE_CHUNK => self.reasoning(value, &mut out)?,
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

    fn text(&mut self, chunk: Json, out: &mut Vec<(Type, Json)>) -> FormatResult<()> {
        let id = events::optional(&chunk, "messageId")?.cloned();
        let role = events::optional(&chunk, "role")?.cloned();
        if let Some(role) = role
            .as_ref()
            .filter(|r| !matches!(r.as_bytes(), b"assistant" | b"user" | b"system" | b"developer"))
        {
            return Err(FormatError::new(
                "role",
                format!("must be 'assistant', 'user', 'system' or 'developer', got '{role}'"),
            ));
        }
        let name = events::optional(&chunk, "name")?.cloned();
        let delta = events::optional(&chunk, "delta")?.cloned();
        let tag = events::lane(&chunk);
        let lane = self.resolve("text", id.as_ref(), tag.clone(), "TEXT_MESSAGE_CHUNK")?;
        let metadata = events::metadata(&chunk).cloned();
        let (id, opened) = match self.pending(&lane) {
            Some(Pending::Text {
                id: open,
                role: r,
                name: n,
            }) if id.as_ref().is_none_or(|id| id == open) => {
                agree("role", role.as_ref(), Some(r), open)?;
                agree("name", name.as_ref(), n.as_ref(), open)?;
                (open.clone(), false)
            }
            _ => {
                let id = id.ok_or_else(|| first("TEXT_MESSAGE_CHUNK", "messageId"))?;
                self.close(&lane, out);
                let role = role.unwrap_or_else(|| Wtf8::from("assistant"));
                out.push(event(
                    Type::TEXT_MESSAGE_START,
                    vec![
                        ("messageId", text(&id)),
                        ("role", text(&role)),
                        ("name", name.as_ref().and_then(text)),
                        ("subagentRunId", tag.as_ref().and_then(text)),
                        ("metadata", metadata.clone()),
                    ],
                ));
                self.set(
                    lane.clone(),
                    Pending::Text {
                        id: id.clone(),
                        role,
                        name,
                    },
                );
                (id, true)
            }
        };
        content(
            Type::TEXT_MESSAGE_CONTENT,
            "messageId",
            id,
            delta,
            metadata,
            opened,
            out,
        );
        Ok(())
    }

    fn tool(&mut self, chunk: Json, out: &mut Vec<(Type, Json)>) -> FormatResult<()> {
        let id = events::optional(&chunk, "toolCallId")?.cloned();
        let name = events::optional(&chunk, "toolCallName")?.cloned();
        let parent = events::optional(&chunk, "parentMessageId")?.cloned();
        let delta = events::optional(&chunk, "delta")?.cloned();
        let tag = events::lane(&chunk);
        let lane = self.resolve("tool", id.as_ref(), tag.clone(), "TOOL_CALL_CHUNK")?;
        let metadata = events::metadata(&chunk).cloned();
        let (id, opened) = match self.pending(&lane) {
            Some(Pending::Tool {
                id: open,
                name: n,
                parent: p,
            }) if id.as_ref().is_none_or(|id| id == open) => {
                agree("toolCallName", name.as_ref(), Some(n), open)?;
                agree("parentMessageId", parent.as_ref(), p.as_ref(), open)?;
                (open.clone(), false)
            }
            _ => {
                let id = id.ok_or_else(|| first("TOOL_CALL_CHUNK", "toolCallId"))?;
                let name = name.ok_or_else(|| first("TOOL_CALL_CHUNK", "toolCallName"))?;
                self.close(&lane, out);
                out.push(event(
                    Type::TOOL_CALL_START,
                    vec![
                        ("toolCallId", text(&id)),
                        ("toolCallName", text(&name)),
                        ("parentMessageId", parent.as_ref().and_then(text)),
                        ("subagentRunId", tag.as_ref().and_then(text)),
                        ("metadata", metadata.clone()),
                    ],
                ));
                self.set(
                    lane.clone(),
                    Pending::Tool {
                        id: id.clone(),
                        name,
                        parent,
                    },
                );
                (id, true)
            }
        };
        content(
            Type::TOOL_CALL_ARGS,
            "toolCallId",
            id,
            delta,
            metadata,
            opened,
            out,
        );
        Ok(())
    }

    fn reasoning(&mut self, chunk: Json, out: &mut Vec<(Type, Json)>) -> FormatResult<()> {
        let id = events::optional(&chunk, "messageId")?.cloned();
        let delta = events::optional(&chunk, "delta")?.cloned();
        let tag = events::lane(&chunk);
        let lane = self.resolve("reasoning", id.as_ref(), tag.clone(), "REASONING_MESSAGE_CHUNK")?;
        let metadata = events::metadata(&chunk).cloned();
        let (id, opened) = match self.pending(&lane) {
            Some(Pending::Reasoning { id: open }) if id.as_ref().is_none_or(|id| id == open) => {
                (open.clone(), false)
            }
            _ => {
                let id = id.ok_or_else(|| first("REASONING_MESSAGE_CHUNK", "messageId"))?;
                self.close(&lane, out);
                out.push(event(
                    Type::REASONING_MESSAGE_START,
                    vec![
                        ("messageId", text(&id)),
                        ("role", Some(Json::string("reasoning"))),
                        ("subagentRunId", tag.as_ref().and_then(text)),
                        ("metadata", metadata.clone()),
                    ],
                ));
                self.set(lane.clone(), Pending::Reasoning { id: id.clone() });
                (id, true)
            }
        };
        content(
            Type::REASONING_MESSAGE_CONTENT,
            "messageId",
            id,
            delta,
            metadata,
            opened,
            out,
        );
        Ok(())
    }

    /// The open streams, as plain JSON for a resume state.
    pub fn save(&self) -> Json {
        Json::Array(
            self.open
                .iter()
                .map(|(lane, pending)| {
                    let mut fields = vec![
                        ("lane", resume::optional(lane.as_ref())),
                        ("kind", Json::string(pending.kind())),
                        ("id", Json::String(pending.id().clone())),
                    ];
                    match pending {
                        Pending::Text { role, name, .. } => {
                            fields.push(("role", Json::String(role.clone())));
                            fields.push(("name", resume::optional(name.as_ref())));
                        }
                        Pending::Tool { name, parent, .. } => {
                            fields.push(("name", Json::String(name.clone())));
                            fields.push(("parent", resume::optional(parent.as_ref())));
                        }
                        Pending::Reasoning { .. } => {}
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
            let pending = match resume::text(item, "kind").map_err(at)?.as_bytes() {
                b"text" => Pending::Text {
                    id,
                    role: resume::text(item, "role").map_err(at)?.clone(),
                    name: resume::optional_text(item, "name").map_err(at)?,
                },
                b"tool" => Pending::Tool {
                    id,
                    name: resume::text(item, "name").map_err(at)?.clone(),
                    parent: resume::optional_text(item, "parent").map_err(at)?,
                },
                b"reasoning" => Pending::Reasoning { id },
                _ => return Err(at(".kind must be 'text', 'tool' or 'reasoning'".into())),
            };
            lanes.open.push((lane, pending));
        }
        Ok(lanes)
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
    ty: Type,
    key: &str,
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
        ty,
        vec![
            (key, Some(Json::String(id))),
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
