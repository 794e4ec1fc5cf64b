// The reading front of the webui adapters (`adaptACPMessages`, `adaptJSONLMessages`),
// compiled once per environment (see `readers.rs`). It decides nothing: it reads the
// fields the adapter's rule may read, once each, into flat arrays (a snapshot), hands
// them to the rule in Rust in one call, and builds the rows the rule returns as object
// literals. Reading and writing field by field through N-API cost ~20× the plain-JS
// adapter; in V8 the same reads and literals cost what the plain adapter's do.
//
// Whatever the snapshot cannot answer exactly (a value that is not what the rule
// expects, a getter that throws, a read the plan does not hold) is no guess: the call is
// made again through the plain entry point, which reads the caller's values itself and
// throws the rule's own error.
(function () {
  'use strict';
  const isArray = Array.isArray;
  const apply = Reflect.apply;
  const JSDate = Date;
  const getTime = Date.prototype.getTime;
  const dateNow = Date.now;
  // `ValueType` (decode.rs) codes, and the bits kept with them (readers.rs).
  const UNDEFINED = 0;
  const NULL = 1;
  const BOOLEAN = 2;
  const NUMBER = 3;
  const BIGINT = 4;
  const STRING = 5;
  const SYMBOL = 6;
  const FUNCTION = 7;
  const ARRAY = 8;
  const OBJECT = 9;
  const NOT_READ = 15;
  const TRUTHY = 16;
  // What a field of the plan is read for (readers.rs, `Field`).
  const TAG = 1;
  const TIME = 2;
  const LIST = 4;
  const KEEP = 8;

  function kindOf(value) {
    if (typeof value === 'string') return STRING;
    if (typeof value === 'object') return value === null ? NULL : isArray(value) ? ARRAY : OBJECT;
    if (typeof value === 'number') return NUMBER;
    if (typeof value === 'undefined') return UNDEFINED;
    if (typeof value === 'boolean') return BOOLEAN;
    if (typeof value === 'function') return FUNCTION;
    return typeof value === 'bigint' ? BIGINT : SYMBOL;
  }

  const readable = (value) => value !== null && (typeof value === 'object' || typeof value === 'function');

  function grown(array, size) {
    const larger = new array.constructor(Math.max(size, array.length * 2));
    larger.set(array);
    return larger;
  }

  // A LIST field's elements, two slots each (the element, then its `key` field), from
  // element `listed` on; returns the count of elements after them. `numbers[at]` is the
  // array's length (NaN: none an array may have), `starts[at]` where they start.
  function readList(s, at, array, key) {
    const length = array.length;
    if (typeof length !== 'number' || !(length >= 0 && length <= 4294967295) || length % 1 !== 0) {
      s.numbers[at] = NaN;
      return;
    }
    s.numbers[at] = length;
    s.starts[at] = s.listed;
    if (2 * (s.listed + length) > s.elementKinds.length) s.elementKinds = grown(s.elementKinds, 2 * (s.listed + length));
    const { elements, elementKinds } = s;
    for (let j = 0, e = 2 * s.listed; j < length; j++, e += 2) {
      const element = array[j];
      elements[e] = element;
      elementKinds[e] = kindOf(element) | (element ? TRUTHY : 0);
      if (readable(element)) {
        const text = element[key];
        elements[e + 1] = text;
        elementKinds[e + 1] = kindOf(text) | (text ? TRUTHY : 0);
      } else {
        elements[e + 1] = undefined;
        elementKinds[e + 1] = NOT_READ;
      }
    }
    s.listed += length;
  }

  // The snapshot of `items` (an array of `count`): per item its own slot, then one slot
  // per field of the plan (`parents[f]` is the field it is read from, -1 the item; a
  // field of a value that is no object is not read). Per slot the value, its kind (and
  // truthiness), for TAG fields its place in `tags` (0: none of them), for TIME fields
  // `new Date(value).getTime()` of a string or number, for LIST fields the array's
  // length and where its elements start in the element region (see `readList`). Only the
  // values of KEEP fields (those a row may hold) are kept, one array per field: one
  // array per field stays small enough for the young generation, where storing into
  // it costs no write barrier.
  //
  // The loop is written out for the plan (the keys as constants), so that each read is
  // a property access V8 can cache, as the plain adapter's are.
  //
  // A field with a condition (`whens[f]`: a TAG field and the places in `tags` it may
  // have; empty for none) is read only when it holds: the rule reads it only then.
  function compileSnapshot(keys, parents, flags, whens, listKey, tags) {
    const width = keys.length + 1;
    const lines = [];
    // A string's place in `tags` (0: none of them), by comparison with each.
    const tagOf = (value) => tags.reduceRight((rest, tag, i) => `${value} === ${JSON.stringify(tag)} ? ${i + 1} : ${rest}`, '0');
    for (let f = 0; f < keys.length; f++) {
      const parent = `v${parents[f] + 1}`;
      const value = `v${f + 1}`;
      const at = `at + ${f + 1}`;
      const when = whens[f].length === 0
        ? ''
        : ` && (${whens[f].slice(1).map((code) => `tags[at + ${whens[f][0] + 1}] === ${code}`).join(' || ')})`;
      lines.push(
        `let ${value};`,
        `if (readable(${parent})${when}) {`,
        `  ${value} = ${parent}[${JSON.stringify(keys[f])}];`,
        ...(flags[f] & KEEP ? [`  columns[${f}][i] = ${value};`] : []),
        `  const kind = kindOf(${value});`,
        `  kinds[${at}] = kind | (${value} ? TRUTHY : 0);`,
      );
      if (flags[f] & TAG) lines.push(`  if (kind === STRING) tags[${at}] = ${tagOf(value)};`);
      if (flags[f] & TIME) lines.push(`  if (kind === STRING || kind === NUMBER) numbers[${at}] = apply(getTime, new JSDate(${value}), []);`);
      if (flags[f] & LIST) lines.push(`  if (kind === ARRAY) readList(s, ${at}, ${value}, ${JSON.stringify(listKey)});`);
      lines.push('} else {', `  kinds[${at}] = NOT_READ;`, '}');
    }
    const body = [
      '"use strict";',
      'return function snapshot(items, count, s) {',
      '  const { columns, kinds, tags, numbers } = s;',
      `  for (let i = 0, at = 0; i < count; i++, at += ${width}) {`,
      '    const v0 = items[i];',
      '    kinds[at] = kindOf(v0) | (v0 ? TRUTHY : 0);',
      ...lines.map((line) => `    ${line}`),
      '  }',
      '};',
    ].join('\n');
    const constants = { kindOf, readable, readList, apply, getTime, JSDate, TRUTHY, NOT_READ, STRING, NUMBER, ARRAY };
    const names = Object.keys(constants);
    return apply(Function, undefined, [...names, body])(...names.map((name) => constants[name]));
  }

  // The rows of `out` (readers.rs, `encode`): per row its id, type, timestamp, content
  // and toolCall as a kind and a value, then the timeline flags; values are slots of the
  // snapshot, names or numbers. Keys in the seed's order, as literals make them.
  const ROW = 12;
  // A value of the snapshot by its handle (readers.rs, `Snapshot`).
  const ELEMENT = 2147483648;
  function build(out, columns, elements, names) {
    const at = (handle) => (handle < ELEMENT ? columns[(handle & 15) - 1][handle >>> 4] : elements[handle - ELEMENT]);
    const count = out[0];
    let now = out[1] === 1 ? out[2] : undefined;
    const pieces = 3 + count * ROW;
    const rows = [];
    for (let r = 0, o = 3; r < count; r++, o += ROW) {
      const idKind = out[o];
      const id = idKind === 0 ? at(out[o + 1]) : idKind === 1 ? 'msg-' + out[o + 1] : 'tool-' + at(out[o + 1]);
      const type = out[o + 2] === 0 ? at(out[o + 3]) : names[out[o + 3]];
      let timestamp;
      switch (out[o + 4]) {
        case 0:
          if (now === undefined) now = dateNow();
          timestamp = now;
          break;
        case 1: timestamp = at(out[o + 5]); break;
        default: timestamp = out[o + 5];
      }
      const contentKind = out[o + 6];
      let content;
      if (contentKind === 1) content = at(out[o + 7]);
      else if (contentKind === 2) {
        const start = pieces + out[o + 7];
        const end = start + out[o + 8];
        content = start < end ? at(out[start]) : '';
        for (let p = start + 1; p < end; p++) content = content + at(out[p]);
      } else if (contentKind === 3) content = '';
      const isFirst = (out[o + 11] & 1) === 1;
      const isLast = (out[o + 11] & 2) === 2;
      if (out[o + 9] === 1) {
        const toolCall = at(out[o + 10]);
        rows.push(contentKind === 0
          ? { id, type, timestamp, toolCall, isFirst, isLast }
          : { id, type, timestamp, content, toolCall, isFirst, isLast });
      } else {
        rows.push(contentKind === 0 ? { id, type, timestamp, isFirst, isLast } : { id, type, timestamp, content, isFirst, isLast });
      }
    }
    return rows;
  }

  // A reader over `plain` (the generated entry point) and `decide` (readers.rs): the
  // plan's field names, the field each is read from, what it is read for, when, the key of a
  // LIST field's elements, the strings the rule compares with and the row type names.
  function makeReader(plain, decide, keys, parents, flags, whens, listKey, tags, names) {
    let tagged = false;
    let numbered = false;
    let listed = false;
    for (let f = 0; f < flags.length; f++) {
      tagged = tagged || (flags[f] & TAG) !== 0;
      numbered = numbered || (flags[f] & (TIME | LIST)) !== 0;
      listed = listed || (flags[f] & LIST) !== 0;
    }
    const width = keys.length + 1;
    const snapshot = compileSnapshot(keys, parents, flags, whens, listKey, tags);
    // Where `decide` writes the rows' plan: kept from call to call (a call made from a
    // getter during a snapshot is over before the outer call's `decide` writes), and
    // made anew when too small or more than twice the size needed.
    let out = new Float64Array(0);
    return function read(items, options) {
      if (!isArray(items)) return plain(items, options);
      const count = items.length;
      if (typeof count !== 'number' || !(count >= 0 && count <= 4294967295) || count % 1 !== 0) return plain(items, options);
      const main = count * width;
      const s = {
        columns: keys.map((_, f) => (flags[f] & KEEP ? new Array(count) : null)),
        kinds: new Uint8Array(main),
        tags: new Uint8Array(tagged ? main : 0),
        numbers: new Float64Array(numbered ? main : 0),
        starts: new Int32Array(listed ? main : 0),
        elements: [],
        elementKinds: new Uint8Array(listed ? 64 : 0),
        listed: 0,
      };
      try {
        snapshot(items, count, s);
      } catch {
        return plain(items, options);
      }
      const needed = 3 + count * ROW + s.listed;
      if (out.length < needed || out.length > 2 * needed) out = new Float64Array(needed);
      const decided = decide(s.columns, s.kinds, s.tags, s.numbers, s.starts, s.elements, s.elementKinds, count, items, options, out);
      if (decided === undefined) return plain(items, options);
      return build(out, s.columns, s.elements, names);
    };
  }

  return [
    function makeAdaptACPMessages(plain, decide, keys, parents, flags, whens, listKey, tags, names) {
      const read = makeReader(plain, decide, keys, parents, flags, whens, listKey, tags, names);
      return function adaptACPMessages(messages, options) {
        return read(messages, options);
      };
    },
    function makeAdaptJSONLMessages(plain, decide, keys, parents, flags, whens, listKey, tags, names) {
      const read = makeReader(plain, decide, keys, parents, flags, whens, listKey, tags, names);
      return function adaptJSONLMessages(messages) {
        return read(messages, undefined);
      };
    },
  ];
})()
