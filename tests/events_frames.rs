//! The `events` fold reads an agent event straight from its frame's bytes. Whatever a
//! frame holds, pushing its bytes must fold exactly as pushing its parsed value: the
//! same messages, the same lines, the same skips and the same error.

use agent_chunks::bytes::value::parse;
use agent_chunks::formats::find;
use agent_chunks::live::conversation::Conversation;

/// Decides the stream: agent events, not an AI SDK UI message stream.
const FIRST: &str = r#"{"type":"text-delta","delta":"first"}"#;

/// `depth` arrays, one inside the other.
fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

fn frames() -> Vec<String> {
    let mut frames: Vec<String> = [
        r#"{"type":"text-delta","delta":"plain"}"#,
        r#"{"type":"text-delta","delta":"a\nb\t\"c\"\\ \u00e9 \/"}"#,
        r#"{"type":"text-delta","delta":"half \ud83d"}"#,
        r#"{"type":"text-delta","delta":"\ude00 other half"}"#,
        r#"{"type":"text-delta","delta":"pair \ud83d\ude00"}"#,
        r#"{ "delta" : "spaced" , "type" : "reasoning-delta" }"#,
        r#"{"type":"reasoning-end","metadata":{"b":1.0,"a":[1e400,-0,"x"],"a":2}}"#,
        r#"{"type":"reasoning-end"}"#,
        r#"{"type":"tool-call","toolCall":{"id":"c1","name":"read","arguments":{"path":"/a","n":10000000000000000000001}}}"#,
        r#"{"type":"tool-call","toolCall":{"id":"c\u0032","name":"x","arguments":"{\"raw\":true}","id":"c3"}}"#,
        r#"{"type":"tool-result","toolResult":{"toolCallId":"c1","result":{"ok":true}}}"#,
        r#"{"type":"tool-result","toolResult":{"toolCallId":"c3","result":null,"isError":true}}"#,
        r#"{"type":"shell-output","stream":"std\u006fut","data":"ls\n"}"#,
        r#"{"type":"shell-output","stream":"stderr","data":"no"}"#,
        r#"{"type":"shell-output","stream":"\ud800","data":"odd"}"#,
        r#"{"type":"error","error":"boom","statusCode":1e400}"#,
        r#"{"type":"error","error":"bad","statusCode":503}"#,
        r#"{"type":"notice","message":"note"}"#,
        r#"{"type":"model-changed","modelId":"m","keyId":"k"}"#,
        r#"{"type":"config-reload"}"#,
        r#"{"type":"status","status":"busy"}"#,
        r#"{"type":"done"}"#,
        r#"{"type":"turn-start","turnId":"t1"}"#,
        r#"{"type":"turn-start"}"#,
        r#"{"type":"text\u002ddelta","delta":"escaped tag"}"#,
        r#"{"\u0074ype":"text-delta","delta":"escaped key"}"#,
        r#"{"type":"bogus","type":"text-delta","delta":"last type wins"}"#,
        r#"{"type":"text-delta","type":"bogus","delta":"unknown wins"}"#,
        r#"{"type":"not-a-type-we-know","delta":"x"}"#,
        r#"{"type":"\ud83d","delta":"x"}"#,
        r#"{"type":5,"delta":"x"}"#,
        r#"{"delta":"no type"}"#,
        r#"["type","text-delta"]"#,
        r#"42"#,
        r#""text-delta""#,
        r#"{"type":"text-delta","delta":5}"#,
        r#"{"type":"text-delta"}"#,
        r#"{"type":"tool-call","toolCall":"c1"}"#,
        r#"{"type":"tool-call","toolCall":{"id":7,"name":"x"}}"#,
        r#"{"type":"tool-result","toolResult":{"result":1}}"#,
        r#"{"type":"shell-output","stream":1,"data":"x"}"#,
        r#"{"type":"error","error":"x","statusCode":"503"}"#,
    ]
    .iter()
    .map(|f| f.to_string())
    .collect();
    // Nesting at the value reader's limit is read; one more level is refused.
    for depth in [510, 511, 512, 600] {
        frames.push(format!(
            r#"{{"type":"text-delta","delta":"d","extra":{}}}"#,
            nested(depth)
        ));
        frames.push(format!(
            r#"{{"type":"tool-call","toolCall":{{"id":"n{depth}","name":"x","arguments":{}}}}}"#,
            nested(depth)
        ));
    }
    frames
}

/// The conversation of `frames` pushed as bytes, a line at a time, and what it ends with.
fn as_bytes(frames: &[&str]) -> String {
    let mut live = Conversation::new(find("events").unwrap(), Default::default()).unwrap();
    let mut errors = Vec::new();
    for frame in frames {
        if let Err((_, e)) = live.push_bytes(format!("{frame}\n").as_bytes()) {
            errors.push(e.error.to_string());
        }
    }
    let (messages, origins, skips) = live.finish();
    format!("{messages:?}\n{origins:?}\n{skips:?}\n{errors:?}")
}

/// The same, each frame parsed first and pushed as a value (a frame that does not parse
/// gives the parse error, as the bytes path says it; it must be the last, as it takes no
/// line here).
fn as_values(frames: &[&str]) -> String {
    let mut live = Conversation::new(find("events").unwrap(), Default::default()).unwrap();
    let mut errors = Vec::new();
    for (i, frame) in frames.iter().enumerate() {
        let pushed = match parse(frame.as_bytes()) {
            Ok(value) => live.push_value(value).map(|_| ()),
            Err(e) => {
                errors.push(format!("line {}: {e}", i + 1));
                continue;
            }
        };
        if let Err(e) = pushed {
            errors.push(e.to_string());
        }
    }
    let (messages, origins, skips) = live.finish();
    format!("{messages:?}\n{origins:?}\n{skips:?}\n{errors:?}")
}

#[test]
fn each_frame_from_its_bytes_folds_as_its_parsed_value() {
    for frame in frames() {
        let frames = [FIRST, frame.as_str()];
        assert_eq!(as_bytes(&frames), as_values(&frames), "frame {frame}");
    }
}

#[test]
fn a_frame_nested_past_the_limit_is_refused_from_its_bytes_too() {
    let deep = format!(r#"{{"type":"text-delta","delta":"d","extra":{}}}"#, nested(600));
    let mut live = Conversation::new(find("events").unwrap(), Default::default()).unwrap();
    live.push_bytes(format!("{FIRST}\n").as_bytes()).unwrap();
    let (_, error) = live.push_bytes(format!("{deep}\n").as_bytes()).unwrap_err();
    assert!(error.to_string().contains("nested deeper"), "{error}");
}

#[test]
fn all_frames_in_one_stream_fold_alike() {
    let frames = frames();
    let mut all: Vec<&str> = vec![FIRST];
    // Those that parse: one refused would shift the lines of the values after it.
    all.extend(
        frames
            .iter()
            .map(String::as_str)
            .filter(|f| parse(f.as_bytes()).is_ok()),
    );
    assert_eq!(as_bytes(&all), as_values(&all));
}
