// What a capture holds: every JSON-lines file of it with its lines counted by kind (the
// `type`, with the subtype or payload type that tells lines apart in each tool's format).
// `checkCapture` is the hook the readers' check plugs into: it receives the capture
// folder and its run record, and `captureParts` says which files are the live streams, the
// session files and the tool's own view; today it reports the kinds, later it will compare
// the live fold, the reload and the tool's view.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
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

/**
 * The parts of a capture a check compares: the live streams, the session files the tool
 * wrote (its sub-agents' files among them) and the tool's own view of them.
 * @returns {{ stream?: string, partial?: string, sessions: string[], views: string[] }}
 */
export function captureParts(dir) {
  const sessions = []
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else if (/\.jsonl?$/.test(name) && /(rollout-|events\.jsonl$|\/chats\/|\/projects\/|\/sessions\/)/.test(p)) sessions.push(p)
    }
  }
  const files = join(dir, 'files')
  if (existsSync(files)) walk(files)
  const has = (name) => (existsSync(join(dir, name)) ? join(dir, name) : undefined)
  const views = readdirSync(dir)
    .filter((n) => n.startsWith('resume.'))
    .map((n) => join(dir, n))
  return { stream: has('stream.jsonl'), partial: has('stream.partial.jsonl'), sessions: sessions.sort(), views }
}

/**
 * The check hook: receives a capture folder and its run record.
 * @returns {{ ok: boolean, report: string }}
 */
export function checkCapture(dir, run) {
  const files = describeCapture(dir)
  const parts = captureParts(dir)
  const lines = [
    `${run.tool} ${run.version} ${run.scenario}: ${run.status} — ${parts.sessions.length} session file(s), view: ${
      parts.views.map((v) => relative(dir, v)).join(', ') || 'none'
    }`,
  ]
  for (const f of files) {
    const kinds = Object.entries(f.kinds)
      .map(([k, n]) => `${k}×${n}`)
      .join(' ')
    lines.push(`  ${f.file}: ${f.lines} lines${f.torn ? `, ${f.torn} torn` : ''} — ${kinds}`)
  }
  return { ok: run.status === 'captured', report: lines.join('\n') }
}
