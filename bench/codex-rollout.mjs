import { readFileSync } from 'node:fs';

/**
 * A Codex rollout of at least `bytes` bytes: the example run's turn (a prompt, reasoning,
 * a plan, commands, a patch, an MCP call, an answer) repeated, each copy a turn of its own
 * with its ids made unique, after the example's session meta.
 */
export function codexRollout(bytes) {
  const [meta, ...lines] = readFileSync(new URL('../examples/codex-rollout.jsonl', import.meta.url), 'utf8').trim().split('\n');
  const out = [meta];
  let size = meta.length;
  for (let copy = 0; size < bytes; copy++) {
    for (const line of lines) {
      const unique = line.replace(/"(01a2c0de-000[12]-[0-9a-f-]+|call_demo_\d+|msg_demo_\d+|rs_demo_\d+)"/g, `"$1-${copy}"`);
      out.push(unique);
      size += unique.length + 1;
    }
  }
  return Buffer.from(`${out.join('\n')}\n`);
}
