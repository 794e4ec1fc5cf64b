// Mechanics the binding runs inside V8, compiled once per environment: each replaces
// several N-API calls (or one per hole) with one. They decide nothing; the rules stay in
// Rust. Strict mode, as the original helper is: a write the target refuses (a frozen,
// sealed or non-extensible object, a read-only property, a Proxy trap returning false)
// throws the very TypeError the helper's own write throws. Built-ins are taken at load
// time, so later changes to the globals do not reach them.
(function () {
  'use strict';
  const deleteProperty = Reflect.deleteProperty;
  const reflectSet = Reflect.set;
  const apply = Reflect.apply;
  const builtinPush = Array.prototype.push;
  const bind = Function.prototype.bind;
  const isArray = Array.isArray;
  const create = Object.create;
  const hasOwnProperty = Object.prototype.hasOwnProperty;
  // What `findCall` found wrong (mechanics.rs, `FoundCall`).
  const CALLS_NOT_ARRAY = -2;
  const NO_ENTRY = -3;
  const CALLS_LENGTH = -4;
  // What `shellOutputFrom` refuses (mechanics.rs, `ShellRefusal`).
  const SHELL_STREAM = 1;
  const SHELL_DATA = 2;
  const SHELL_ENTRY = 3;
  // The plans of `makeAppend` (entry.rs, `Plan`).
  const NOTHING = 0;
  const LAST_FIRST = 1;
  const FIELD_THEN_LAST = 3;
  // The fields of the event the front reads before the call (decode.rs, `Prefetch`).
  const READ_ONE = 1;
  const READ_STRING_THEN = 2;
  const READ_OBJECT_THEN = 3;
  const READ_CALL = 4;
  // What the native side leaves to `appendEventToChunks` (entry.rs, `Handoff`): 1, or a
  // chunk to push (8 or more, see `handOff`).
  const EXTEND_LAST = 1;
  // The operands of a hand-back (chunks.rs, `DELTA`, `CONSTANTS`): 1 to 4 the fields read before
  // the call, DELTA the event's delta, CONSTANTS and above the constants.
  const DELTA = 5;
  const CONSTANTS = 8;
  // Codes of a call for the native side to refuse what the front found wrong, with the
  // event's own code where the length goes and the value refused where the last element
  // goes (entry.rs, `REFUSED_DELTA`, `REFUSED_LENGTH`).
  const REFUSED_DELTA = -3;
  const REFUSED_LENGTH = -4;
  // The same for the `calls` of the last chunk, with its index where the length goes:
  // no array, a length no array has, a length no array-like can have for a push.
  const REFUSED_CALLS = -5;
  const REFUSED_CALLS_LENGTH = -6;
  const REFUSED_CALLS_PUSH = -7;
  // The shape of `pushNew` that makes a call entry, pushed onto the last chunk's `calls`.
  const CALL = 5;
  // The code of an event none of whose fields were read (entry.rs, `UNREAD`).
  const UNREAD = -2;
  // Where a call comes from (entry.rs, `At`): `appendEventToChunks`, or a batch's joined
  // deltas; an event of a batch is its index.
  const ALONE = -1;
  const NO_INDEX = -2;
  // `array.push(value)`, as the helper calls it. The built-in `push` runs step by step:
  // read the length, write the element, write the length; the element is taken back
  // when the length cannot follow, so a refusal changes nothing. A `push` of the
  // caller's own (a subclass, an observable array) is called as it is. Returns true,
  // or `[length]` when the length is one no array-like can have (a string, a Symbol,
  // a fraction, 2^53 - 1 or more).
  function push(array, value) {
    const method = array.push;
    if (method !== builtinPush) {
      apply(method, array, [value]);
      return true;
    }
    const length = array.length;
    if (typeof length !== 'number' || !(length >= 0 && length < 9007199254740991) || length % 1 !== 0) {
      return [length];
    }
    array[length] = value;
    try {
      array.length = length + 1;
    } catch (error) {
      deleteProperty(array, length);
      throw error;
    }
    return true;
  }
  // The helper's `last.text += event.delta`: the text, then the delta, read in that
  // order; the write only when the delta is a string, else `[delta]` is returned
  // for the binding to refuse.
  function extendFrom(chunk, event) {
    const text = chunk.text;
    const delta = event.delta;
    if (typeof delta !== 'string') return [delta];
    chunk.text = text + delta;
    return undefined;
  }
  // `array.push(value)` (as `push`) of a new object of a shape the rules create, its
  // keys in the helper's order (a literal, as the helper's): 0 `{ type: a, text: b }`,
  // 1 `{ type: a, kind: b, text: c }`, 2 `{ type: a, message: b }`, 3 the same, then
  // assigned `statusCode: c` (an assignment, as the helper's), 4 `{ type: a, calls:
  // [{ id: b, name: c, arguments: d }] }`, 5 `{ id: b, name: c, arguments: d }`, 6
  // `{ type: a, kind: b, text: c + d + e + f + g }` (a text the rules compose). One
  // call instead of one to make the object, one to define its keys and one to push it.
  function pushNew(array, shape, a, b, c, d, e, f, g) {
    let value;
    switch (shape) {
      case 0: value = { type: a, text: b }; break;
      case 1: value = { type: a, kind: b, text: c }; break;
      case 2: value = { type: a, message: b }; break;
      case 3: value = { type: a, message: b }; value.statusCode = c; break;
      case 4: value = { type: a, calls: [{ id: b, name: c, arguments: d }] }; break;
      case 6: value = { type: a, kind: b, text: c + d + e + f + g }; break;
      default: value = { id: b, name: c, arguments: d };
    }
    return push(array, value);
  }
  return [
    // The nearest element at or before `from` that is truthy, as `[index, element]`, or
    // -1. Reads each element once through [[Get]], as the helper's walk does (getters,
    // Proxies, inherited elements), at its speed.
    function skipFalsy(array, from) {
      for (let i = from; i >= 0; i--) {
        const element = array[i];
        if (element) return [i, element];
      }
      return -1;
    },
    // The index of the newest element at or before `from` that is truthy and whose
    // `type` is `tag`, or -1: the helper's walk back (`chunks[i]`, then its `type` when
    // it is truthy), each element read once, at its speed.
    function newestOfType(array, from, tag) {
      for (let i = from; i >= 0; i--) {
        const element = array[i];
        if (element && element.type === tag) return i;
      }
      return -1;
    },
    // The helper's `last.text += delta`, with the text read earlier (before the delta).
    function extendText(chunk, text, delta) {
      chunk.text = text + delta;
    },
    // `object[key] = value`.
    function assign(object, key, value) {
      object[key] = value;
    },
    push,
    pushNew,
    // The call entry's side of shell output, in one call, read as the binding reads it
    // (chunks.rs, `shell_output_from`): the entry's `shellOutput` and, unless it is
    // `undefined` or `null`, its `stdout`; the event's `stream`, then its `data`; the
    // previous `stderr`; then the helper's `entry.shellOutput = { stdout: stdout + out,
    // stderr: stderr + err }`, with `data` as the output of the stream whose name
    // (`stdout` or `stderr`, the binding's) `stream` is. Returns undefined once written,
    // or what the binding refuses, unwritten: `[SHELL_STREAM, stream]` (no string),
    // `[SHELL_DATA, stream, data]` (no string), `[SHELL_ENTRY]` (an entry that is
    // no object).
    function shellOutputFrom(entry, event, stdoutName, stderrName) {
      const previous = entry.shellOutput;
      const none = previous === undefined || previous === null;
      const stdout = none ? '' : previous.stdout;
      const stream = event.stream;
      if (typeof stream !== 'string') return [SHELL_STREAM, stream];
      const data = event.data;
      if (typeof data !== 'string') return [SHELL_DATA, stream, data];
      if (entry === null || (typeof entry !== 'object' && typeof entry !== 'function')) {
        return [SHELL_ENTRY];
      }
      const stderr = none ? '' : previous.stderr;
      entry.shellOutput = {
        stdout: stdout + (stream === stdoutName ? data : ''),
        stderr: stderr + (stream === stderrName ? data : ''),
      };
      return undefined;
    },
    extendFrom,
    // The newest call whose `id` is `id` in the newest truthy elements at or before
    // `from` whose `type` is `tag` (batches), read as the helper's walk and `find` read
    // them: each element once and its `type`, the batch found once more and its
    // `calls`, each entry and its `id`. `[index, position, entry]`, or -1 when there is
    // none; `[CALLS_NOT_ARRAY, index]`, `[NO_ENTRY, index, position]` or `[CALLS_LENGTH,
    // index, length]` where the binding refuses what it found.
    function findCall(array, from, tag, id) {
      for (let i = from; i >= 0; i--) {
        const element = array[i];
        if (!element || element.type !== tag) continue;
        const batch = array[i];
        const calls = batch === undefined || batch === null ? undefined : batch.calls;
        if (!isArray(calls)) return [CALLS_NOT_ARRAY, i];
        const length = calls.length;
        if (typeof length !== 'number' || !(length >= 0 && length <= 9007199254740991) || length % 1 !== 0) {
          return [CALLS_LENGTH, i, length];
        }
        for (let p = 0; p < length; p++) {
          const entry = calls[p];
          if (entry === undefined || entry === null) return [NO_ENTRY, i, p];
          if ((typeof entry === 'object' || typeof entry === 'function') && entry.id === id) return [i, p, entry];
        }
      }
      return -1;
    },
    // The helper's `call.result = toolResult.result; call.isError = toolResult.isError`,
    // each read just before its write; when the second read or write throws, `result` is
    // put back as it was (or deleted where it was not an own property) and the first
    // error is thrown.
    function setResult(entry, toolResult) {
      const result = toolResult.result;
      const had = apply(hasOwnProperty, entry, ['result']);
      const old = entry.result;
      entry.result = result;
      try {
        entry.isError = toolResult.isError;
      } catch (error) {
        try {
          if (had) entry.result = old;
          else deleteProperty(entry, 'result');
        } catch (ignored) {
          // The undo's own error gives way to the first.
        }
        throw error;
      }
    },
    // Makes the drop-in's `appendEventToChunks` and `appendEventsToChunks`: they read
    // what the helper reads first, in the helper's order, and hand that to the native
    // `read`, which decides. First the event's `type`; `plans[i]` (the binding's, from
    // its rules) says what comes next for `tags[i]` (and the last one for any other
    // string): NOTHING, for an event that changes nothing (no call is made); LAST_FIRST,
    // for an event whose rule looks at the last chunk before the event's payload: the
    // array's `length`, its last element and that element's `type`; FIELD_THEN_LAST, the
    // event's one field (`keys[4 * i]`), then unless it is `undefined` what LAST_FIRST
    // reads; else nothing more.
    // Then `reads[i]` says which of the event's fields the rules read next, before
    // anything else (`keys[4 * i …]` names them): each is read only when the one before
    // it is what the rules check it to be, so that no field is read that the rules would
    // not read. An argument that is no array or no object goes to `plain` (`plainMany`
    // for the batch), which refuses it. `given` are the names and functions the native
    // side uses, bound once as its first arguments; `constants` the strings its
    // hand-backs name (see `handOff`); `joined` the two types of delta a batch joins.
    function makeAppend(read, plain, plainMany, tags, plans, reads, keys, constants, joined, given) {
      const codes = create(null);
      for (let i = 0; i < tags.length; i++) codes[tags[i]] = i;
      const otherPlan = plans[tags.length];
      const native = apply(bind, read, [undefined, ...given]);
      const TEXT_DELTA = joined[0];
      const REASONING_DELTA = joined[1];
      function isObject(value) {
        return value !== null && (typeof value === 'object' || typeof value === 'function');
      }
      // An operand of a hand-back (chunks.rs, `DELTA`, `CONSTANTS`): a field read before the call,
      // the event's delta read now, or a constant.
      function operand(o, f0, f1, f2, f3, delta) {
        if (o >= CONSTANTS) return constants[o - CONSTANTS];
        switch (o) {
          case 1: return f0;
          case 2: return f1;
          case 3: return f2;
          case 4: return f3;
          case DELTA: return delta;
          default: return '';
        }
      }
      // Pushes the new chunk the native side handed back: `handoff` is 8 * (the operands,
      // seven digits in base 128, the first lowest) + the shape of `pushNew`. The chunk is
      // made here as a literal; which chunk and of what is the native side's decision.
      function handOff(handoff, chunks, event, type, code, at, f0, f1, f2, f3, length, last) {
        const shape = handoff % 8;
        let rest = (handoff - shape) / 8;
        const ops = [0, 0, 0, 0, 0, 0, 0];
        let wantsDelta = false;
        for (let i = 0; i < 7; i++) {
          const o = rest % 128;
          ops[i] = o;
          if (o === DELTA) wantsDelta = true;
          rest = (rest - o) / 128;
        }
        let delta;
        if (wantsDelta) {
          // The helper reads the delta as it makes the chunk.
          delta = event.delta;
          if (typeof delta !== 'string') {
            return native(chunks, event, type, REFUSED_DELTA, code, false, delta, undefined, undefined, undefined, undefined, undefined, at);
          }
        }
        let target = chunks;
        let refusal = REFUSED_LENGTH;
        let at0 = code;
        if (shape === CALL) {
          // An entry for the batch that is the last chunk (`last`), read as the binding
          // reads it: its `calls`, that it is an array, its length.
          const batch = last;
          const index = length - 1;
          target = batch === undefined || batch === null ? undefined : batch.calls;
          if (!isArray(target)) {
            return native(chunks, event, type, REFUSED_CALLS, index, false, undefined, undefined, undefined, undefined, undefined, undefined, at);
          }
          const count = target.length;
          if (typeof count !== 'number' || !(count >= 0 && count <= 9007199254740991) || count % 1 !== 0) {
            return native(chunks, event, type, REFUSED_CALLS_LENGTH, index, false, count, undefined, undefined, undefined, undefined, undefined, at);
          }
          refusal = REFUSED_CALLS_PUSH;
          at0 = index;
        }
        const done = pushNew(
          target,
          shape,
          operand(ops[0], f0, f1, f2, f3, delta),
          operand(ops[1], f0, f1, f2, f3, delta),
          operand(ops[2], f0, f1, f2, f3, delta),
          operand(ops[3], f0, f1, f2, f3, delta),
          operand(ops[4], f0, f1, f2, f3, delta),
          operand(ops[5], f0, f1, f2, f3, delta),
          operand(ops[6], f0, f1, f2, f3, delta),
        );
        if (done !== true) {
          return native(chunks, event, type, refusal, at0, false, done[0], undefined, undefined, undefined, undefined, undefined, at);
        }
        return undefined;
      }
      // The event's fields the rules read first (see `reads`), then the call.
      function call(chunks, event, type, code, length, hasLast, last, lastType, at, read) {
        let f0 = read;
        let f1, f2, f3;
        switch (reads[code]) {
          case READ_ONE:
            f0 = event[keys[4 * code]];
            break;
          case READ_STRING_THEN:
            f0 = event[keys[4 * code]];
            if (typeof f0 === 'string') f1 = event[keys[4 * code + 1]];
            break;
          case READ_OBJECT_THEN:
            f0 = event[keys[4 * code]];
            if (isObject(f0)) f1 = f0[keys[4 * code + 1]];
            break;
          case READ_CALL:
            f0 = event[keys[4 * code]];
            if (isObject(f0)) {
              f1 = f0[keys[4 * code + 1]];
              if (typeof f1 === 'string') {
                f2 = f0[keys[4 * code + 2]];
                if (typeof f2 === 'string') f3 = f0[keys[4 * code + 3]];
              }
            }
            break;
        }
        // Without fields read (then all are undefined), and outside a batch, the arguments
        // after the last chunk's are left out (the native side reads them as undefined):
        // the WebAssembly build makes a handle for each argument passed.
        const verdict = at === ALONE && f0 === undefined
          ? native(chunks, event, type, code, length, hasLast, last, lastType)
          : native(chunks, event, type, code, length, hasLast, last, lastType, f0, f1, f2, f3, at);
        if (verdict === undefined || verdict === null) return undefined;
        if (verdict === EXTEND_LAST) {
          // The rules extend `last` with the delta: read, checked and joined here.
          const refused = extendFrom(last, event);
          if (refused !== undefined) {
            native(chunks, event, type, REFUSED_DELTA, code, false, refused[0], undefined, undefined, undefined, undefined, undefined, at);
          }
          return undefined;
        }
        return handOff(verdict, chunks, event, type, code, at, f0, f1, f2, f3, length, last);
      }
      // `at`: the event's index in a batch, NO_INDEX for a batch's joined deltas, or
      // ALONE for `appendEventToChunks`; the native side names its errors after it.
      function append(chunks, event, at) {
        if (!isArray(chunks) || !isObject(event)) {
          if (at === ALONE) return plain(chunks, event);
          return native(chunks, event, undefined, UNREAD, undefined, false, undefined, undefined, undefined, undefined, undefined, undefined, at);
        }
        const type = event.type;
        const code = typeof type === 'string' ? codes[type] : undefined;
        if (code === undefined) {
          // A string that is no known tag has the plan after the tags'.
          if (typeof type === 'string' && otherPlan === NOTHING) return undefined;
          return native(chunks, event, type, -1, undefined, false, undefined, undefined, undefined, undefined, undefined, undefined, at);
        }
        const plan = plans[code];
        if (plan === NOTHING) return undefined;
        let field;
        if (plan === FIELD_THEN_LAST) {
          field = event[keys[4 * code]];
          if (field === undefined) return call(chunks, event, type, code, undefined, false, undefined, undefined, at, field);
        } else if (plan !== LAST_FIRST) {
          return call(chunks, event, type, code, undefined, false, undefined, undefined, at);
        }
        const length = chunks.length;
        if (typeof length === 'number' && length >= 1 && length <= 9007199254740991 && length % 1 === 0) {
          const last = chunks[length - 1];
          return call(chunks, event, type, code, length, true, last, last ? last.type : undefined, at, field);
        }
        return call(chunks, event, type, code, length, false, undefined, undefined, at, field);
      }
      // A run of consecutive text (or reasoning) deltas of a batch, joined, folded as one
      // delta: the same text as one fold per delta (see batch.rs).
      function flush(chunks, type, text) {
        if (type !== undefined) append(chunks, { type, delta: text }, NO_INDEX);
      }
      return [
        function appendEventToChunks(chunks, event) {
          return append(chunks, event, ALONE);
        },
        // `appendEventsToChunks`, as batch.rs does it: the events in order, each read as
        // `appendEventToChunks` reads it, with runs of deltas joined first.
        function appendEventsToChunks(chunks, events) {
          if (!isArray(chunks) || !isArray(events)) return plainMany(chunks, events);
          let runType;
          let text = '';
          for (let i = 0; i < events.length; i++) {
            let event;
            let delta;
            let type;
            try {
              event = events[i];
              if (typeof event === 'object' && event !== null && !isArray(event)) {
                type = event.type;
                if (type === TEXT_DELTA || type === REASONING_DELTA) delta = event.delta;
              }
            } catch (error) {
              // The deltas before a failing read are applied first.
              flush(chunks, runType, text);
              throw error;
            }
            if (typeof delta === 'string') {
              if (type === runType) {
                text += delta;
              } else {
                flush(chunks, runType, text);
                runType = type;
                text = delta;
              }
              continue;
            }
            flush(chunks, runType, text);
            runType = undefined;
            text = '';
            append(chunks, event, i);
          }
          flush(chunks, runType, text);
          return undefined;
        },
      ];
    },
    // A push into a `Conversation` (its own messages, `mutable`) that changed one text by
    // appending (a streamed delta), or nothing (`message` -1): `added` appended to the
    // text of chunk `chunk` of message `message` (a rope, as `+` makes it) — or, with
    // `call` (the call object of the chunk, as read already; else undefined), to its
    // `arguments` and, with `mirror`, to its `meta[mirror].arguments` (a call's streamed
    // input) — and the push's changes
    // made as a literal. One call instead of a read per level, a join, a write and a
    // `JSON.parse` of the changes. The write is N-API's `napi_set_property`, as the other
    // syncs make it: a refusal is ignored.
    function pushed(messages, message, chunk, added, call, mirror) {
      if (message < 0) return { added: [], changed: [] };
      if (added !== '') {
        if (call === undefined) {
          // Not where it was (the caller froze or cut the array, or replaced a message or
          // its chunks): undefined, and the push is synced as the others are.
          const held = messages[message];
          const chunks = typeof held === 'object' && held !== null ? held.chunks : undefined;
          const target = typeof chunks === 'object' && chunks !== null ? chunks[chunk] : undefined;
          if (typeof target !== 'object' || target === null) return undefined;
          reflectSet(target, 'text', target.text + added);
        } else {
          reflectSet(call, 'arguments', call.arguments + added);
          const meta = mirror === undefined ? undefined : call.meta;
          const held = typeof meta === 'object' && meta !== null ? meta[mirror] : undefined;
          if (typeof held === 'object' && held !== null) reflectSet(held, 'arguments', held.arguments + added);
        }
      }
      return { added: [], changed: [{ index: message, chunks: [chunk] }] };
    },
  ];
})()
