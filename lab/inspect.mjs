// What a capture holds: every JSON-lines file of it with its lines counted by kind (the
// `type`, with the subtype or payload type that tells lines apart in each tool's format).
// (The check of what the readers make of a capture is lab/check.mjs.)
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

export function kindOf(o) {
  if (o === null || typeof o !== 'object') return typeof o
  const t = o.type ?? o.method ?? (o.record_type ? `record:${o.record_type}` : undefined)
  // Lines without a type are named by their keys, sorted: some tools write them in a
  // different order each run (Codex's first exec line before ThreadEvent).
  if (t === undefined && typeof o.msg?.type === 'string') return `msg/${o.msg.type}`
  if (t === undefined) return `{${Object.keys(o).sort().slice(0, 5).join(',')}}`
  const sub =
    o.subtype ??
    (o.payload && typeof o.payload === 'object' ? (o.payload.type ?? o.payload.item?.type) : undefined) ??
    (t === 'stream_event' ? o.event?.type : undefined) ??
    (typeof o.item === 'object' && o.item ? o.item.type : undefined) ??
    (typeof o.msg === 'object' && o.msg ? o.msg.type : undefined)
  let kind = sub ? `${t}/${sub}` : String(t)
  if (o.payload?.type === 'item_completed' && o.payload.item?.type) kind = `${t}/item_completed/${o.payload.item.type}`
  if (o.ephemeral) kind += ' (ephemeral)'
  return kind
}

/** @returns {{ file: string, lines: number, torn: number, kinds: Record<string, number> }[]} */
export function describeCapture(dir) {
  const out = []
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else if (/\.jsonl$/.test(name) && name !== 'requests.jsonl') out.push(describeFile(p, dir))
    }
  }
  walk(dir)
  return out
}

function describeFile(path, root) {
  const kinds = {}
  let lines = 0
  let torn = 0
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    lines++
    try {
      const k = kindOf(JSON.parse(line))
      kinds[k] = (kinds[k] ?? 0) + 1
    } catch {
      torn++
    }
  }
  return { file: relative(root, path), lines, torn, kinds }
}
