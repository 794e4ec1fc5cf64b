/**
 * `npm run bench`: the native addon against the plain-JS baseline (baseline/chunks.js).
 *
 *   node bench/main.mjs           full run: warm-up, then the median of 9 timed runs
 *   node bench/main.mjs --quick   smoke run: fewer and shorter runs (for tests)
 *
 * Inputs are generated before any timing. To add a row, add an entry to `perEventCases`
 * (ns per event) or `scalingCases` (does the cost per event stay flat as a message grows).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import baseline from '../baseline/chunks.js';
import webuiBaseline from '../baseline/webui.js';
import formatsBaseline from '../baseline/formats.js';
import { createRng } from '../__test__/random-streams.mjs';
import { benchTranscript, benchWebview } from '../__test__/random-webui.mjs';
import { piSession } from './pi-session.mjs';
import { runHistoryCases } from './history.mjs';
import { runBrowserCases } from './browser.mjs';
import { runLiveCases } from './live.mjs';
import { runStoreCases } from './opencode-store.mjs';

// Every sample starts from a collected heap, so one run's garbage is not the next run's GC.
if (typeof globalThis.gc !== 'function') {
  const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

const quick = process.argv.includes('--quick');
// `--only TEXT`: run only the rows whose name contains TEXT (`--only history` for the history table).
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt === -1 ? null : (process.argv[onlyAt + 1] ?? '').toLowerCase();
const wanted = (name) => only === null || name.toLowerCase().includes(only);
const settings = quick
  ? { warmups: 2, runs: 3, minSampleMs: 5, turns: 40, quadraticBudgetMs: 10_000 }
  : { warmups: 3, runs: 9, minSampleMs: 20, turns: 200, quadraticBudgetMs: 60_000 };

function loadNative() {
  try {
    return { native: createRequire(import.meta.url)('../index.js') };
  } catch (error) {
    return { native: null, reason: error.message.split('\n')[0] };
  }
}
const { native, reason: nativeMissing } = loadNative();

// ─── Inputs ──────────────────────────────────────────────────────────────────

const WORDS = ['the ', 'file ', 'function ', 'returns ', 'a ', 'value', '. ', ', ', '\n', 'é', '✓ ', '😀', 'test ', 'build '];

/** A delta of 5–40 UTF-16 code units, like a model's token stream. */
function delta(rng) {
  const length = rng.between(5, 40);
  let text = '';
  while (text.length < length) text += rng.pick(WORDS);
  return text.slice(0, length);
}

function deltas(rng, type, count) {
  return Array.from({ length: count }, () => ({ type, delta: delta(rng) }));
}

/**
 * One assistant turn as an agent streams it: steps of reasoning, text and tool use.
 * About 70% text deltas, 15% reasoning deltas, the rest tool calls and results, shell
 * output, reasoning-end and the odd notice or error.
 */
function realisticTurn(rng, turn) {
  const events = [];
  const steps = rng.between(4, 8);
  for (let step = 0; step < steps; step++) {
    events.push(...deltas(rng, 'reasoning-delta', rng.between(4, 14)));
    events.push({ type: 'reasoning-end', metadata: { anthropic: { signature: `sig-${turn}-${step}-${'s'.repeat(120)}` } } });
    events.push(...deltas(rng, 'text-delta', rng.between(20, 64)));
    const calls = Array.from({ length: rng.between(1, 3) }, (_, i) => ({
      id: `call_${turn}_${step}_${i}`,
      name: rng.pick(['bash', 'read_file', 'edit_file']),
      arguments: { command: 'npm test -- --grep chunks', path: `src/file${i}.ts` },
    }));
    for (const toolCall of calls) events.push({ type: 'tool-call', toolCall });
    const shellLines = rng.int(7);
    for (let i = 0; i < shellLines; i++) events.push({ type: 'shell-output', stream: rng.chance(0.8) ? 'stdout' : 'stderr', data: `${delta(rng)}\n` });
    for (const call of calls) {
      events.push({ type: 'tool-result', toolResult: { toolCallId: call.id, result: { content: [{ type: 'text', text: 'ok '.repeat(60) }] }, isError: rng.chance(0.1) } });
    }
    if (rng.chance(0.05)) events.push({ type: 'notice', message: 'Context compacted' });
    if (rng.chance(0.03)) events.push({ type: 'error', error: 'Overloaded', statusCode: 529 });
  }
  events.push({ type: 'done' });
  return events;
}

const turns = (() => {
  const rng = createRng(2024);
  return Array.from({ length: settings.turns }, (_, turn) => realisticTurn(rng, turn));
})();
const turnEvents = turns.reduce((sum, events) => sum + events.length, 0);

const lifecycleEvents = Array.from({ length: 50_000 }, (_, i) => ({ type: i % 2 ? 'status' : 'usage' }));

function textDeltaMessage(count) {
  return deltas(createRng(count), 'text-delta', count);
}

/** A JSON array of `count` Solar Network thoughts (the example's, with unique ids). */
function snThoughts(count) {
  const examples = JSON.parse(readFileSync(new URL('../examples/sn-history.json', import.meta.url), 'utf8'));
  return JSON.stringify(Array.from({ length: count }, (_, i) => ({ ...examples[i % examples.length], id: `thought-${i}` })));
}

const piSessionBytes = piSession(20 * 1024 * 1024);
const piSessionLines = piSessionBytes.toString('utf8').split('\n').filter(Boolean).length;
const snThoughtsText = snThoughts(10_000);

// ─── Cases ───────────────────────────────────────────────────────────────────

/** Folds every turn into a fresh chunk array. */
function foldTurns(append) {
  for (const events of turns) {
    const chunks = [];
    for (const event of events) append(chunks, event);
  }
}

function sealAcrossHoles(append) {
  const chunks = [{ type: 'thinking', text: 'hm' }];
  chunks.length = 1_000_000;
  append(chunks, { type: 'reasoning-end', metadata: { anthropic: { signature: 's' } } });
  return chunks;
}

function foldOne(append, events) {
  const chunks = [];
  for (const event of events) append(chunks, event);
  return chunks;
}

// ─── Bytes in, chunks out ────────────────────────────────────────────────────
// The same realistic events as recorded bytes: one NDJSON buffer, and SSE frames as they
// arrive one at a time. The JS pipeline does what a backend does without the addon.

const byteEvents = turns.flat().slice(0, 20_000);
const ndjsonBuffer = Buffer.from(byteEvents.map((event) => JSON.stringify(event)).join('\n') + '\n');
const sseFrames = byteEvents.map((event) => Buffer.from(`data: ${JSON.stringify(event)}\n\n`));

function jsNdjsonToJson(buffer) {
  const chunks = [];
  for (const line of buffer.toString('utf8').split('\n')) {
    if (line) baseline.appendEventToChunks(chunks, JSON.parse(line));
  }
  return JSON.stringify(chunks);
}

function jsSseFrames(frames) {
  const chunks = [];
  let pending = '';
  for (const frame of frames) {
    pending += frame.toString('utf8');
    let end;
    while ((end = pending.indexOf('\n\n')) !== -1) {
      const data = pending
        .slice(0, end)
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line[5] === ' ' ? 6 : 5))
        .join('\n');
      pending = pending.slice(end + 2);
      if (data) baseline.appendEventToChunks(chunks, JSON.parse(data));
    }
  }
  return chunks;
}

function nativeSseFrames(frames) {
  const stream = new native.ChunkStream({ framing: 'sse' });
  for (const frame of frames) stream.push(frame);
  return stream.chunks();
}

// The webui adapters convert a whole conversation per call (10,000 messages).
const ADAPTER_MESSAGES = 10_000;
const webviewState = benchWebview(ADAPTER_MESSAGES);
const transcriptLines = benchTranscript(ADAPTER_MESSAGES);
const clock = { now: 1_715_000_000_000 };

// One row per event type: 2,000 events of that type folded into a fresh array (with
// what each needs before it: a call for results, a batch for shell output, a thinking
// block for each reasoning-end), so that each row is what that event costs.
const TYPE_EVENTS = 2_000;
const call = (i) => ({ id: `call_${i}`, name: 'bash', arguments: { command: 'ls' } });
const signature = { anthropic: { signature: 'sig' } };
const eventTypeCases = [
  ['text-delta (extends the last chunk)', () => deltas(createRng(1), 'text-delta', TYPE_EVENTS)],
  ['reasoning-delta (extends the last chunk)', () => deltas(createRng(2), 'reasoning-delta', TYPE_EVENTS)],
  ['text-delta after reasoning (pushes a chunk)', () => Array.from({ length: TYPE_EVENTS }, (_, i) => ({ type: i % 2 ? 'text-delta' : 'reasoning-delta', delta: 'word ' }))],
  ['reasoning-end (seals the block before it)', () => Array.from({ length: TYPE_EVENTS }, (_, i) => (i % 2 ? { type: 'reasoning-end', metadata: signature } : { type: 'reasoning-delta', delta: 'r' }))],
  ['tool-call (joins the last batch)', () => Array.from({ length: TYPE_EVENTS }, (_, i) => ({ type: 'tool-call', toolCall: call(i) }))],
  ['tool-result (on the call of the last batch)', () => [{ type: 'tool-call', toolCall: call(0) }, ...Array.from({ length: TYPE_EVENTS - 1 }, (_, i) => ({ type: 'tool-result', toolResult: { toolCallId: 'call_0', result: i, isError: false } }))]],
  ['shell-output (to the last call)', () => [{ type: 'tool-call', toolCall: call(0) }, ...Array.from({ length: TYPE_EVENTS - 1 }, (_, i) => ({ type: 'shell-output', stream: i % 5 ? 'stdout' : 'stderr', data: 'a line of output\n' }))]],
  ['error', () => Array.from({ length: TYPE_EVENTS }, () => ({ type: 'error', error: 'Overloaded', statusCode: 529 }))],
  ['notice', () => Array.from({ length: TYPE_EVENTS }, () => ({ type: 'notice', message: 'Context compacted' }))],
  ['model-changed', () => Array.from({ length: TYPE_EVENTS }, () => ({ type: 'model-changed', modelId: 'claude-sonnet', keyId: 'key-1' }))],
  ['config-reload', () => Array.from({ length: TYPE_EVENTS }, () => ({ type: 'config-reload' }))],
  ['an unknown type', () => Array.from({ length: TYPE_EVENTS }, () => ({ type: 'custom-progress', percent: 50 }))],
].map(([name, make]) => {
  const events = make();
  return {
    name: `event: ${name}`,
    events: events.length,
    native: () => foldOne(native.appendEventToChunks, events),
    js: () => foldOne(baseline.appendEventToChunks, events),
  };
});

// Walks back through 10,000 text chunks that hold nothing the event looks for; an
// "event" here is one chunk walked.
const WALK = 10_000;
const walkedChunks = Array.from({ length: WALK }, (_, i) => ({ type: 'text', text: `paragraph ${i}` }));
const walkCases = [
  ['orphan tool-result over 10,000 chunks (per chunk walked)', { type: 'tool-result', toolResult: { toolCallId: 'nowhere', result: 'ok', isError: false } }],
  ['lone reasoning-end over 10,000 chunks (per chunk walked)', { type: 'reasoning-end', metadata: signature }],
].map(([name, event]) => ({
  name,
  events: WALK,
  native: () => native.appendEventToChunks(walkedChunks, event),
  js: () => baseline.appendEventToChunks(walkedChunks, event),
}));

/** Rows of the first table: `events` per call of `native()` / `js()`. */
const perEventCases = [
  {
    name: `realistic turns (${settings.turns} turns)`,
    events: turnEvents,
    native: () => foldTurns(native.appendEventToChunks),
    js: () => foldTurns(baseline.appendEventToChunks),
  },
  {
    // The same turns, each folded by one `appendEventsToChunks` call (native) against the
    // helper called per event: compared with the row above, the batch's cost per event.
    name: `batch: realistic turns, one appendEventsToChunks per turn`,
    events: turnEvents,
    native: () => {
      for (const events of turns) native.appendEventsToChunks([], events);
    },
    js: () => foldTurns(baseline.appendEventToChunks),
  },
  {
    // The floor of a native drop-in: one crossing that reads the event's `type` and the
    // array's length, then does nothing. Every content event costs this plus its work.
    name: 'lifecycle events only (crossing floor)',
    events: lifecycleEvents.length,
    native: () => foldOne(native.appendEventToChunks, lifecycleEvents),
    js: () => foldOne(baseline.appendEventToChunks, lifecycleEvents),
  },
  ...eventTypeCases,
  ...walkCases,
  {
    // One event after `chunks.length = 1e6`: the walk back to the thinking chunk goes
    // through a million holes (an "event" here is one such reasoning-end).
    name: 'sparse array: reasoning-end across 1,000,000 holes',
    events: 1,
    native: () => sealAcrossHoles(native.appendEventToChunks),
    js: () => sealAcrossHoles(baseline.appendEventToChunks),
  },
  {
    name: `NDJSON buffer → chunks JSON (${byteEvents.length} events)`,
    events: byteEvents.length,
    native: () => native.reduceEventsToJson(ndjsonBuffer),
    js: () => jsNdjsonToJson(ndjsonBuffer),
  },
  {
    name: 'SSE frames pushed one by one, then chunks()',
    events: byteEvents.length,
    native: () => nativeSseFrames(sseFrames),
    js: () => jsSseFrames(sseFrames),
  },
  {
    // "events" here are messages: one call adapts the whole webview state.
    name: `adaptACPMessages (${ADAPTER_MESSAGES.toLocaleString('en-US')} messages, per message)`,
    events: ADAPTER_MESSAGES,
    native: () => native.adaptACPMessages(webviewState, clock),
    js: () => webuiBaseline.adaptACPMessages(webviewState, clock),
  },
  {
    name: `adaptJSONLMessages (${ADAPTER_MESSAGES.toLocaleString('en-US')} lines, per line)`,
    events: ADAPTER_MESSAGES,
    native: () => native.adaptJSONLMessages(transcriptLines),
    js: () => webuiBaseline.adaptJSONLMessages(transcriptLines),
  },
  {
    // Bytes in, messages out: native parses and folds in Rust and hands back one JSON text;
    // the baseline does JSON.parse per line and folds with the plain-JS reducer.
    name: `Pi session ${(piSessionBytes.length / 2 ** 20).toFixed(0)} MB (per line)`,
    events: piSessionLines,
    native: () => native.pi.toMessages(piSessionBytes),
    js: () => formatsBaseline.piToMessages(piSessionBytes),
  },
  {
    name: '10,000 Sn thoughts from JSON text (per thought)',
    events: 10_000,
    native: () => native.sn.toMessages(snThoughtsText),
    js: () => formatsBaseline.snToMessages(snThoughtsText),
  },
];

/** Rows of the second table: one input per size, timed whole. */
const scalingCases = [
  {
    name: 'one message of N text deltas',
    sizes: [20_000, 160_000],
    prepare: textDeltaMessage,
    native: (events) => foldOne(native.appendEventToChunks, events),
    js: (events) => foldOne(baseline.appendEventToChunks, events),
  },
];

// ─── Measuring ───────────────────────────────────────────────────────────────

const nowNs = () => process.hrtime.bigint();

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Median nanoseconds of one call of `fn`, after warm-up. A sample repeats `fn` `repeat`
 * times, by default as often as it takes to last `minSampleMs`, so that timer resolution
 * does not matter; each sample starts right after a full GC.
 */
function measure(fn, { warmups = settings.warmups, runs = settings.runs, minSampleMs = settings.minSampleMs, repeat } = {}) {
  const sampler = sampling(fn, { warmups, minSampleMs, repeat });
  return median(Array.from({ length: runs }, sampler));
}

/** Warms `fn` up and returns a function that times one sample (ns per call of `fn`). */
function sampling(fn, { warmups = settings.warmups, minSampleMs = settings.minSampleMs, repeat } = {}) {
  let start = nowNs();
  fn();
  const firstNs = Number(nowNs() - start);
  repeat ??= Math.max(1, Math.ceil((minSampleMs * 1e6) / Math.max(firstNs, 1)));
  for (let i = 1; i < warmups; i++) fn();
  return () => {
    globalThis.gc();
    start = nowNs();
    for (let i = 0; i < repeat; i++) fn();
    return Number(nowNs() - start) / repeat;
  };
}

/**
 * Native and JS samples taken in turn, so that a change in the machine's load (other
 * processes on shared cores) falls on both sides alike: the medians of each side, and the
 * median of the ratios of neighbouring samples.
 */
function measurePair(nativeFn, jsFn) {
  const sample = { native: sampling(nativeFn), js: sampling(jsFn) };
  const times = { native: [], js: [], ratios: [] };
  for (let run = 0; run < settings.runs; run++) {
    // Alternate which side goes first, so that neither always follows the other's garbage.
    let nat;
    let js;
    if (run % 2) {
      nat = sample.native();
      js = sample.js();
    } else {
      js = sample.js();
      nat = sample.native();
    }
    times.native.push(nat);
    times.js.push(js);
    times.ratios.push(nat / js);
  }
  return { native: median(times.native), js: median(times.js), ratio: median(times.ratios) };
}

// ─── Output ──────────────────────────────────────────────────────────────────

function printTable(title, header, rows) {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => String(row[column]).length)));
  const line = (cells) => cells.map((cell, column) => (column === 0 ? String(cell).padEnd(widths[column]) : String(cell).padStart(widths[column]))).join('  ');
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) console.log(line(row));
}

const ns = (value) => (value === null ? 'n/a' : value.toFixed(1));
const ms = (value) => (value === null ? 'n/a' : (value / 1e6).toFixed(2));
const ratio = (value) => (value === null || !Number.isFinite(value) ? 'n/a' : `${value.toFixed(2)}×`);

/** Guards the timing against comparing two different results. */
function sameResult(events) {
  return JSON.stringify(foldOne(native.appendEventToChunks, events)) === JSON.stringify(foldOne(baseline.appendEventToChunks, events));
}

function runPerEventCases() {
  const cases = perEventCases.filter((benchCase) => wanted(benchCase.name));
  if (cases.length === 0) return;
  const rows = cases.map((benchCase) => {
    if (!native) return [benchCase.name, benchCase.events, ns(null), ns(measure(benchCase.js) / benchCase.events), ratio(null)];
    const pair = measurePair(benchCase.native, benchCase.js);
    return [benchCase.name, benchCase.events, ns(pair.native / benchCase.events), ns(pair.js / benchCase.events), ratio(pair.ratio)];
  });
  printTable('ns per event', ['case', 'events/run', 'native ns', 'baseline ns', 'native/baseline'], rows);
}

/**
 * Times one message of `size` events. Smaller sizes are repeated so that every sample
 * handles as many events (and as much garbage) as one run of the largest size. A size is
 * skipped when the previous one shows that a quadratic cost would blow the time budget.
 */
function measureScaling(run, input, previous, size, largest) {
  if (previous && previous.totalNs * (size / previous.size) ** 2 > settings.quadraticBudgetMs * 1e6) {
    return { size, totalNs: null, skipped: true };
  }
  return { size, totalNs: measure(() => run(input), { repeat: Math.max(1, Math.round(largest / size)) }) };
}

function runScalingCases() {
  const rows = [];
  const notes = [];
  for (const benchCase of scalingCases.filter((c) => wanted(c.name))) {
    const inputs = benchCase.sizes.map((size) => benchCase.prepare(size));
    const sides = { native: [], baseline: [] };
    const largest = Math.max(...benchCase.sizes);
    benchCase.sizes.forEach((size, i) => {
      sides.baseline.push(measureScaling(benchCase.js, inputs[i], sides.baseline[i - 1], size, largest));
      sides.native.push(native ? measureScaling(benchCase.native, inputs[i], sides.native[i - 1], size, largest) : { size, totalNs: null });
    });
    const [small, large] = [0, benchCase.sizes.length - 1];
    const growth = (side) => {
      const first = side[small];
      const last = side[large];
      if (first.totalNs === null || last.totalNs === null) return null;
      return last.totalNs / last.size / (first.totalNs / first.size);
    };
    for (const [name, side] of Object.entries(sides)) {
      rows.push([`${benchCase.name}: ${name}`, ...side.map((point) => ms(point.totalNs)), ratio(growth(side))]);
      if (side.some((point) => point.skipped)) notes.push(`${name}: the larger size was skipped; a quadratic cost would exceed ${settings.quadraticBudgetMs / 1000} s.`);
    }
    if (native && !sameResult(inputs[small])) notes.push(`WARNING: native and baseline disagree on "${benchCase.name}"`);
  }
  const sizes = scalingCases[0].sizes.map((size) => `N=${size.toLocaleString('en-US')} ms`);
  printTable('Growth with message length (total time per message)', ['case', ...sizes, 'per-event ratio'], rows);
  for (const note of notes) console.log(note);
}

console.log(`agent-chunks bench${quick ? ' (--quick: fewer, shorter runs; numbers are rough)' : ''} — Node ${process.version}`);
console.log(`Each figure is the median of ${settings.runs} timed runs after ${settings.warmups} warm-up run(s).`);
console.log('native/baseline: native time divided by the plain-JS baseline time (below 1× means the addon is faster), the median of the');
console.log('ratios of native and JS samples taken in turn, so that load from other processes falls on both sides alike.');
console.log('per-event ratio: cost per event at the largest N divided by cost per event at the smallest N (≈1× means linear time; quadratic text copying shows as ≈8×).');
const mix = turns.flat().reduce((counts, event) => ({ ...counts, [event.type]: (counts[event.type] ?? 0) + 1 }), {});
console.log(`Realistic stream mix: ${Object.entries(mix).map(([type, count]) => `${type} ${((100 * count) / turnEvents).toFixed(1)}%`).join(', ')}.`);
if (!native) {
  console.log(`\nNative addon not loadable (${nativeMissing}); run \`npm run build\`. Baseline only.`);
  process.exitCode = 1;
} else if (JSON.stringify(native.pi.toMessages(piSessionBytes)) !== JSON.stringify(formatsBaseline.piToMessages(piSessionBytes))
  || JSON.stringify(native.sn.toMessages(snThoughtsText)) !== JSON.stringify(formatsBaseline.snToMessages(snThoughtsText))) {
  console.log('\nWARNING: native and baseline disagree on a format load; the timings compare different work.');
  process.exitCode = 1;
} else if (!turns.slice(0, 5).every(sameResult)) {
  console.log('\nWARNING: native and baseline disagree on the realistic stream; the timings compare different work.');
  process.exitCode = 1;
}

if (native && JSON.stringify(JSON.parse(native.reduceEventsToJson(ndjsonBuffer))) !== jsNdjsonToJson(ndjsonBuffer)) {
  console.log('\nWARNING: the bytes path and the JS pipeline disagree; the timings compare different work.');
  process.exitCode = 1;
}

runPerEventCases();
if (scalingCases.some((c) => wanted(c.name))) runScalingCases();
if (native && wanted('history')) await runHistoryCases({ native, settings, piSessionBytes, printTable, ratio });
if (native && (wanted('history') || wanted('codex'))) {
  const { runCodexHistoryCases } = await import('./codex.mjs');
  await runCodexHistoryCases({ native, settings, printTable, ratio, quick });
}
if (native && wanted('codex-app-server')) {
  const { runCodexAppServerCases } = await import('./codex-app-server.mjs');
  await runCodexAppServerCases({ native, settings, printTable, ratio, quick });
}
if (native && (wanted('history') || wanted('opencode store'))) await runStoreCases({ quick });
if (native && wanted('live')) runLiveCases({ native, measurePair, printTable, ratio, quick });
if (native && wanted('browser')) {
  await runBrowserCases({ native, turns, ndjson: ndjsonBuffer.toString('utf8'), settings, measurePair, printTable, ratio });
}
if (native && wanted('fallback')) {
  const { runFallbackCases } = await import('./fallback.mjs');
  await runFallbackCases({ native, turns, ndjson: ndjsonBuffer.toString('utf8'), settings, measurePair, printTable, ratio });
}
if (native && wanted('peers')) {
  const { runPeerCases } = await import('./peers.mjs');
  await runPeerCases({ native, settings, printTable, ratio, quick });
}
if (native && wanted('agents')) {
  const { runAgentCases } = await import('./agents.mjs');
  await runAgentCases({ native, settings, printTable, ratio, quick });
}
if (wanted('ag-ui')) {
  const { runAgUiCases } = await import('./ag-ui.mjs');
  await runAgUiCases({ native, settings, printTable, ratio, quick });
}
if (native && wanted('scan')) {
  const { runScanCases } = await import('./scan.mjs');
  await runScanCases({ settings, printTable, ratio });
}
