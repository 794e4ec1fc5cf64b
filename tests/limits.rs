//! The limits of every path that reads bytes or JSON: each input is handled, or refused
//! with an error that names the limit and where it was hit; never a stack overflow, an
//! abort or a hang. (`__test__/limits.test.mjs` checks the same through the binding.)

use agent_chunks::bytes::value::{parse, ParseErrorKind, MAX_DEPTH};
use agent_chunks::formats::pi::session::read_session;

fn arrays(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// `depth` levels, objects and arrays in turn, with a scalar in the innermost one.
fn mixed(depth: usize) -> String {
    let mut open = String::new();
    let mut close = String::new();
    for level in 0..depth {
        if level % 2 == 0 {
            open.push_str("{\"k\":");
            close.insert(0, '}');
        } else {
            open.push('[');
            close.insert(0, ']');
        }
    }
    format!("{open}1{close}")
}

/// The offset of the bracket that opens level `MAX_DEPTH + 1` (no brackets in strings).
fn first_past_limit(text: &str) -> usize {
    let mut open = 0;
    text.bytes()
        .position(|b| {
            open += match b {
                b'[' | b'{' => 1,
                b']' | b'}' => -1,
                _ => 0,
            };
            open > MAX_DEPTH as i32
        })
        .unwrap()
}

#[test]
fn the_json_reader_takes_exactly_max_depth_levels() {
    for text in [arrays(MAX_DEPTH), mixed(MAX_DEPTH)] {
        let value = parse(text.as_bytes()).unwrap();
        assert_eq!(value.to_json(), text.as_bytes(), "written back as read");
    }
    for text in [arrays(MAX_DEPTH + 1), mixed(MAX_DEPTH + 1), arrays(100_000)] {
        let error = parse(text.as_bytes()).unwrap_err();
        assert_eq!(error.kind, ParseErrorKind::TooDeep);
        assert_eq!(
            error.offset,
            first_past_limit(&text),
            "the first bracket past the limit"
        );
        assert_eq!(
            error.to_string(),
            format!(
                "JSON nested deeper than the limit of 512 arrays and objects, at column {}",
                error.offset + 1
            )
        );
    }
}

#[test]
fn values_at_the_depth_limit_are_safe_on_a_small_stack() {
    // A Node worker's stack is 4 MB by default; values at the limit are read, written,
    // copied, compared and dropped in a quarter of that, even unoptimised (in an eighth,
    // the unoptimised build overflowed now and then: where a thread's stack starts varies).
    let text = mixed(MAX_DEPTH);
    std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            let value = parse(text.as_bytes()).unwrap();
            let copy = value.clone();
            assert_eq!(copy, value);
            assert_eq!(copy.to_json(), text.as_bytes());
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_pi_line_nested_too_deeply_names_the_limit_line_and_column() {
    let line = format!(
        r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"a","name":"n","arguments":{}}}]}}"#,
        arrays(100_000)
    );
    let session = format!("{{\"role\":\"user\",\"content\":\"hi\"}}\n{line}\n");
    // Read past (the line before it read), refused where it is when strict.
    assert_eq!(read_session(session.as_bytes()).unwrap().len(), 1);
    let strict = agent_chunks::formats::pi::session::SessionOptions {
        strict: true,
        ..Default::default()
    };
    let error = agent_chunks::formats::pi::session::read_session_with(session.as_bytes(), strict, |_| true)
        .unwrap_err();
    let column = first_past_limit(&line) + 1;
    assert_eq!(
        error.to_string(),
        format!("line 2: JSON nested deeper than the limit of 512 arrays and objects, at column {column}")
    );
}

/// Runs `work` on its own thread and fails if it has not finished after `seconds`: a
/// guard against a hang (quadratic work on a large input), not a speed test.
fn finishes_within<T: Send + 'static>(seconds: u64, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || sender.send(work()));
    receiver
        .recv_timeout(std::time::Duration::from_secs(seconds))
        .unwrap_or_else(|_| panic!("still running after {seconds} s"))
}

#[test]
fn an_object_with_a_million_keys_reads_in_linear_time() {
    use agent_chunks::bytes::value::Json;
    let keys = 1_000_000;
    let mut text = String::from("{");
    for i in 0..keys {
        text.push_str(&format!("\"k{i}\":{i},"));
    }
    // Repeated keys, early and late, keep their place and take the last value.
    text.push_str("\"k0\":\"first\",\"k999999\":\"last\",\"k40\":\"forty\"}");
    let value = finishes_within(120, move || parse(text.as_bytes()).unwrap());
    let Json::Object(fields) = &value else {
        panic!("not an object")
    };
    assert_eq!(fields.len(), keys);
    assert_eq!(fields[0].1, Json::string("first"));
    assert_eq!(fields[40].1, Json::string("forty"));
    assert_eq!(fields[keys - 1].1, Json::string("last"));
    assert_eq!(fields[41], ("k41".into(), Json::Number("41".into())));
}

#[test]
fn a_long_line_arriving_in_small_pieces_is_scanned_once() {
    use agent_chunks::bytes::Framing;
    use agent_chunks::live::EventStream;
    // 20 MB of text in one event, pushed 1 KB at a time: scanning everything buffered on
    // each push would read 200 GB.
    let event = |text: &[u8]| [br#"{"type":"text-delta","delta":""#, text, b"\"}"].concat();
    let long = event(&vec![b'a'; 20_000_000]);
    let short = event(b"b");
    let ndjson = [&long[..], b"\n", &short, b"\n"].concat();
    let sse = [b"data: ", &long[..], b"\n\ndata: ", &short, b"\n\n"].concat();
    for (framing, bytes) in [
        (Framing::Ndjson, ndjson.clone()),
        (Framing::Auto, ndjson),
        (Framing::Sse, sse),
    ] {
        let stream = finishes_within(120, move || {
            let mut stream = EventStream::new(framing);
            for piece in bytes.chunks(1024) {
                stream.push(piece).unwrap();
            }
            stream.end().unwrap();
            stream
        });
        assert_eq!(stream.event_count(), 2);
        let json = stream.to_json();
        assert_eq!(json.len(), r#"[{"type":"text","text":""}]"#.len() + 20_000_001);
        assert!(json.ends_with("aab\"}]"));
    }
}

#[test]
fn a_batch_of_many_tool_calls_and_their_results_folds_in_linear_time() {
    use agent_chunks::bytes::Framing;
    use agent_chunks::live::EventStream;
    // 200,000 here (unoptimised); __test__/limits.test.mjs folds a million.
    const CALLS: usize = 200_000;
    let mut text = String::new();
    for i in 0..CALLS {
        text.push_str(&format!(
            "{{\"type\":\"tool-call\",\"toolCall\":{{\"id\":\"c{i}\",\"name\":\"n\",\"arguments\":{{}}}}}}\n"
        ));
    }
    // Results in the calls' order, the last one twice, one for no call; the id of call 7
    // spelled with an escape is the same id.
    for i in (0..CALLS).chain([CALLS - 1, CALLS]) {
        text.push_str(&format!(
            "{{\"type\":\"tool-result\",\"toolResult\":{{\"toolCallId\":\"c{i}\",\"result\":{i},\"isError\":false}}}}\n"
        ));
    }
    text.push_str(
        "{\"type\":\"tool-result\",\"toolResult\":{\"toolCallId\":\"\\u00637\",\"result\":\"escaped\"}}\n",
    );
    let stream = finishes_within(120, move || {
        let mut stream = EventStream::new(Framing::Ndjson);
        stream.push(text.as_bytes()).unwrap();
        stream.end().unwrap();
        stream
    });
    assert_eq!(stream.event_count() as usize, 2 * CALLS + 3);
    assert_eq!(stream.chunks().len(), 1, "one batch");
    let json = stream.to_json();
    assert!(json.starts_with(
        r#"[{"type":"tool-batch","calls":[{"id":"c0","name":"n","arguments":{},"result":0,"isError":false},"#
    ));
    assert!(json.contains(r#"{"id":"c7","name":"n","arguments":{},"result":"escaped"}"#));
    assert!(json.contains(r#"{"id":"c100000","name":"n","arguments":{},"result":100000,"isError":false}"#));
    assert!(
        json.ends_with(r#"{"id":"c199999","name":"n","arguments":{},"result":199999,"isError":false}]}]"#)
    );
}

#[test]
fn reconciling_arguments_with_many_keys_takes_linear_time() {
    use agent_chunks::bytes::value::Json;
    use agent_chunks::formats::sn::thought::reconcile;
    const KEYS: usize = 300_000;
    let object = |last: &str| {
        let mut text = String::from("{");
        for i in 0..KEYS - 1 {
            text.push_str(&format!("\"k{i}\":{i},"));
        }
        text.push_str(&format!("\"k{}\":\"{last}\"}}", KEYS - 1));
        text
    };
    let (streamed, persisted) = (object("streamed"), object("persisted"));
    let outcome = finishes_within(120, move || {
        let chunks = parse(
            format!(r#"[{{"type":"tool-batch","calls":[{{"id":"a","name":"n","arguments":{streamed}}}]}}]"#)
                .as_bytes(),
        )
        .unwrap();
        let Json::Array(chunks) = chunks else {
            unreachable!()
        };
        // Solar Network carries arguments as a JSON string.
        let arguments = String::from_utf8(Json::string(persisted.as_str()).to_json()).unwrap();
        let thought = format!(
            r#"{{"id":"t","role":0,"parts":[{{"type":1,"functionCall":{{"id":"a","name":"n","arguments":{arguments}}}}}]}}"#
        );
        let thought = parse(thought.as_bytes()).unwrap();
        reconcile(&chunks, &thought).unwrap()
    });
    let difference = outcome.1.expect("the last key differs");
    assert_eq!(
        difference.path,
        format!("chunks[0].calls[0].arguments.k{}", KEYS - 1)
    );
    assert_eq!(difference.streamed, Some(Json::string("streamed")));
    assert_eq!(difference.persisted, Some(Json::string("persisted")));
}

#[test]
fn pi_and_solar_network_histories_with_many_calls_and_results_read_in_linear_time() {
    use agent_chunks::bytes::value::Json;
    use agent_chunks::formats::sn::thought::read_thought;
    use agent_chunks::Chunk;
    // 200,000 here (unoptimised); the JavaScript tests read a million calls.
    const CALLS: usize = 200_000;
    let calls = |chunks: &[Chunk<_, Json>]| match &chunks[0] {
        Chunk::ToolBatch { calls } => calls.clone(),
        _ => panic!("not a batch"),
    };

    let mut session = String::from(r#"{"role":"assistant","content":["#);
    for i in 0..CALLS {
        session.push_str(&format!(
            r#"{{"type":"toolCall","id":"c{i}","name":"n","arguments":{i}}},"#
        ));
    }
    session.pop();
    session.push_str("]}\n");
    for i in 0..CALLS {
        session.push_str(&format!(
            "{{\"role\":\"toolResult\",\"toolCallId\":\"c{i}\",\"content\":\"r{i}\"}}\n"
        ));
    }
    let messages = finishes_within(120, move || read_session(session.as_bytes()).unwrap());
    let pi_calls = calls(&messages[0].chunks);
    assert_eq!(pi_calls.len(), CALLS);
    assert!(pi_calls
        .iter()
        .enumerate()
        .all(|(i, call)| { call.result == Some((Json::string(format!("r{i}")), Json::Bool(false))) }));

    let mut thought = String::from(r#"{"id":"t","role":0,"parts":["#);
    for i in 0..CALLS {
        thought.push_str(&format!(
            r#"{{"type":1,"functionCall":{{"id":"c{i}","name":"n","arguments":"{i}"}}}},"#
        ));
    }
    for i in 0..CALLS {
        thought.push_str(&format!(
            r#"{{"type":2,"functionResult":{{"callId":"c{i}","result":{i},"isError":true}}}},"#
        ));
    }
    thought.pop();
    thought.push_str("]}");
    let message = finishes_within(120, move || {
        read_thought(&parse(thought.as_bytes()).unwrap()).unwrap()
    });
    let sn_calls = calls(&message.chunks);
    assert_eq!(sn_calls.len(), CALLS);
    assert!(sn_calls
        .iter()
        .enumerate()
        .all(|(i, call)| { call.result == Some((Json::Number(i.to_string().into()), Json::Bool(true))) }));
}
