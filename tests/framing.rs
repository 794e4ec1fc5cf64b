//! Line cutting as the WHATWG event-stream rules say, in every framing: a leading byte
//! order mark is skipped, and CRLF, LF and CR each end one line, however the bytes are
//! split between pushes.

use agent_chunks::bytes::Framing;

use agent_chunks::live::{EventStream, StreamError};

const FRAMINGS: [Framing; 3] = [Framing::Auto, Framing::Ndjson, Framing::Sse];

const A: &str = r#"{"type":"text-delta","delta":"a"}"#;
const B: &str = r#"{"type":"text-delta","delta":"b"}"#;
const T: &str = r#"{"type":"tool-call","toolCall":{"id":"1","name":"n","arguments":{}}}"#;

/// The stream's events in `framing` (SSE frames for `Sse`, lines otherwise), with `eol`
/// ending every line.
fn stream_text(framing: Framing, events: &[&str], eol: &str) -> String {
    match framing {
        Framing::Sse => events
            .iter()
            .map(|e| format!("event: agent{eol}data: {e}{eol}{eol}"))
            .collect(),
        _ => events.iter().map(|e| format!("{e}{eol}")).collect(),
    }
}

fn fold(framing: Framing, pieces: &[&[u8]]) -> Result<(String, u64), StreamError> {
    let mut stream = EventStream::new(framing);
    for piece in pieces {
        stream.push(piece)?;
    }
    stream.end()?;
    Ok((stream.to_json(), stream.event_count()))
}

/// Every way of cutting `bytes` in two, and in three with a middle piece of up to three
/// bytes (a CR, an LF or a BOM alone, or split from its neighbours).
fn splits(bytes: &[u8]) -> Vec<Vec<&[u8]>> {
    let mut out = vec![vec![bytes]];
    for i in 0..=bytes.len() {
        out.push(vec![&bytes[..i], &bytes[i..]]);
        for j in i..=bytes.len().min(i + 3) {
            out.push(vec![&bytes[..i], &bytes[i..j], &bytes[j..]]);
        }
    }
    out
}

const WANTED: &str = concat!(
    r#"[{"type":"text","text":"ab"},"#,
    r#"{"type":"tool-batch","calls":[{"id":"1","name":"n","arguments":{}}]}]"#
);

#[test]
fn cr_lf_and_crlf_each_end_a_line_split_anywhere_in_every_framing() {
    for framing in FRAMINGS {
        let sse_auto = if framing == Framing::Auto {
            Framing::Sse
        } else {
            framing
        };
        for as_sse in [false, true] {
            let shape = if as_sse { sse_auto } else { framing };
            if as_sse && framing == Framing::Ndjson {
                continue;
            }
            for eol in ["\n", "\r", "\r\n"] {
                for bom in ["", "\u{FEFF}"] {
                    let text = format!("{bom}{}", stream_text(shape, &[A, B, T], eol));
                    for pieces in splits(text.as_bytes()) {
                        let got = fold(framing, &pieces);
                        assert_eq!(
                            got,
                            Ok((WANTED.to_string(), 3)),
                            "{framing:?}, {eol:?}, BOM {bom:?}, pieces {pieces:?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_cr_ending_one_push_and_an_lf_starting_the_next_are_one_line_end() {
    // In SSE a blank line ends a frame, so a CRLF counted as two line ends would end the
    // frame after its first data line and fold the second line as an event of its own.
    let mut stream = EventStream::new(Framing::Sse);
    stream.push(b"data: {\"type\":\"text-delta\",\r").unwrap();
    stream.push(b"\ndata: \"delta\":\"x\"}\r").unwrap();
    stream.push(b"\n\r").unwrap();
    stream.push(b"\n").unwrap();
    stream.end().unwrap();
    assert_eq!(stream.to_json(), r#"[{"type":"text","text":"x"}]"#);
    assert_eq!(stream.event_count(), 1);
}

#[test]
fn mixed_line_ends_in_one_stream() {
    let text = format!("data: {A}\r\rdata: {B}\n\ndata: {T}\r\n\r\n");
    for framing in [Framing::Auto, Framing::Sse] {
        assert_eq!(fold(framing, &[text.as_bytes()]), Ok((WANTED.to_string(), 3)));
    }
    let lines = format!("{A}\r{B}\n{T}\r\n");
    for framing in [Framing::Auto, Framing::Ndjson] {
        assert_eq!(fold(framing, &[lines.as_bytes()]), Ok((WANTED.to_string(), 3)));
    }
}

#[test]
fn a_bom_split_byte_by_byte_is_skipped_and_counted_in_offsets() {
    for framing in FRAMINGS {
        let mut stream = EventStream::new(framing);
        for byte in b"\xEF\xBB\xBF" {
            stream.push(&[*byte]).unwrap();
        }
        // After the BOM, the first event and its line end(s), the bad one fails at its
        // byte 1 (after `data: ` in SSE).
        let (first, second, line, at) = match framing {
            Framing::Sse => (
                format!("data: {A}\r\r"),
                "data: {\r",
                3,
                3 + 6 + A.len() + 2 + 6 + 1,
            ),
            _ => (format!("{A}\r"), "{\r", 2, 3 + A.len() + 1 + 1),
        };
        stream.push(first.as_bytes()).unwrap();
        let error = match framing {
            Framing::Sse => {
                stream.push(second.as_bytes()).unwrap();
                stream.push(b"\r").unwrap_err()
            }
            _ => stream.push(second.as_bytes()).unwrap_err(),
        };
        assert_eq!((error.line, error.offset), (line, at as u64), "{framing:?}");
        assert_eq!(stream.to_json(), r#"[{"type":"text","text":"a"}]"#);
    }
}

#[test]
fn only_a_leading_bom_is_skipped() {
    // A BOM later in the stream is a character like any other: here, invalid JSON.
    let text = format!("{A}\n\u{FEFF}{B}\n");
    assert!(fold(Framing::Ndjson, &[text.as_bytes()]).is_err());
    // Only one BOM is skipped.
    let text = format!("\u{FEFF}\u{FEFF}{A}\n");
    assert!(fold(Framing::Ndjson, &[text.as_bytes()]).is_err());
    // A stream that is only part of a BOM is not one.
    assert!(fold(Framing::Ndjson, &[b"\xEF\xBB"]).is_err());
    assert_eq!(
        fold(Framing::Ndjson, &[b"\xEF\xBB\xBF"]),
        Ok(("[]".to_string(), 0))
    );
}

#[test]
fn a_data_line_without_a_colon_is_an_empty_data_line() {
    // A frame of one such line is dispatched with empty data: not JSON.
    assert!(fold(Framing::Sse, &[b"data\n\n"]).is_err());
    assert!(fold(Framing::Sse, &[b"data:\n\n"]).is_err());
    // Other fields without a value, and names that only begin with `data`, are not data.
    assert_eq!(
        fold(Framing::Sse, &[b"event\nid\ndatum: 1\ndata-x: 2\n\n"]),
        Ok(("[]".to_string(), 0))
    );
    // `data` alone is the field `data` with an empty value: it adds a line to the frame.
    let text = "data: {\"type\":\"text-delta\",\ndata\ndata: \"delta\":\"x\"}\n\n";
    assert_eq!(
        fold(Framing::Sse, &[text.as_bytes()]),
        Ok((r#"[{"type":"text","text":"x"}]"#.to_string(), 1))
    );
}
