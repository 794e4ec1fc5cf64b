//! `EventStream` fed the same bytes in arbitrary pieces, in any framing: it never panics,
//! a stream without errors ends with the chunks of a single push, and its output is always
//! ASCII JSON. The same stream with a leading byte order mark and its LFs written as CR or
//! CRLF (the other line ends the event-stream rules allow) gives the same result.

#![no_main]

use agent_chunks::bytes::value;
use agent_chunks::bytes::Framing;
use agent_chunks::live::EventStream;
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Input {
    framing: u8,
    /// Lengths of the pieces; what is left after them is the last piece.
    pieces: Vec<u16>,
    data: Vec<u8>,
    /// Lengths of the pieces of the variant below.
    variant_pieces: Vec<u16>,
    /// Bit 0: a leading BOM; bits 1-2: LF written as LF, CR or CRLF.
    variant: u8,
}

/// `data` written with a BOM first and other line ends; `None` when it already holds a CR
/// (a CR before an LF written as CR would be two line ends, not one).
fn variant(data: &[u8], variant: u8) -> Option<Vec<u8>> {
    if data.contains(&b'\r') {
        return None;
    }
    let mut out = Vec::with_capacity(data.len() * 2 + 3);
    if variant & 1 == 1 {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    let eol: &[u8] = match (variant >> 1) % 3 {
        0 => b"\n",
        1 => b"\r",
        _ => b"\r\n",
    };
    for &byte in data {
        match byte {
            b'\n' => out.extend_from_slice(eol),
            _ => out.push(byte),
        }
    }
    Some(out)
}

fn framing(byte: u8) -> Framing {
    match byte % 3 {
        0 => Framing::Auto,
        1 => Framing::Ndjson,
        _ => Framing::Sse,
    }
}

/// Pushes `pieces` and ends; true when no call failed.
fn run(stream: &mut EventStream, pieces: &[&[u8]]) -> bool {
    let mut clean = true;
    for piece in pieces {
        clean &= stream.push(piece).is_ok();
    }
    clean &= stream.end().is_ok();
    clean
}

fuzz_target!(|input: Input| {
    let framing = framing(input.framing);
    let mut rest = &input.data[..];
    let mut pieces = Vec::new();
    for &len in &input.pieces {
        let (piece, tail) = rest.split_at((len as usize).min(rest.len()));
        pieces.push(piece);
        rest = tail;
    }
    pieces.push(rest);

    let mut split = EventStream::new(framing);
    let split_clean = run(&mut split, &pieces);
    let mut whole = EventStream::new(framing);
    let whole_clean = run(&mut whole, &[&input.data]);

    for stream in [&split, &whole] {
        let json = stream.to_json();
        assert!(json.is_ascii());
        if let Err(e) = value::parse(json.as_bytes()) {
            panic!("the output is not JSON ({e}): {json}");
        }
    }
    assert_eq!(
        split_clean, whole_clean,
        "splitting changed whether the stream failed"
    );
    if split_clean {
        assert_eq!(split.to_json(), whole.to_json(), "splitting changed the chunks");
        assert_eq!(split.event_count(), whole.event_count());
    }

    // A BOM and other line ends change nothing, however the new bytes are split (a data
    // that starts with a BOM of its own would lose it to the added one: skipped).
    if input.data.starts_with(b"\xEF\xBB\xBF") {
        return;
    }
    let Some(other) = variant(&input.data, input.variant) else {
        return;
    };
    let mut rest = &other[..];
    let mut pieces = Vec::new();
    for &len in &input.variant_pieces {
        let (piece, tail) = rest.split_at((len as usize).min(rest.len()));
        pieces.push(piece);
        rest = tail;
    }
    pieces.push(rest);
    let mut changed = EventStream::new(framing);
    let changed_clean = run(&mut changed, &pieces);
    assert_eq!(
        changed_clean, whole_clean,
        "a BOM or CR line ends changed whether the stream failed"
    );
    if whole_clean {
        assert_eq!(
            changed.to_json(),
            whole.to_json(),
            "a BOM or CR line ends changed the chunks"
        );
        assert_eq!(changed.event_count(), whole.event_count());
    }
});
