//! Chunks as JSON text, in the key order the drop-in gives the same chunks in JavaScript.
//! `JSON.parse` of the text equals what `appendEventToChunks` builds from the parsed
//! events, except that keys whose value is `undefined` are left out, as `JSON.stringify`
//! leaves them out.
//!
//! The text is ASCII: characters beyond it are written as `\u` escapes (in valid JSON they
//! only occur inside strings, so this is safe for payload text too). V8 makes a one-byte
//! string of ASCII with a copy, where UTF-8 would have to be decoded into two-byte text.

use crate::bytes::value::escape_unit;
use crate::model::{Chunk, ShellOutput, ToolCallEntry};

use crate::bytes::text::{escape_into, JsonText, Payload};

type ByteChunk = Chunk<JsonText, Payload>;

/// Appends the JSON array of `chunks` to `out`.
pub fn chunks_json(chunks: &[ByteChunk], out: &mut String) {
    // One allocation up front: growing a large string by doubling costs page faults.
    out.reserve(json_size_hint(chunks));
    out.push('[');
    for (index, chunk) in chunks.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        chunk_json(chunk, out);
    }
    out.push(']');
}

/// About the length of the JSON text of `chunks` (exact for the variable parts).
pub(crate) fn json_size_hint(chunks: &[ByteChunk]) -> usize {
    let payload = |p: &Payload| match p {
        Payload::Json(raw) => raw.len() + 16,
        Payload::Undefined => 0,
    };
    chunks
        .iter()
        .map(|chunk| {
            64 + match chunk {
                Chunk::Text { text } => text.0.len(),
                Chunk::Thinking { text, metadata } => text.0.len() + metadata.as_ref().map_or(0, payload),
                Chunk::ToolBatch { calls } => calls
                    .iter()
                    .map(|call| {
                        let result = call.result.as_ref().map_or(0, |(r, e)| payload(r) + payload(e));
                        let shell = call
                            .shell_output
                            .as_ref()
                            .map_or(0, |s| s.stdout.0.len() + s.stderr.0.len() + 40);
                        64 + call.id.0.len() + call.name.0.len() + payload(&call.arguments) + result + shell
                    })
                    .sum(),
                Chunk::Error { message, .. } => message.0.len() + 32,
                Chunk::System { text, .. } => text.0.len() + 32,
                Chunk::File {
                    media_type,
                    data,
                    url,
                    filename,
                } => [Some(media_type), data.as_ref(), url.as_ref(), filename.as_ref()]
                    .into_iter()
                    .flatten()
                    .map(|text| text.0.len() + 16)
                    .sum(),
            }
        })
        .sum()
}

pub(crate) fn string(out: &mut String, text: &JsonText) {
    out.push('"');
    push_ascii(out, &text.0);
    out.push('"');
}

/// Appends JSON text with every non-ASCII character as a `\u` escape (two for a
/// character beyond the BMP, as UTF-16 has it).
fn push_ascii(out: &mut String, json: &str) {
    // SAFETY: only ASCII bytes are appended, so `out` stays UTF-8.
    let out = unsafe { out.as_mut_vec() };
    let bytes = json.as_bytes();
    out.reserve(bytes.len());
    let mut start = 0;
    loop {
        let at = start + ascii_run(&bytes[start..]);
        out.extend_from_slice(&bytes[start..at]);
        let Some(c) = json[at..].chars().next() else {
            return;
        };
        let mut units = [0u16; 2];
        for &unit in c.encode_utf16(&mut units).iter() {
            escape_unit(out, unit);
        }
        start = at + c.len_utf8();
    }
}

/// The length of the leading ASCII run of `bytes`, 32 bytes at a time (a loop the
/// compiler vectorizes), then within the block that holds the first other byte.
fn ascii_run(bytes: &[u8]) -> usize {
    let mut at = 0;
    for block in bytes.chunks_exact(32) {
        if block.iter().fold(0u8, |any, b| any | b) >= 0x80 {
            break;
        }
        at += 32;
    }
    at + bytes[at..].iter().take_while(|b| b.is_ascii()).count()
}

/// `,"key":value`, or nothing for an `undefined` payload.
fn payload(out: &mut String, key: &str, value: &Payload) {
    if let Payload::Json(raw) = value {
        out.push_str(",\"");
        out.push_str(key);
        out.push_str("\":");
        push_ascii(out, raw);
    }
}

pub(crate) fn chunk_json(chunk: &ByteChunk, out: &mut String) {
    match chunk {
        Chunk::Text { text } => {
            out.push_str("{\"type\":\"text\",\"text\":");
            string(out, text);
        }
        Chunk::Thinking { text, metadata } => {
            out.push_str("{\"type\":\"thinking\",\"text\":");
            string(out, text);
            if let Some(metadata) = metadata {
                payload(out, "metadata", metadata);
            }
        }
        Chunk::ToolBatch { calls } => {
            out.push_str("{\"type\":\"tool-batch\",\"calls\":[");
            for (index, call) in calls.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                call_json(call, out);
            }
            out.push(']');
        }
        Chunk::Error { message, status_code } => {
            out.push_str("{\"type\":\"error\",\"message\":");
            string(out, message);
            if let Some(code) = status_code {
                out.push_str(",\"statusCode\":");
                number(out, *code);
            }
        }
        Chunk::System { kind, text } => {
            out.push_str("{\"type\":\"system\",\"kind\":\"");
            escape_into(kind.as_str(), out);
            out.push_str("\",\"text\":");
            string(out, text);
        }
        Chunk::File {
            media_type,
            data,
            url,
            filename,
        } => {
            out.push_str("{\"type\":\"file\",\"mediaType\":");
            string(out, media_type);
            for (key, value) in [("data", data), ("url", url), ("filename", filename)] {
                if let Some(value) = value {
                    out.push_str(",\"");
                    out.push_str(key);
                    out.push_str("\":");
                    string(out, value);
                }
            }
        }
    }
    out.push('}');
}

pub(crate) fn call_json(call: &ToolCallEntry<JsonText, Payload>, out: &mut String) {
    out.push_str("{\"id\":");
    string(out, &call.id);
    out.push_str(",\"name\":");
    string(out, &call.name);
    payload(out, "arguments", &call.arguments);
    if let Some(meta) = &call.meta {
        payload(out, "meta", meta);
    }
    let result = |out: &mut String| {
        if let Some((result, is_error)) = &call.result {
            payload(out, "result", result);
            payload(out, "isError", is_error);
        }
    };
    let shell = |out: &mut String| {
        if let Some(ShellOutput { stdout, stderr }) = &call.shell_output {
            out.push_str(",\"shellOutput\":{\"stdout\":");
            string(out, stdout);
            out.push_str(",\"stderr\":");
            string(out, stderr);
            out.push('}');
        }
    };
    if call.shell_output_first {
        shell(out);
        result(out);
    } else {
        result(out);
        shell(out);
    }
    out.push('}');
}

/// A number as JSON text that `JSON.parse` reads back as the same value. Rust prints the
/// shortest text that round-trips; an out-of-range literal such as `1e400` in the input
/// is Infinity to JavaScript, and `1e999` says so again.
fn number(out: &mut String, value: f64) {
    if value.is_finite() {
        out.push_str(&value.to_string());
    } else if value.is_nan() {
        out.push_str("null");
    } else if value > 0.0 {
        out.push_str("1e999");
    } else {
        out.push_str("-1e999");
    }
}
