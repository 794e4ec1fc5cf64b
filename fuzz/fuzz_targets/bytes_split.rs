//! `EventStream` fed the same bytes in arbitrary pieces, in any framing: it never panics,
//! a stream without errors ends with the chunks of a single push, and its output is always
//! ASCII JSON.

#![no_main]

use agent_chunks::bytes::{EventStream, Framing};
use agent_chunks::formats::value;
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Input {
    framing: u8,
    /// Lengths of the pieces; what is left after them is the last piece.
    pieces: Vec<u16>,
    data: Vec<u8>,
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
    for len in input.pieces {
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
});
