// A capture reduced to a fixture that may be committed: the tools' own texts — system
// prompts, tool descriptions, injected instructions and reminders — replaced by
// `[removed:<hash>]`, everything else byte for byte as the tool wrote it.
//
// What is the tools' text is learned from the capture itself: every request the tool sent
// to the model server is in requests.jsonl, so the system prompt, the tools' descriptions
// and every injected message are known exactly (our prompts carry a `[lab:` marker, our
// commands' outputs come back as tool results: both are ours). Those texts, and each of
// their lines, are cut out of the files wherever they appear, in the escaped form the file
// holds; a string that still shares a run of 8 words with them (the same text laid out
// otherwise) is replaced whole. Then the result is checked: no such run may be left in any
// string of any file, or nothing is written.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SCENARIOS } from './scenarios.mjs'

const MIN = 40 // shorter strings are names, ids, short labels: not prompts
const LONG = 200 // a string this long that is not ours is removed even if it was never sent
const SHINGLE = 8

/** The files of a capture a fixture keeps: streams (and a client's traffic log), session files, the tool's views and re-reads, run.json. */
function keptFiles(dir) {
  const out = []
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      const rel = relative(dir, p)
      if (statSync(p).isDirectory()) {
        if (rel !== 'logs') walk(p)
      } else if (/^(stream[^/]*\.(jsonl|sse)|(live|load)\.ndjson|traffic\.jsonl|thread-[a-z]+\.jsonl|session-id\.txt|resume\.[^/]*\.json|run\.json)$/.test(rel) || (rel.startsWith('files/') && /\.jsonl?$/.test(name))) {
        // OpenCode's store as `run` left it is the end store's earlier state: one is kept.
        if (!rel.startsWith('files/after-run/')) out.push(rel)
      } else if (/^files\/data\/storage\/migration$/.test(rel)) {
        // OpenCode's legacy JSON tree: the number of its last migration (no extension).
        out.push(rel)
      } else if (rel.startsWith('files/') && !rel.startsWith('files/after-run/') && /\.db$/.test(name)) {
        // A SQLite store (OpenCode's): kept as its rows (see reduceDatabase).
        out.push(rel)
      }
    }
  }
  walk(dir)
  return out.sort()
}

const isOurs = (text) => text.includes('[lab:')

let work
/** A folder like a run's work folder, where our commands are run again (some write files). */
function workDir() {
  if (!work) {
    work = mkdtempSync(join(tmpdir(), 'agent-chunks-lab-reduce-'))
    writeFileSync(join(work, 'notes.txt'), 'A file for the lab to list.\n')
    process.on('exit', () => rmSync(work, { recursive: true, force: true }))
  }
  return work
}

/**
 * Our texts: what the scenario's scripts say (prompts, answers, thinking, commands) and
 * what our commands printed (the tool results the tool sent back to the model).
 */
function ourTexts(scenario, requestsJsonl) {
  const out = new Set([scenario.prompt])
  for (const turns of Object.values(scenario.scripts)) {
    for (const turn of turns) {
      if (turn.text !== undefined) out.add(Array.isArray(turn.text) ? turn.text.join('') : turn.text)
      if (turn.thinking) for (const t of strings(turn.thinking)) out.add(t)
      for (const call of turn.calls ?? []) {
        for (const t of strings(call)) out.add(t)
        // What our command prints, whole: a tool may keep more of it than it sent back.
        if (call.tool === 'shell') out.add(spawnSync('bash', ['-c', call.cmd], { cwd: workDir(), encoding: 'utf8', maxBuffer: 1 << 26 }).stdout)
      }
    }
  }
  for (const line of requestsJsonl.split('\n')) {
    let body
    try {
      body = JSON.parse(line).body
    } catch {
      continue
    }
    for (const m of [...(body?.messages ?? []), ...(Array.isArray(body?.input) ? body.input : [])]) {
      if (m.type === 'function_call_output' || m.role === 'tool') for (const t of strings(m.output ?? m.content)) out.add(t)
      for (const part of Array.isArray(m.content) ? m.content : []) {
        if (part?.type === 'tool_result') for (const t of strings(part.content)) out.add(t)
      }
    }
  }
  return [...out].filter((t) => t.length > 0)
}

/** A long string is ours when it carries our marker, is part of one of our texts, or holds one whole. */
const isOursLong = (s, ours) => isOurs(s) || ours.some((t) => t.includes(s) || (t.length >= MIN && s.includes(t)))

/** Every string under a value. */
function strings(value, out = []) {
  if (typeof value === 'string') out.push(value)
  else if (Array.isArray(value)) for (const v of value) strings(v, out)
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out)
  return out
}

/** The texts of a request that are the tool's, not ours: everything but our prompts and tool results. */
function toolTexts(body) {
  const out = []
  out.push(...strings(body.system), ...strings(body.instructions), ...strings(body.tools))
  for (const m of [...(body.messages ?? []), ...(Array.isArray(body.input) ? body.input : [])]) {
    if (m.type === 'function_call_output' || m.role === 'tool') continue
    if (m.role === 'assistant' || m.type === 'function_call' || m.type === 'reasoning') continue
    const parts = Array.isArray(m.content) ? m.content : [m.content]
    for (const part of parts) {
      if (part?.type === 'tool_result') continue
      for (const s of strings(part)) if (!isOurs(s)) out.push(s)
    }
  }
  return out
}

/** The protected texts of a capture: whole texts and each of their lines, longest first. */
export function protectedTexts(requestsJsonl) {
  const set = new Set()
  for (const line of requestsJsonl.split('\n')) {
    if (!line.trim()) continue
    let entry
    try {
      entry = JSON.parse(line)
    } catch {
      continue
    }
    if (!entry.body) continue
    for (const text of toolTexts(entry.body)) {
      const t = text.trim()
      if (t.length >= MIN && !isOurs(t)) set.add(t)
      for (const piece of t.split('\n')) {
        const p = piece.trim()
        if (p.length >= MIN && !isOurs(p)) set.add(p)
      }
    }
  }
  return [...set].sort((a, b) => b.length - a.length)
}

const hash = (s) => createHash('sha256').update(s).digest('hex').slice(0, 8)

/** The forms a text takes inside a JSON string: as JSON.stringify writes it, and with every non-ASCII character escaped. */
function escapedForms(text) {
  const json = JSON.stringify(text).slice(1, -1)
  const ascii = json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  const slash = json.replaceAll('/', '\\/')
  // inside an SQL string literal (a database's dump) a ' is written twice
  const sql = json.replaceAll("'", "''")
  return [...new Set([json, ascii, slash, sql])]
}

function shingles(text) {
  const words = text.split(/\s+/).filter(Boolean)
  const out = []
  for (let i = 0; i + SHINGLE <= words.length; i++) {
    const s = words.slice(i, i + SHINGLE).join(' ')
    if (s.length >= 30) out.push(s)
  }
  return out
}

/** The string literals of a line that is not whole JSON (a torn last line): the last may be cut. */
function literals(line) {
  const out = []
  for (const m of line.matchAll(/"((?:[^"\\]|\\.)*)("|\\?$)/g)) {
    try {
      out.push(JSON.parse(`"${m[1]}"`))
    } catch {
      out.push(m[1])
    }
  }
  return out
}

/** Strings of a file's text: the strings of each JSON line (or of the whole JSON), the literals of a line that is not JSON. */
function fileStrings(text) {
  try {
    return strings(JSON.parse(text))
  } catch {
    // JSON lines, some torn
  }
  const out = []
  for (const line of text.split('\n')) {
    try {
      strings(JSON.parse(line), out)
    } catch {
      out.push(...literals(line))
    }
  }
  return out
}

/** Replaces the JSON string literal holding `s` (closed, or cut at the end of a torn line) by a mark. */
function replaceLiteral(text, s, mark) {
  for (const form of escapedForms(s)) {
    if (text.includes(`"${form}"`)) return { text: text.split(`"${form}"`).join(`"${mark}"`), count: text.split(`"${form}"`).length - 1 }
    // The literal a torn line ends in, its closing quote lost with the rest of the line.
    const lines = text.split('\n')
    const at = lines.findIndex((l) => l.endsWith(`"${form}`))
    if (at >= 0) {
      lines[at] = lines[at].slice(0, lines[at].length - form.length - 1) + `"${mark}`
      return { text: lines.join('\n'), count: 1 }
    }
  }
  return undefined
}

const REPOSITORY = fileURLToPath(new URL('..', import.meta.url))

/**
 * `run.json`'s commands with the paths of this machine made relative: the repository's
 * files (`lab/tools/…`) to it, the capture's own files (a client's spec) to the capture.
 */
export function withoutLocalPaths(text, dir) {
  for (const root of [`${dir.replace(/\/+$/, '')}/`, REPOSITORY.endsWith('/') ? REPOSITORY : `${REPOSITORY}/`]) {
    text = text.split(JSON.stringify(root).slice(1, -1)).join('')
  }
  return text
}

/**
 * Reduces the capture `dir` into `to`. Returns what was removed and, if any tool text is
 * left, where (then nothing is written).
 * @returns {{ ok: boolean, files: string[], removed: number, leaks: { file: string, text: string }[] }}
 */
export function reduceCapture(dir, to) {
  const requests = readFileSync(join(dir, 'requests.jsonl'), 'utf8')
  const texts = protectedTexts(requests)
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'))
  const ours = ourTexts(SCENARIOS[run.scenario], requests)
  const forms = texts.flatMap((t) => escapedForms(t).map((f) => [f, `[removed:${hash(t)}]`]))
  const known = new Set(texts.flatMap(shingles))
  const out = new Map()
  let removed = 0
  const leaks = []
  const databases = new Map()
  for (const rel of keptFiles(dir)) {
    let text
    let db
    if (rel.endsWith('.db')) {
      // Its rows as SQL; only the INSERT lines are reduced (the schema is the tool's, but
      // no prose), then the database is built again from the dump.
      db = dumpDatabase(join(dir, rel))
      if (db.error) {
        leaks.push({ file: rel, text: db.error })
        continue
      }
      text = db.rows.join('\n')
    } else text = readFileSync(join(dir, rel), 'utf8')
    if (rel === 'run.json') text = withoutLocalPaths(text, dir)
    for (const [form, mark] of forms) {
      if (!text.includes(form)) continue
      const parts = text.split(form)
      removed += parts.length - 1
      text = parts.join(mark)
    }
    // A string that held a tool text, or still shares a run of words with one (the same
    // text laid out otherwise: joined lines, another wrapper), goes whole — its headings and
    // glue are the tool's too — unless it carries one of our prompts.
    // Each string once: a string the file holds twice goes with its first replacement.
    for (const s of new Set(fileStrings(text))) {
      const held = s.includes('[removed:') && s !== `[removed:${s.slice(9, 17)}]` && !isOurs(s)
      if (!held && !shingles(s).some((sh) => known.has(sh))) continue
      const r = replaceLiteral(text, s, `[removed:${hash(s)}]`)
      if (!r) continue
      removed += r.count
      text = r.text
    }
    // Long strings that are not ours go too, whether or not they were ever sent to the
    // model (a sub-agent's instructions, a tool's own notes): the default is to remove.
    // Each string once: replacing one replaces every copy of it.
    for (const s of new Set(fileStrings(text))) {
      // A database's rows are SQL, where a ' inside a string is written twice.
      if (s.length < LONG || s.startsWith('[removed:') || isOursLong(s, ours) || (db && isOursLong(s.replaceAll("''", "'"), ours))) continue
      const r = replaceLiteral(text, s, `[removed:${hash(s)}]`)
      if (!r) {
        leaks.push({ file: rel, text: s.slice(0, 80) })
        continue
      }
      removed += r.count
      text = r.text
    }
    for (const s of fileStrings(text)) {
      const sh = shingles(s).find((x) => known.has(x))
      if (sh) leaks.push({ file: rel, text: sh })
    }
    if (db) databases.set(rel, [...db.schema, ...text.split('\n')].join('\n'))
    else out.set(rel, text)
  }
  if (leaks.length === 0) {
    rmSync(to, { recursive: true, force: true })
    for (const [rel, text] of out) {
      mkdirSync(dirname(join(to, rel)), { recursive: true })
      writeFileSync(join(to, rel), text)
    }
    for (const [rel, sql] of databases) {
      mkdirSync(dirname(join(to, rel)), { recursive: true })
      const built = buildDatabase(sql, join(to, rel))
      if (built) leaks.push({ file: rel, text: built })
    }
  }
  for (const rel of databases.keys()) out.set(rel, '')
  return { ok: leaks.length === 0, files: [...out.keys()], removed, leaks }
}

/**
 * A SQLite database's dump, read from a copy (with its -wal and -shm: what is not
 * checkpointed yet is in the WAL) so the capture's files are never opened: `schema` (the
 * statements that are not rows) and `rows` (one INSERT a line; a row whose text holds a line
 * break stays one line, as the dump writes it with replace(…,char(10))).
 */
function dumpDatabase(path) {
  const tmp = mkdtempSync(join(tmpdir(), 'lab-reduce-db-'))
  try {
    for (const x of ['', '-wal', '-shm']) if (existsSync(path + x)) cpSync(path + x, join(tmp, `store.db${x}`))
    const r = spawnSync('sqlite3', [join(tmp, 'store.db'), '.dump'], { encoding: 'utf8', maxBuffer: 1 << 28 })
    if (r.status !== 0) return { error: `sqlite3 .dump failed (${r.status ?? r.error}): ${r.stderr}` }
    const lines = r.stdout.split('\n').filter((l) => l !== '')
    return { schema: lines.filter((l) => !l.startsWith('INSERT INTO ')), rows: lines.filter((l) => l.startsWith('INSERT INTO ')) }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** A database built from a (reduced) dump, in small pages (a fixture is small), not in WAL mode. */
function buildDatabase(sql, to) {
  rmSync(to, { force: true })
  // The dump's BEGIN TRANSACTION comes first: the page size is set before it.
  const r = spawnSync('sqlite3', [to], { input: `PRAGMA page_size=512;\n${sql}\n`, encoding: 'utf8', maxBuffer: 1 << 28 })
  return r.status === 0 && !r.stderr ? undefined : `sqlite3 could not build it again: ${r.stderr}`
}
