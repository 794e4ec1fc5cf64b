// Mechanics the binding runs inside V8, compiled once per environment: each replaces
// several N-API calls (or one per hole) with one. They decide nothing; the rules stay in
// Rust. Strict mode, as the original helper is: a write the target refuses (a frozen,
// sealed or non-extensible object, a read-only property, a Proxy trap returning false)
// throws the very TypeError the helper's own write throws. Built-ins are taken at load
// time, so later changes to the globals do not reach them.
(function () {
  'use strict';
  const deleteProperty = Reflect.deleteProperty;
  const apply = Reflect.apply;
  const builtinPush = Array.prototype.push;
  const bind = Function.prototype.bind;
  const isArray = Array.isArray;
  const create = Object.create;
  // The plans of `makeAppend` (entry.rs, `Plan`).
  const NOTHING = 0;
  const LAST_FIRST = 1;
  // What the native side leaves to `appendEventToChunks` (entry.rs, `Handoff`).
  const EXTEND_LAST = 1;
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
    // `array.push(value)` (as `push`) of a new object of a shape the rules create, its
    // keys in the helper's order (a literal, as the helper's): 0 `{ type: a, text: b }`,
    // 1 `{ type: a, kind: b, text: c }`, 2 `{ type: a, message: b }`, 3 the same, then
    // assigned `statusCode: c` (an assignment, as the helper's), 4 `{ type: a, calls:
    // [{ id: b, name: c, arguments: d }] }`, 5 `{ id: b, name: c, arguments: d }`. One
    // call instead of one to make the object, one to define its keys and one to push it.
    function pushNew(array, shape, a, b, c, d) {
      let value;
      switch (shape) {
        case 0: value = { type: a, text: b }; break;
        case 1: value = { type: a, kind: b, text: c }; break;
        case 2: value = { type: a, message: b }; break;
        case 3: value = { type: a, message: b }; value.statusCode = c; break;
        case 4: value = { type: a, calls: [{ id: b, name: c, arguments: d }] }; break;
        default: value = { id: b, name: c, arguments: d };
      }
      return push(array, value);
    },
    // The helper's `entry.shellOutput = { stdout: stdout + out, stderr: stderr + err }`,
    // with the previous streams read before.
    function setShellOutput(entry, stdout, out, stderr, err) {
      entry.shellOutput = { stdout: stdout + out, stderr: stderr + err };
    },
    extendFrom,
    // Makes the drop-in's `appendEventToChunks`: it reads what the helper reads first,
    // in the helper's order, and hands that to the native `read`, which decides. First
    // the event's `type`; `plans[i]` (the binding's, from its rules) says what comes next
    // for `tags[i]` (and the last one for any other string): NOTHING, for an event that changes nothing (no call is made);
    // LAST_FIRST, for an event whose rule looks at the last chunk before the event's
    // payload: the array's `length`, its last element and that element's `type`; else
    // nothing more. An argument that is no array or no object goes to `plain`, which
    // refuses it. `given` are the names and functions the native side uses, bound once
    // as its first arguments.
    function makeAppend(read, plain, tags, plans, given) {
      const codes = create(null);
      for (let i = 0; i < tags.length; i++) codes[tags[i]] = i;
      const otherPlan = plans[tags.length];
      const native = apply(bind, read, [undefined, ...given]);
      return function appendEventToChunks(chunks, event) {
        if (!isArray(chunks) || event === null || (typeof event !== 'object' && typeof event !== 'function')) {
          return plain(chunks, event);
        }
        const type = event.type;
        const code = typeof type === 'string' ? codes[type] : undefined;
        if (code === undefined) {
          // A string that is no known tag has the plan after the tags'.
          if (typeof type === 'string' && otherPlan === NOTHING) return undefined;
          return native(chunks, event, type, -1, undefined, false);
        }
        const plan = plans[code];
        if (plan === NOTHING) return undefined;
        if (plan !== LAST_FIRST) return native(chunks, event, type, code, undefined, false);
        const length = chunks.length;
        if (typeof length === 'number' && length >= 1 && length <= 9007199254740991 && length % 1 === 0) {
          const last = chunks[length - 1];
          if (native(chunks, event, type, code, length, true, last, last ? last.type : undefined) === EXTEND_LAST) {
            // The rules extend `last` with the delta: read, checked and joined here.
            const refused = extendFrom(last, event);
            if (refused !== undefined) native(chunks, event, type, code, undefined, false, undefined, undefined, true, refused[0]);
          }
          return undefined;
        }
        return native(chunks, event, type, code, length, false);
      };
    },
  ];
})()
