import { readFileSync } from 'node:fs';

/**
 * A Pi session file of at least `bytes` bytes: the recorded example session's entries
 * repeated, with ids made unique per copy, each copy continuing the one before (so the
 * whole file is one conversation, the path to its last entry).
 */
export function piSession(bytes) {
  const [header, ...entries] = readFileSync(new URL('../examples/pi-session.jsonl', import.meta.url), 'utf8').trim().split('\n');
  const lines = [header];
  let size = header.length;
  const lastId = /"id":"([^"]+)"/.exec(entries.at(-1))[1];
  for (let copy = 0; size < bytes; copy++) {
    for (const entry of entries) {
      let line = entry.replace(/"(1a2b3c[0-9a-f]{2}|toolu_[0-9A-Z]+)"/g, `"$1-${copy}"`);
      if (copy > 0) line = line.replace('"parentId":null', `"parentId":"${lastId}-${copy - 1}"`);
      lines.push(line);
      size += line.length + 1;
    }
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}
