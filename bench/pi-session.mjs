import { readFileSync } from 'node:fs';

/**
 * A Pi session file of at least `bytes` bytes: the recorded example session's entries
 * repeated, with ids made unique per copy.
 */
export function piSession(bytes) {
  const [header, ...entries] = readFileSync(new URL('../examples/pi-session.jsonl', import.meta.url), 'utf8').trim().split('\n');
  const lines = [header];
  let size = header.length;
  for (let copy = 0; size < bytes; copy++) {
    for (const entry of entries) {
      const line = entry.replace(/"(1a2b3c[0-9a-f]{2}|toolu_[0-9A-Z]+)"/g, `"$1-${copy}"`);
      lines.push(line);
      size += line.length + 1;
    }
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}
