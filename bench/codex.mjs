/**
 * The Codex history rows of `npm run bench`: a large Codex rollout (the example run's turn
 * repeated) read into messages by `loadHistory` / `loadHistorySync`, in bytes per second,
 * beside the public readers of Codex rollouts that run here: ccusage (a native binary that
 * reads every rollout under `$CODEX_HOME` for its token counts; spawned, so its start-up
 * is measured apart and taken off), kibitz's `parseCodexLine` (JavaScript, an event per
 * line), and the floor of any JavaScript reader (`JSON.parse` of each line).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { codexRollout } from './codex-rollout.mjs';

const require = createRequire(import.meta.url);

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/**
 * The ccusage binary for this platform, when its package is installed; made executable as
 * ccusage's own launcher makes it on its first run (the package does not keep the mode).
 */
function ccusageBinary() {
  try {
    const pkg = require.resolve(`@ccusage/ccusage-${process.platform}-${process.arch}/package.json`);
    const binary = join(dirname(pkg), 'bin', process.platform === 'win32' ? 'ccusage.exe' : 'ccusage');
    if (process.platform !== 'win32' && (statSync(binary).mode & 0o111) === 0) chmodSync(binary, 0o755);
    return binary;
  } catch {
    return undefined;
  }
}

/** kibitz's reader of one rollout line, when its package is installed. */
function kibitzParser() {
  try {
    const root = dirname(require.resolve('@kibitzsh/kibitz/package.json'));
    return require(join(root, 'dist', 'core', 'parsers', 'codex.js')).parseCodexLine;
  } catch {
    return undefined;
  }
}

async function timeOnce(run) {
  globalThis.gc?.();
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function runCodexHistoryCases({ settings, native, printTable, ratio, quick }) {
  const bytes = codexRollout((quick ? 4 : 20) * 2 ** 20);
  const home = mkdtempSync(join(tmpdir(), 'agent-chunks-bench-codex-'));
  const empty = join(home, 'empty');
  const day = join(home, 'codex', 'sessions', '2026', '11', '28');
  mkdirSync(day, { recursive: true });
  mkdirSync(join(empty, 'sessions'), { recursive: true });
  const file = join(day, 'rollout-2026-11-28T09-00-00-01a2c0de-0000-7000-8000-00000000c0de.jsonl');
  writeFileSync(file, bytes);
  const mb = bytes.length / 2 ** 20;
  const binary = ccusageBinary();
  const parseCodexLine = kibitzParser();
  const ccusage = (codexHome) => {
    const child = spawnSync(binary, ['codex', 'session', '--json', '--offline', '--no-cost'], {
      env: { ...process.env, CODEX_HOME: codexHome, NO_COLOR: '1' },
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    if (child.status !== 0) throw new Error(`ccusage failed: ${child.error?.message ?? child.stderr}`);
    return child.stdout;
  };
  const readers = {
    loadHistory: () => native.loadHistory(file, 'codex'),
    loadHistorySync: () => native.loadHistorySync(file, 'codex'),
    'JSON.parse per line': () => {
      let n = 0;
      for (const line of readFileSync(file, 'utf8').split('\n')) if (line) n += JSON.parse(line) ? 1 : 0;
      return n;
    },
  };
  if (parseCodexLine) {
    readers["kibitz's parseCodexLine"] = () => {
      let n = 0;
      for (const line of readFileSync(file, 'utf8').split('\n')) if (line) n += parseCodexLine(line, file).length;
      return n;
    };
  }
  if (binary) {
    readers['ccusage codex session'] = () => ccusage(join(home, 'codex'));
    readers['ccusage start-up'] = () => ccusage(empty);
  }
  try {
    const messages = await readers.loadHistory();
    if (messages.length < 2 || !messages.some((m) => m.chunks.some((c) => c.type === 'tool-batch'))) {
      console.log('\nWARNING: the generated rollout read as no conversation; the timings compare nothing.');
      process.exitCode = 1;
    }
    for (let i = 0; i < settings.warmups; i++) for (const read of Object.values(readers)) await read();
    const times = Object.fromEntries(Object.keys(readers).map((name) => [name, []]));
    for (let run = 0; run < settings.runs; run++) {
      for (const [name, read] of Object.entries(readers)) times[name].push(await timeOnce(read));
    }
    // ccusage's own work: each run less the start-up run beside it.
    if (binary) {
      times['ccusage codex session'] = times['ccusage codex session'].map((ms, i) => ms - times['ccusage start-up'][i]);
      delete times['ccusage start-up'];
    }
    const ours = times.loadHistory;
    const rows = Object.entries(times).map(([name, ms]) => [
      name,
      median(ms).toFixed(1),
      (mb / (median(ms) / 1000)).toFixed(1),
      ratio(median(ms.map((t, i) => t / ours[i]))),
    ]);
    printTable(
      `History: a ${mb.toFixed(1)} MB Codex rollout (${messages.length} messages) read, beside the public readers of Codex rollouts`,
      ['reader', 'ms', 'MB/s', 'time ÷ loadHistory'],
      rows,
    );
    console.log('loadHistory / loadHistorySync build the conversation (messages, calls with their results); kibitz makes an event per line');
    console.log('(its action feed); ccusage reads the token counts only (a native binary: its start-up, run on an empty CODEX_HOME beside');
    console.log('each run, taken off). Medians of runs taken in turn; the ratio is the median of each run over the loadHistory run beside it.');
    if (!binary || !parseCodexLine) console.log(`(not installed here: ${[!binary && 'ccusage', !parseCodexLine && '@kibitzsh/kibitz'].filter(Boolean).join(', ')}; npm install adds them)`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
