/**
 * Seeded random inputs for the webui adapters: webview states (`ACPMessage[]`) and
 * ChatViewer transcripts (`ChatMessageData[]`). Type-valid as the adapters check them;
 * everything they pass through is as varied as JavaScript allows. Used by the
 * differential test and the benchmarks.
 */
import { createRng, randomText } from './random-streams.mjs';

const ROLES = ['user', 'assistant', 'thinking', 'assistant', 'user', 'system', 'tool', undefined];

function randomPassThrough(rng) {
  return rng.pick([
    () => randomText(rng, 4),
    () => '',
    () => undefined,
    () => null,
    () => 0,
    () => 17,
    () => ({ nested: [1, 2] }),
    () => [{ type: 'text', text: randomText(rng, 2) }],
  ])();
}

function randomToolCall(rng, id) {
  const call = { toolCallId: id, kind: rng.pick(['read', 'edit', 'execute', 'bash']), title: randomText(rng, 2), status: rng.pick(['pending', 'in_progress', 'completed', 'failed']) };
  if (rng.chance(0.5)) call.rawInput = { path: `src/${rng.int(50)}.ts` };
  if (rng.chance(0.3)) call.content = [{ type: 'diff', path: 'a.ts', oldText: null, newText: randomText(rng, 2) }];
  if (rng.chance(0.2)) call.extra = randomPassThrough(rng);
  return call;
}

/** One webview state entry; `unknownRate` is the chance of a type the seed rejects. */
export function randomACPEntry(rng, unknownRate = 0) {
  if (rng.chance(unknownRate)) return { type: rng.pick(['system', 'tool-call', 'Message', '']), data: {} };
  if (rng.chance(0.35)) {
    const type = rng.pick(['in-progress-tool-call', 'completed-tool-call']);
    return { type, data: randomToolCall(rng, rng.chance(0.8) ? `call_${rng.int(1000)}` : randomText(rng, 2)) };
  }
  const data = { role: rng.pick(ROLES), content: rng.chance(0.85) ? randomText(rng, 6) : randomPassThrough(rng) };
  const stamp = rng.int(5);
  if (stamp === 1) data.timestamp = 1_700_000_000_000 + rng.int(1e6);
  else if (stamp === 2) data.timestamp = rng.pick([0, '', null, undefined, NaN]);
  else if (stamp === 3) data.timestamp = rng.pick(['2024-05-01T10:00:00Z', { at: 1 }, -1]);
  if (rng.chance(0.1)) delete data.content;
  return { type: 'message', data };
}

export function randomACPCase(seed) {
  const rng = createRng(seed);
  const count = rng.chance(0.1) ? rng.between(50, 200) : rng.int(25);
  const unknownRate = rng.chance(0.1) ? 0.05 : 0;
  return Array.from({ length: count }, () => randomACPEntry(rng, unknownRate));
}

// ─── Transcripts ─────────────────────────────────────────────────────────────

const BASE = Date.UTC(2024, 4, 1, 10, 0, 0);
const pad = (n, width = 2) => String(n).padStart(width, '0');

/** A valid timestamp near `BASE + offsetSeconds`, in one of the forms transcripts use. */
function validTimestamp(rng, offsetSeconds) {
  const d = new Date(BASE + offsetSeconds * 1000 + (rng.chance(0.3) ? rng.int(1000) : 0));
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  switch (rng.int(7)) {
    case 0: return d.toISOString();
    case 1: return `${date}T${time}Z`;
    case 2: return `${date}T${time}`; // no offset: local time
    case 3: return `${date}T${time}+02:00`;
    case 4: return `${date}T${time}.${pad(d.getUTCMilliseconds(), 3)}-05:30`;
    case 5: return d.getTime(); // milliseconds
    default: return date; // a date alone: UTC midnight
  }
}

const INVALID_TIMESTAMPS = ['', 'not a date', '2024-13-45T99:00:00', 'yesterday', 'NaN', '2024-05-01T10:00:00ZZ'];

function randomMessageBody(rng) {
  switch (rng.int(6)) {
    case 0: return undefined;
    case 1: return null;
    case 2: return { role: 'thinking', content: randomText(rng, 5) };
    case 3: {
      const parts = Array.from({ length: rng.int(4) }, () => (rng.chance(0.85) ? { text: randomText(rng, 3) } : { text: rng.pick([undefined, null]) }));
      return rng.chance(0.5) ? { role: rng.pick(['user', 'assistant', 'thinking']), parts, content: 'fallback' } : { parts };
    }
    case 4: return { content: rng.chance(0.8) ? randomText(rng, 5) : rng.pick(['', undefined, 0, [{ type: 'text', text: 'block' }]]) };
    default: return { role: rng.pick(['user', 'assistant']), parts: [], content: randomText(rng, 3) };
  }
}

function randomLine(rng, index, timestamp) {
  const line = { uuid: `${rng.chance(0.9) ? 'u' : randomText(rng, 1)}-${index}`, timestamp, type: rng.pick(['user', 'assistant', 'assistant', 'tool_call', 'system']) };
  const body = randomMessageBody(rng);
  if (body !== undefined || rng.chance(0.5)) line.message = body;
  if (line.type === 'tool_call' || rng.chance(0.1)) line.toolCall = randomToolCall(rng, `call_${index}`);
  else if (rng.chance(0.1)) line.toolCall = undefined;
  return line;
}

/**
 * A transcript: mostly ascending times with ties and local disorder, sometimes long
 * enough (≥ 64 lines) for TimSort to merge runs and gallop. With `invalidRate` > 0 some
 * timestamps are invalid dates, which make the comparator inconsistent.
 */
export function randomTranscript(seed, { invalidRate = 0 } = {}) {
  const rng = createRng(seed);
  const count = rng.chance(0.25) ? rng.between(64, 700) : rng.int(40);
  const shape = rng.int(4);
  let clock = 0;
  return Array.from({ length: count }, (_, i) => {
    if (shape === 0) clock += rng.int(3); // ascending, many ties
    else if (shape === 1) clock = rng.int(count); // shuffled
    else if (shape === 2) clock = rng.chance(0.9) ? clock + 1 : clock - rng.int(40); // runs with jumps back
    else clock = count - i + (rng.chance(0.2) ? rng.int(5) : 0); // mostly descending
    const timestamp = rng.chance(invalidRate) ? rng.pick(INVALID_TIMESTAMPS) : validTimestamp(rng, clock);
    return randomLine(rng, i, timestamp);
  });
}

/** A long realistic transcript for the benchmarks (`count` lines, in time order). */
export function benchTranscript(count, seed = 7) {
  const rng = createRng(seed);
  return Array.from({ length: count }, (_, i) => {
    const timestamp = new Date(BASE + i * 1500).toISOString();
    const kind = i % 10 === 0 ? 'user' : rng.pick(['assistant', 'assistant', 'tool_call']);
    const line = { uuid: `line-${i}`, timestamp, type: kind };
    if (kind === 'tool_call') line.toolCall = randomToolCall(rng, `call_${i}`);
    else if (rng.chance(0.5)) line.message = { role: kind, parts: [{ text: randomText(rng, 8) }, { text: randomText(rng, 4) }] };
    else line.message = { role: rng.chance(0.2) ? 'thinking' : kind, content: randomText(rng, 10) };
    return line;
  });
}

/** A long realistic webview state for the benchmarks. */
export function benchWebview(count, seed = 7) {
  const rng = createRng(seed);
  return Array.from({ length: count }, (_, i) => {
    if (i % 10 === 0) return { type: 'message', data: { role: 'user', content: randomText(rng, 8) } };
    if (rng.chance(0.3)) return { type: rng.pick(['in-progress-tool-call', 'completed-tool-call']), data: randomToolCall(rng, `call_${i}`) };
    return { type: 'message', data: { role: rng.chance(0.2) ? 'thinking' : 'assistant', content: randomText(rng, 10) } };
  });
}
