/**
 * Seeded random material for the differential tests (and the benchmarks).
 *
 * Everything here is a pure function of a 32-bit seed, so a failing case is reproduced by
 * its seed alone. The streams are type-valid `AgentEvent[]` as the contract defines them
 * (checked fields always have their declared type), but everything the contract passes
 * through is as wild as JavaScript allows: payloads of every kind, missing or undefined
 * keys, odd key orders, extra fields, frozen events, unknown event types, and strings
 * with unpaired surrogates. The initial chunk arrays model what a caller may hand over:
 * chunks loaded from a database with extra fields, sealed and unsealed thinking, tool
 * batches with finished calls, holes and primitive junk.
 */

// ─── PRNG ────────────────────────────────────────────────────────────────────

/** Mixes a 32-bit value so that nearby inputs give unrelated outputs (a murmur-style finalizer). */
function mix32(value) {
  let z = value >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x7feb352d);
  z = Math.imul(z ^ (z >>> 15), 0x846ca68b);
  return (z ^ (z >>> 16)) >>> 0;
}

/** A seed for an independent sub-stream of `seed` (e.g. one for chunks, one for events). */
export function deriveSeed(seed, lane) {
  return mix32((seed >>> 0) ^ mix32(lane + 0x632be5ab));
}

/** A small seeded generator: a Weyl sequence passed through `mix32`. */
export function createRng(seed) {
  let state = mix32(seed >>> 0);
  const next = () => {
    state = (state + 0x9e3779b9) >>> 0;
    return mix32(state);
  };
  const rng = {
    next,
    /** A float in [0, 1). */
    float: () => next() / 0x100000000,
    /** An integer in [0, n). */
    int: (n) => Math.floor(rng.float() * n),
    /** An integer in [lo, hi]. */
    between: (lo, hi) => lo + rng.int(hi - lo + 1),
    chance: (p) => rng.float() < p,
    pick: (list) => list[rng.int(list.length)],
    /** Picks from `[[weight, value], …]`. */
    weighted(entries) {
      let total = 0;
      for (const [weight] of entries) total += weight;
      let roll = rng.float() * total;
      for (const [weight, value] of entries) {
        roll -= weight;
        if (roll < 0) return value;
      }
      return entries[entries.length - 1][1];
    },
  };
  return rng;
}

// ─── Strings ─────────────────────────────────────────────────────────────────

const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

const TEXT_PIECES = [
  'the ', 'model ', 'reads ', 'file', ' ', ' ', '\n', '\n\n', '. ', ', ', '`code`', '**bold**',
  'é', 'ß', 'Ω', '中文', 'ｶﾀｶﾅ', 'a\u0301', '\t', '"quoted"', '\\', '${x}', '</script>',
  '😀', '🧪', '𝒳', '👩‍💻', '🇫🇷', '\u{10FFFF}',
  '\u0000', '\uFFFD', '\uFEFF', '\u2028',
  '\uD800', '\uDFFF', // already unpaired in the source text
];

/** A random string assembled from TEXT_PIECES (may be empty). */
export function randomText(rng, maxPieces = 6) {
  let text = '';
  const pieces = rng.int(maxPieces + 1);
  for (let i = 0; i < pieces; i++) text += rng.pick(TEXT_PIECES);
  if (rng.chance(0.02)) text += 'x'.repeat(rng.between(200, 2000));
  return text;
}

/**
 * Cuts `text` into `count` consecutive pieces at UTF-16 code-unit positions. Cuts land
 * inside surrogate pairs on purpose, so one character may arrive as two lone halves in
 * consecutive deltas; empty pieces happen too.
 */
export function splitIntoDeltas(rng, text, count) {
  const pairCuts = [];
  for (let i = 0; i < text.length - 1; i++) {
    if (HIGH_SURROGATE.test(text[i]) && /[\uDC00-\uDFFF]/.test(text[i + 1])) pairCuts.push(i + 1);
  }
  const cuts = [];
  for (let i = 1; i < count; i++) {
    cuts.push(pairCuts.length > 0 && rng.chance(0.4) ? rng.pick(pairCuts) : rng.int(text.length + 1));
  }
  cuts.sort((a, b) => a - b);
  const pieces = [];
  let from = 0;
  for (const cut of cuts) {
    pieces.push(text.slice(from, cut));
    from = cut;
  }
  pieces.push(text.slice(from));
  return pieces;
}

// ─── Payloads (stored by reference, never inspected) ─────────────────────────

class ToolInput {
  constructor(query) {
    this.query = query;
  }
}

const PAYLOADS = [
  (rng) => ({ path: `src/${rng.int(100)}.ts`, line: rng.int(500) }),
  (rng) => ({ command: randomText(rng, 3), options: { cwd: '/tmp', env: ['A=1'] }, nested: { deep: [{ x: null }] } }),
  () => [1, 'two', { three: 3 }, [null]],
  () => [],
  () => ({}),
  (rng) => randomText(rng, 3),
  () => '',
  () => 42,
  () => 0,
  () => -1.5,
  () => NaN,
  () => undefined,
  () => null,
  () => true,
  () => false,
  () => new Date(1700000000000),
  () => new Map([['k', 1], [{ key: 'object' }, [2]]]),
  () => new Set(['a']),
  () => function probe() {
    return 1;
  },
  () => new ToolInput('grep -rn TODO'),
  () => Symbol('payload'),
  () => 12345678901234567890n,
  () => Object.assign(Object.create(null), { bare: 'prototype-less' }),
  () => ({ toJSON: () => 'custom JSON' }),
  () => new Error('as a value'),
  () => new Uint8Array([1, 2, 3]),
];

/** Any value at all: `arguments` and `result` are `unknown` in the contract. */
export function randomPayload(rng) {
  return rng.pick(PAYLOADS)(rng);
}

/** A tool result as tools really return them, or anything else. */
function randomResult(rng) {
  return rng.weighted([
    [3, () => ({ content: [{ type: 'text', text: randomText(rng, 4) }] })],
    [2, () => randomText(rng, 5)],
    [1, () => ({ exitCode: rng.int(3), stdout: randomText(rng, 3) })],
    [3, () => randomPayload(rng)],
  ])();
}

/** `ProviderMetadata` mostly; `null` and a few other values (passed through) sometimes. */
function randomMetadata(rng) {
  return rng.weighted([
    [4, () => ({ anthropic: { signature: `sig-${rng.next().toString(36)}` } })],
    [1, () => ({ openai: { itemId: `rs_${rng.int(1000)}`, reasoningEncryptedContent: null } })],
    [1, () => ({})],
    [2, () => null],
    [1, () => rng.pick([0, '', false, 'opaque'])],
  ])();
}

// ─── Freezing ────────────────────────────────────────────────────────────────

/** Object.freeze on everything reachable through own properties. */
export function deepFreeze(value, seen = new Set()) {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) return value;
  if (ArrayBuffer.isView(value)) return value; // typed arrays with elements cannot be frozen
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor && 'value' in descriptor) deepFreeze(descriptor.value, seen);
  }
  return Object.freeze(value);
}

// ─── Initial chunk arrays ────────────────────────────────────────────────────

/**
 * Values that must be the same object in every build of one case (payloads and symbols):
 * the first build makes them, later builds take them back in the same order.
 */
function createSharedValues() {
  const values = [];
  let cursor = 0;
  return {
    rewind() {
      cursor = 0;
    },
    take(make) {
      const made = make(); // always called, so every build draws the same random numbers
      if (cursor === values.length) values.push(made);
      return values[cursor++];
    },
  };
}

const INITIAL_TOOL_IDS = ['db-call-1', 'db-call-2', 'db-call-3', 'call_0', 'shared-id'];

function randomCallEntry(rng, take) {
  const id = rng.pick(INITIAL_TOOL_IDS);
  const name = rng.pick(['bash', 'read_file', 'edit', '']);
  const args = take(() => randomPayload(rng));
  const entry = rng.weighted([
    [4, () => ({ id, name, arguments: args })],
    [1, () => ({ name, id, arguments: args })],
    [1, () => ({ id, name })],
    [1, () => ({ id, name, arguments: args, startedAt: 1700000000 })],
  ])();
  if (rng.chance(0.3)) entry.isError = rng.pick([false, true]);
  if (rng.chance(0.4)) entry.result = take(() => randomResult(rng));
  if (rng.chance(0.3)) {
    entry.shellOutput = rng.weighted([
      [3, () => ({ stdout: randomText(rng, 3), stderr: randomText(rng, 2) })],
      [1, () => ({ stderr: 'warn\n', stdout: '' })],
      [1, () => ({ stdout: 'out', stderr: '', truncated: true })],
      [1, () => null],
      [1, () => undefined],
    ])();
  }
  return entry;
}

function randomInitialChunk(rng, take) {
  return rng.weighted([
    [3, () => ({ type: 'text', text: randomText(rng) })],
    [2, () => ({ type: 'text', text: randomText(rng), id: `db-${rng.int(9)}` })],
    [1, () => ({ id: 'db-first', type: 'text', text: 'x', createdAt: 1700000000000, source: { table: 'chunks' } })],
    [2, () => ({ type: 'thinking', text: randomText(rng) })],
    [1, () => ({ type: 'thinking', text: randomText(rng), metadata: undefined })],
    [2, () => ({ type: 'thinking', text: randomText(rng), metadata: take(() => randomMetadata(rng)) })],
    [1, () => ({ type: 'thinking', text: 'sealed by null', metadata: null })],
    [4, () => ({ type: 'tool-batch', calls: Array.from({ length: rng.between(1, 3) }, () => randomCallEntry(rng, take)) })],
    [1, () => ({ type: 'tool-batch', calls: [] })],
    [1, () => ({ id: 'batch-7', type: 'tool-batch', calls: [randomCallEntry(rng, take)] })],
    [1, () => ({ type: 'error', message: 'rate limited' })],
    [1, () => ({ type: 'error', message: 'overloaded', statusCode: 529 })],
    [1, () => ({ type: 'system', kind: 'notice', text: randomText(rng) })],
    [1, () => ({ type: 'image', url: 'https://example.invalid/a.png' })],
    [1, () => ({ note: 'no type at all' })],
    [1, () => ({})],
  ])();
}

/** A hole, an empty slot, or primitive junk: the walk-backs must step over all of them. */
const JUNK = ['hole', null, undefined, 0, '', false, NaN, 42, 'text', true, -1, 7n, 'symbol'];

/**
 * A random chunk array as a caller might pass it. `take` shares payloads between builds.
 * Returns the chunks and the tool-call ids present in them.
 */
export function randomInitialChunks(rng, take) {
  const chunks = [];
  const toolIds = [];
  const count = rng.chance(0.3) ? 0 : rng.between(1, 6);
  for (let i = 0; i < count; i++) {
    if (rng.chance(0.2)) {
      const junk = rng.pick(JUNK);
      if (junk === 'hole') chunks.length += 1; // a real hole: index absent
      else chunks.push(junk === 'symbol' ? take(() => Symbol('junk')) : junk);
      continue;
    }
    const chunk = randomInitialChunk(rng, take);
    if (chunk.type === 'tool-batch') for (const call of chunk.calls) toolIds.push(call.id);
    chunks.push(chunk);
  }
  return { chunks, toolIds };
}

// ─── Event streams ───────────────────────────────────────────────────────────

export const LIFECYCLE_TYPES = [
  'status', 'turn-start', 'turn-sealed', 'done', 'usage', 'task-list-update', 'tab-created',
  'message-queued', 'message-consumed', 'message-cancelled', 'compaction-started',
  'compaction-complete', 'compaction-error',
];

export const UNKNOWN_TYPES = [
  'image', 'source', '', 'TEXT-DELTA', 'text_delta', 'text-delta ', 'reasoning-start', 'start-step',
  'finish', 'tool-call-streaming-start', '__proto__', 'constructor', 'toString', 'hasOwnProperty',
  'system', 'text', 'tool-batch', 'thinking',
];

/** Extra fields a lifecycle or unknown event may carry, including names content events use. */
function randomExtraFields(rng) {
  return rng.weighted([
    [2, () => ({})],
    [1, () => ({ status: 'streaming', at: Date.UTC(2024, 0, 1) })],
    [1, () => ({ usage: { inputTokens: 12, outputTokens: 34 } })],
    [1, () => ({ tasks: [{ id: 't1', done: false }], tabId: 'tab-1' })],
    [1, () => ({ delta: 5, toolCall: null, message: { nested: true }, statusCode: 'not a number' })],
    [1, () => ({ error: { code: 'E_COMPACT' }, metadata: randomMetadata(rng) })],
  ])();
}

const TOOL_NAMES = ['bash', 'read_file', 'write_file', 'grep', 'web_fetch', '', 'Ünïcode-tool', 'constructor'];
const ODD_TOOL_IDS = ['', '调用-1', '__proto__', 'constructor', 'call_😀', 'id with spaces'];

/** Keeps track of the tool ids a stream has issued so results can find (or miss) them. */
function createToolIds(known) {
  const issued = [...known];
  let counter = 0;
  return {
    issued,
    fresh(rng) {
      if (issued.length > 0 && rng.chance(0.1)) return rng.pick(issued); // a duplicate id
      const id = rng.chance(0.06) ? rng.pick(ODD_TOOL_IDS) : `call_${++counter}`;
      issued.push(id);
      return id;
    },
    forResult(rng) {
      if (issued.length === 0 || rng.chance(0.15)) return rng.pick(['missing-call', 'call_999999', '']);
      return rng.chance(0.5) ? issued[issued.length - 1] : rng.pick(issued); // newest, or an older batch
    },
  };
}

function textEvents(rng, type) {
  const pieces = splitIntoDeltas(rng, randomText(rng, 10), rng.between(1, 8));
  return pieces.map((delta) =>
    rng.weighted([
      [8, () => ({ type, delta })],
      [1, () => ({ delta, type })],
      [1, () => ({ type, delta, id: 'part-1', providerMetadata: undefined })],
    ])(),
  );
}

function reasoningEnd(rng) {
  return rng.weighted([
    [5, () => ({ type: 'reasoning-end', metadata: randomMetadata(rng) })],
    [1, () => ({ type: 'reasoning-end' })],
    [1, () => ({ type: 'reasoning-end', metadata: undefined })],
    [1, () => ({ type: 'reasoning-end', metadata: randomMetadata(rng), id: 'r-1' })],
  ])();
}

function toolCall(rng, ids) {
  const id = ids.fresh(rng);
  const name = rng.pick(TOOL_NAMES);
  const toolCall = rng.weighted([
    [6, () => ({ id, name, arguments: randomPayload(rng) })],
    [1, () => ({ id, name })],
    [1, () => ({ name, arguments: randomPayload(rng), id })],
    [1, () => ({ id, name, arguments: randomPayload(rng), providerExecuted: true })],
  ])();
  return { type: 'tool-call', toolCall };
}

function toolResult(rng, ids) {
  const toolCallId = ids.forResult(rng);
  const isError = rng.weighted([
    [5, false],
    [3, true],
    [1, undefined],
    [1, null],
    [1, 1],
    [1, 'yes'],
  ]);
  const toolResult = rng.weighted([
    [6, () => ({ toolCallId, result: randomResult(rng), isError })],
    [2, () => ({ toolCallId, result: undefined, isError })],
    [1, () => ({ toolCallId, isError })],
    [1, () => ({ toolCallId, result: randomResult(rng) })],
    [1, () => ({ isError, result: randomResult(rng), toolCallId, toolName: 'bash' })],
  ])();
  return { type: 'tool-result', toolResult };
}

function shellOutput(rng) {
  const stream = rng.weighted([
    [5, 'stdout'],
    [4, 'stderr'],
    [1, 'both'],
    [1, ''],
    [1, 'STDOUT'],
  ]);
  return { type: 'shell-output', stream, data: randomText(rng, 4) };
}

function errorEvent(rng) {
  const error = rng.pick(['Rate limit exceeded', 'overloaded', '', randomText(rng, 3)]);
  return rng.weighted([
    [3, () => ({ type: 'error', error })],
    [1, () => ({ type: 'error', error, statusCode: undefined })],
    [4, () => ({ type: 'error', error, statusCode: rng.pick([0, 400, 429, 500, 529, NaN, -0, 1.5, Infinity, -1, 2 ** 40]) })],
    [1, () => ({ statusCode: 503, error, type: 'error' })],
  ])();
}

function systemEvent(rng) {
  return rng.weighted([
    [2, () => ({ type: 'notice', message: randomText(rng, 5) })],
    [1, () => ({ type: 'notice', message: '', level: 'info' })],
    [2, () => ({ type: 'model-changed', modelId: rng.pick(['claude-sonnet-4', 'gpt-5', '', 'm😀']), keyId: rng.pick(['key-1', '', '${keyId}', '\uD83D']) })],
    [1, () => ({ type: 'config-reload' })],
    [1, () => ({ type: 'config-reload', changed: ['model'] })],
  ])();
}

/** One run of events; runs of one type make coalescing happen. */
function randomSegment(rng, ids) {
  const kind = rng.weighted([
    [6, 'text'],
    [4, 'reasoning'],
    [1, 'orphan-reasoning-end'],
    [3, 'tools'],
    [2, 'tool-result'],
    [2, 'shell-output'],
    [1, 'error'],
    [1, 'system'],
    [1, 'lifecycle'],
    [1, 'unknown'],
  ]);
  switch (kind) {
    case 'text':
      return textEvents(rng, 'text-delta');
    case 'reasoning': {
      const events = textEvents(rng, 'reasoning-delta');
      if (rng.chance(0.7)) events.push(reasoningEnd(rng));
      return events;
    }
    case 'orphan-reasoning-end':
      return [reasoningEnd(rng)];
    case 'tools': {
      const events = Array.from({ length: rng.between(1, 4) }, () => toolCall(rng, ids));
      if (rng.chance(0.4)) events.push(...Array.from({ length: rng.between(1, 3) }, () => shellOutput(rng)));
      if (rng.chance(0.5)) events.push(toolResult(rng, ids));
      return events;
    }
    case 'tool-result':
      return Array.from({ length: rng.between(1, 3) }, () => toolResult(rng, ids));
    case 'shell-output':
      return Array.from({ length: rng.between(1, 4) }, () => shellOutput(rng));
    case 'error':
      return [errorEvent(rng)];
    case 'system':
      return Array.from({ length: rng.between(1, 2) }, () => systemEvent(rng));
    case 'lifecycle':
      return [{ type: rng.pick(LIFECYCLE_TYPES), ...randomExtraFields(rng) }];
    default:
      return [{ type: rng.pick(UNKNOWN_TYPES), ...randomExtraFields(rng) }];
  }
}

/**
 * A random, type-valid event stream. `knownToolIds` are ids already present in the
 * chunks the stream will be applied to. About one event in five is deep-frozen.
 */
export function randomEventStream(rng, { knownToolIds = [], minEvents = 1, maxEvents = 40 } = {}) {
  const ids = createToolIds(knownToolIds);
  const target = rng.between(minEvents, maxEvents);
  const events = [];
  while (events.length < target) events.push(...randomSegment(rng, ids));
  events.length = target;
  return events.map((event) => (rng.chance(0.2) ? deepFreeze(event) : event));
}

// ─── Caller edits between events ─────────────────────────────────────────────

const newest = (chunks, type) => chunks.findLast((chunk) => chunk && chunk.type === type);

/**
 * Things a caller may do to its own array between two events (a store patching a chunk,
 * a reload, an undo). An implementation that caches state per array must notice them.
 * `apply` builds fresh objects on every call, except payloads, which are shared.
 */
function randomCallerEdit(rng) {
  const metadata = { caller: { signature: 'edited' } };
  return rng.pick([
    { name: 'push a text chunk', apply: (chunks) => chunks.push({ type: 'text', text: 'caller', id: 'local-1' }) },
    { name: 'push an unsealed thinking chunk', apply: (chunks) => chunks.push({ type: 'thinking', text: 'caller' }) },
    { name: 'push an empty tool-batch', apply: (chunks) => chunks.push({ type: 'tool-batch', calls: [] }) },
    { name: 'push null', apply: (chunks) => chunks.push(null) },
    { name: 'append a hole', apply: (chunks) => { chunks.length += 1; } },
    { name: 'pop', apply: (chunks) => chunks.pop() },
    { name: 'remove the first chunk', apply: (chunks) => chunks.splice(0, 1) },
    { name: 'clear the array', apply: (chunks) => { chunks.length = 0; } },
    {
      name: 'replace the last chunk',
      apply: (chunks) => { if (chunks.length > 0) chunks[chunks.length - 1] = { type: 'text', text: 'replaced' }; },
    },
    {
      name: 'edit the newest text',
      apply: (chunks) => { const chunk = newest(chunks, 'text'); if (chunk) chunk.text += '[edited]'; },
    },
    {
      name: 'seal the newest thinking chunk',
      apply: (chunks) => { const chunk = newest(chunks, 'thinking'); if (chunk) chunk.metadata = metadata; },
    },
    {
      name: 'unseal the newest thinking chunk',
      apply: (chunks) => { const chunk = newest(chunks, 'thinking'); if (chunk) delete chunk.metadata; },
    },
    {
      name: 'empty the newest tool-batch',
      apply: (chunks) => { const chunk = newest(chunks, 'tool-batch'); if (chunk) chunk.calls.length = 0; },
    },
    {
      name: 'drop the newest shell output',
      apply: (chunks) => { const call = newest(chunks, 'tool-batch')?.calls.at(-1); if (call) delete call.shellOutput; },
    },
  ]);
}

/**
 * One differential case: `buildChunks()` returns a fresh, structurally identical initial
 * array on every call (payloads inside it are the same objects each time, as payloads are
 * opaque); `events` is the stream to apply; `edits[i]`, when present, is a caller edit to
 * apply to the array just before `events[i]`.
 */
export function randomStreamCase(seed, options = {}) {
  const shared = createSharedValues();
  const chunkSeed = deriveSeed(seed, 1);
  const build = () => {
    shared.rewind();
    return randomInitialChunks(createRng(chunkSeed), shared.take);
  };
  const { toolIds } = build();
  const events = randomEventStream(createRng(deriveSeed(seed, 2)), { ...options, knownToolIds: toolIds });
  const editRng = createRng(deriveSeed(seed, 5));
  const edits = events.map(() => (editRng.chance(0.03) ? randomCallerEdit(editRng) : undefined));
  return { seed, events, edits, buildChunks: () => build().chunks };
}

// ─── applySystemEvent cases ──────────────────────────────────────────────────

export const SYSTEM_KINDS = ['notice', 'model-changed', 'config-reload', 'cancelled'];

function randomMessage(rng, role, index) {
  const chunks = role === 'system'
    ? Array.from({ length: rng.int(3) }, () => ({ type: 'system', kind: rng.pick(SYSTEM_KINDS), text: randomText(rng, 3) }))
    : [{ type: 'text', text: randomText(rng, 4) }];
  return rng.weighted([
    [4, () => ({ id: `msg-${index}`, role, chunks })],
    [1, () => ({ role, chunks, id: `db-${index}`, createdAt: 1700000000000 + index, model: 'm' })],
  ])();
}

/** The message list's last entry decides the routing: system, non-system, hole or junk. */
function randomMessages(rng) {
  const messages = [];
  const before = rng.int(4);
  for (let i = 0; i < before; i++) messages.push(randomMessage(rng, rng.pick(['user', 'assistant', 'system']), i));
  const tail = rng.weighted([
    [5, 'system'],
    [2, 'user'],
    [2, 'assistant'],
    [1, 'System'],
    [1, 'none'],
    [1, 'hole'],
    [1, null],
    [1, undefined],
    [1, 'junk'],
  ]);
  if (tail === 'hole') messages.length += 1;
  else if (tail === 'junk') messages.push(rng.pick([0, '', 'system', 42, true]));
  else if (tail !== 'none') messages.push(typeof tail === 'string' ? randomMessage(rng, tail, before) : tail);
  return messages;
}

function randomSystemEventLike(rng) {
  const kind = rng.chance(0.95) ? rng.pick(SYSTEM_KINDS) : 'custom-kind';
  const event = rng.weighted([
    [4, () => ({ kind, text: randomText(rng, 5) })],
    [1, () => ({ text: 'Cancelled by user', kind })],
    [1, () => ({ kind, text: '', at: 1, role: 'user', id: 'not-used' })],
  ])();
  return rng.chance(0.2) ? deepFreeze(event) : event;
}

/**
 * One applySystemEvent case: `buildMessages()` returns a fresh, structurally identical
 * message list on every call; `events` are applied to it one after another.
 */
export function randomSystemCase(seed) {
  const messageSeed = deriveSeed(seed, 3);
  const rng = createRng(deriveSeed(seed, 4));
  const events = Array.from({ length: rng.between(1, 4) }, () => randomSystemEventLike(rng));
  return { seed, events, buildMessages: () => randomMessages(createRng(messageSeed)) };
}
