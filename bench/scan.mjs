/**
 * The scan row of `npm run bench`: a folder of Pi session files read by `agent-chunks scan`'s
 * reading step (`scanAll`) on worker threads against the same files read on the calling
 * thread, samples taken in turn, medians. Says whether reading on threads pays on this
 * machine; the command reads on threads from 64 MiB of files on.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

import { piSession } from './pi-session.mjs';

const require = createRequire(import.meta.url);
const scan = require('../cli/scan.js');

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Every file's result, in path order (the order the command prints them). */
async function readAll(files, threads) {
  const results = new Array(files.length);
  await scan.scanAll(files, {}, threads, (index, result) => {
    results[index] = result;
  });
  return results;
}

export async function runScanCases({ settings, printTable, ratio }) {
  const count = settings.runs > 3 ? 400 : 60;
  const dir = mkdtempSync(join(tmpdir(), 'agent-chunks-bench-scan-'));
  try {
    const session = piSession(64 * 1024);
    for (let i = 0; i < count; i++) {
      const sub = join(dir, `project-${i % 8}`);
      mkdirSync(sub, { recursive: true });
      writeFileSync(join(sub, `session-${i}.jsonl`), session);
    }
    const { files } = scan.collect([dir]);
    const threads = Math.max(2, Math.min(availableParallelism(), 8));
    const one = await readAll(files, 1);
    if (JSON.stringify(await readAll(files, threads)) !== JSON.stringify(one) || one.some((result) => result.error)) {
      console.log('\nWARNING: the scan on threads and on one thread disagree, or a file failed; the timings compare different work.');
      process.exitCode = 1;
    }
    for (let i = 0; i < settings.warmups; i++) {
      await readAll(files, 1);
      await readAll(files, threads);
    }
    const samples = { one: [], threads: [], ratios: [] };
    for (let i = 0; i < settings.runs; i++) {
      let start = performance.now();
      await readAll(files, 1);
      const oneMs = performance.now() - start;
      start = performance.now();
      await readAll(files, threads);
      const threadsMs = performance.now() - start;
      samples.one.push(oneMs);
      samples.threads.push(threadsMs);
      samples.ratios.push(oneMs / threadsMs);
    }
    printTable(
      `Scan: ${files.length} Pi session files of ${(session.length / 1024).toFixed(0)} KB (${((files.length * session.length) / 2 ** 20).toFixed(1)} MB), read as agent-chunks scan reads them`,
      ['case', 'ms', 'speed-up'],
      [
        ['on this thread', median(samples.one).toFixed(1), ratio(1)],
        [`on ${threads} worker threads (${availableParallelism()} processors)`, median(samples.threads).toFixed(1), ratio(median(samples.ratios))],
      ],
    );
    console.log('speed-up: time on this thread ÷ time on the worker threads, the median of the per-run ratios (runs taken in turn).');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
