/**
 * History loading rows of `npm run bench`: a 20 MB Pi session file loaded by
 * `loadHistory` (off the main thread) and `loadHistorySync`, against the plain-JS
 * pipeline (read the file, JSON.parse each line, fold with the JS reducer); the event
 * loop's longest stall during the async load; and the peak memory of each, measured in
 * a fresh process.
 *
 *   node bench/history.mjs --rss native|sync|js FILE   (one load; prints its memory as JSON)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const formatsBaseline = require('../baseline/formats.js');

const loaders = (native) => ({
  native: (file) => native.loadHistory(file, 'pi'),
  sync: (file) => native.loadHistorySync(file, 'pi'),
  js: (file) => formatsBaseline.piToMessages(readFileSync(file)),
});

/**
 * This process's peak resident memory. On Linux, from `VmHWM`: `getrusage`'s maxrss (and
 * so `process.resourceUsage().maxRSS`) keeps the high-water mark of the parent it was
 * forked from, which for a child of the benchmark is the benchmark's own size.
 */
function peakRss() {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]) * 1024;
  } catch {}
  return process.resourceUsage().maxRSS * 1024;
}

// One load in a fresh process: its resident memory before, and at its peak.
if (process.argv[2] === '--rss') {
  const load = loaders(require('../index.js'))[process.argv[3]];
  const file = process.argv[4];
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  const messages = await load(file);
  const peak = peakRss();
  console.log(JSON.stringify({ before, peak, messages: messages.length }));
  process.exit(0);
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

async function timeOnce(run) {
  globalThis.gc?.();
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Each loader timed `runs` times, the loaders in turn (so that load from other processes
 * on shared cores falls on all alike): per loader the median time, and the median of its
 * ratios to the JS pipeline's neighbouring run.
 */
async function timeInTurn(loaders, runs) {
  const times = Object.fromEntries(Object.keys(loaders).map((name) => [name, []]));
  for (let run = 0; run < runs; run++) {
    for (const [name, load] of Object.entries(loaders)) times[name].push(await timeOnce(load));
  }
  const speedUp = (name) => median(times.js.map((js, i) => js / times[name][i]));
  return Object.fromEntries(Object.keys(loaders).map((name) => [name, { ms: median(times[name]), speedUp: speedUp(name) }]));
}

/** The longest event-loop stall (ms) while `run` is in flight, as monitorEventLoopDelay sees it. */
async function longestStall(run) {
  globalThis.gc?.();
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await run();
  histogram.disable();
  return histogram.max / 1e6;
}

/** Peak RSS growth of one load in a fresh process: the median of five processes. */
function peakMemory(kind, file) {
  const growths = Array.from({ length: 5 }, () => {
    const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--rss', kind, file], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`memory run failed: ${child.stderr}`);
    const { before, peak } = JSON.parse(child.stdout.trim().split('\n').at(-1));
    return peak - before;
  });
  return median(growths);
}

export async function runHistoryCases({ native, settings, piSessionBytes, printTable, ratio }) {
  const dir = mkdtempSync(join(tmpdir(), 'agent-chunks-bench-'));
  const file = join(dir, 'session.jsonl');
  writeFileSync(file, piSessionBytes);
  const size = statSync(file).size;
  const load = loaders(native);
  try {
    if (JSON.stringify(await load.native(file)) !== JSON.stringify(load.js(file))) {
      console.log('\nWARNING: loadHistory and the JS pipeline disagree; the timings compare different work.');
      process.exitCode = 1;
    }
    const runs = settings.runs;
    for (let i = 0; i < settings.warmups; i++) {
      await load.native(file);
      load.js(file);
    }
    const timed = await timeInTurn({ js: () => load.js(file), native: () => load.native(file), sync: () => load.sync(file) }, runs);
    const [js, asyncMs, syncMs] = [timed.js.ms, timed.native.ms, timed.sync.ms];
    const stalls = [];
    for (let i = 0; i < runs; i++) stalls.push(await longestStall(() => load.native(file)));
    const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
    const memory = Object.fromEntries(['native', 'sync', 'js'].map((kind) => [kind, peakMemory(kind, file)]));
    const growth = (kind) => memory[kind];
    printTable(
      `History: a ${mb(size)} Pi session file → ChatMessage[] (JS: readFileSync + JSON.parse per line + the JS reducer)`,
      ['case', 'ms', 'JS ms', 'speed-up', 'longest stall ms', 'peak RSS growth', '÷ file size'],
      [
        ['loadHistory (async)', asyncMs.toFixed(1), js.toFixed(1), ratio(timed.native.speedUp), `${median(stalls).toFixed(1)} (max ${Math.max(...stalls).toFixed(1)})`, mb(growth('native')), ratio(growth('native') / size)],
        ['loadHistorySync', syncMs.toFixed(1), js.toFixed(1), ratio(timed.sync.speedUp), 'n/a (blocks)', mb(growth('sync')), ratio(growth('sync') / size)],
        ['JS pipeline', js.toFixed(1), js.toFixed(1), ratio(1), `${js.toFixed(1)} (blocks)`, mb(growth('js')), ratio(growth('js') / size)],
      ],
    );
    console.log('speed-up: JS time ÷ native time (above 1× means the addon is faster), the median over runs taken in turn. Stall: median (and max) over the runs of the');
    console.log('longest event-loop delay during one async load. Peak RSS growth: in a fresh process, peak resident memory minus');
    console.log('the memory before the load (the loaded messages included), median of five processes.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

