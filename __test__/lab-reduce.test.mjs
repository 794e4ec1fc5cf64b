// A lab capture reduced to a fixture that may be committed: the tool's own texts (system
// prompt, tool descriptions, injected reminders, long texts never sent) are replaced, what
// is ours (prompts, answers, command output) stays byte for byte, a torn last line is
// handled, and a tool text the reducer cannot cut out makes it refuse to write anything.
import test from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { reduceCapture, withoutLocalPaths } from '../lab/reduce.mjs'
import { SCENARIOS } from '../lab/scenarios.mjs'

const SYSTEM = 'You are a very particular coding agent who always answers in the voice of a lighthouse keeper at dawn.'
const TOOL_DESC = 'Runs a shell command in the user\u2019s workspace and returns whatever it printed to standard output.'
const REMINDER = '<system-reminder>Remember the lighthouse rules: never mention the fog horn to anyone at all.</system-reminder>'
const UNSENT = 'Sub-agent instructions the tool keeps in its file but never sends: '.repeat(5)
const prompt = SCENARIOS.tool.prompt
const answer = SCENARIOS.tool.scripts.tool[1].text

function capture() {
  const dir = mkdtempSync(join(tmpdir(), 'lab-reduce-'))
  const body = {
    model: 'm',
    system: [{ type: 'text', text: SYSTEM }],
    tools: [{ name: 'Bash', description: TOOL_DESC, input_schema: { type: 'object' } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: REMINDER }, { type: 'text', text: prompt }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Bash', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'lab-tool-output\nnotes.txt\n' }] },
    ],
  }
  writeFileSync(join(dir, 'requests.jsonl'), JSON.stringify({ rule: 'script', body }) + '\n')
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ tool: 'claude', version: '1', scenario: 'tool', status: 'captured' }))
  mkdirSync(join(dir, 'files', 'projects'), { recursive: true })
  const lines = [
    // the system prompt as one JSON string (as JSON.stringify writes it), and ASCII-escaped
    JSON.stringify({ type: 'api-request-blob', system: SYSTEM, tools: [{ description: TOOL_DESC }] }),
    JSON.stringify({ type: 'attachment', text: TOOL_DESC }).replace('\u2019', '\\u2019'),
    // the reminder joined into a longer string of the tool's own
    JSON.stringify({ type: 'attachment', rendered: `Context:\n${REMINDER}\nEnd of context.` }),
    JSON.stringify({ type: 'user', message: { content: prompt } }),
    JSON.stringify({ type: 'user', toolUseResult: { stdout: 'lab-tool-output\nnotes.txt\n' } }),
    JSON.stringify({ type: 'meta', instructions: UNSENT }),
    JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: answer }] } }),
  ]
  const file = lines.join('\n') + '\n' + JSON.stringify({ type: 'system', text: SYSTEM }).slice(0, -3)
  writeFileSync(join(dir, 'files', 'projects', 's.jsonl'), file)
  writeFileSync(join(dir, 'stream.jsonl'), lines.slice(3).join('\n') + '\n')
  return dir
}

test('the tool\'s texts go, ours stay byte for byte, a torn last line included', () => {
  const dir = capture()
  const to = join(dir, 'fixture')
  try {
    const r = reduceCapture(dir, to)
    assert.equal(r.ok, true, JSON.stringify(r.leaks))
    assert.deepEqual(r.files.sort(), ['files/projects/s.jsonl', 'run.json', 'stream.jsonl'])
    assert.ok(!existsSync(join(to, 'requests.jsonl')), 'the requests are never part of a fixture')
    const out = readFileSync(join(to, 'files', 'projects', 's.jsonl'), 'utf8')
    for (const secret of ['lighthouse', 'Runs a shell command', 'never sends', 'fog horn']) assert.ok(!out.includes(secret), secret)
    const lines = out.split('\n')
    assert.match(lines[0], /^\{"type":"api-request-blob","system":"\[removed:[0-9a-f]{8}\]","tools":\[\{"description":"\[removed:[0-9a-f]{8}\]"\}\]\}$/)
    assert.match(lines[2], /^\{"type":"attachment","rendered":"\[removed:[0-9a-f]{8}\]"\}$/, 'a string that held a tool text goes whole')
    const original = readFileSync(join(dir, 'files', 'projects', 's.jsonl'), 'utf8').split('\n')
    assert.equal(lines[3], original[3], 'our prompt')
    assert.equal(lines[4], original[4], 'our command output')
    assert.equal(lines[6], original[6], 'our answer')
    assert.match(lines[7], /^\{"type":"system","text":"\[removed:[0-9a-f]{8}\]$/, 'the torn line keeps its tear')
    const stream = readFileSync(join(to, 'stream.jsonl'), 'utf8').split('\n')
    const streamBefore = readFileSync(join(dir, 'stream.jsonl'), 'utf8').split('\n')
    assert.deepEqual([stream[0], stream[1], stream[3]], [streamBefore[0], streamBefore[1], streamBefore[3]])
    assert.match(stream[2], /^\{"type":"meta","instructions":"\[removed:[0-9a-f]{8}\]"\}$/, 'a long text never sent goes too')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('a tool text it cannot cut out makes it write nothing and say where', () => {
  const dir = capture()
  const to = join(dir, 'fixture')
  try {
    // The system prompt with every letter "a" written as \u0061: the same string once
    // parsed, in a form the reducer does not search for.
    const sneaky = JSON.stringify({ type: 'x', text: SYSTEM }).replaceAll('a', '\\u0061')
    writeFileSync(join(dir, 'files', 'projects', 'other.jsonl'), sneaky + '\n')
    const r = reduceCapture(dir, to)
    assert.equal(r.ok, false)
    assert.ok(r.leaks.some((l) => l.file === 'files/projects/other.jsonl'))
    assert.ok(!existsSync(to), 'nothing written')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test("a client's traffic log and the tool's re-reads are kept, reduced like the streams", () => {
  const dir = capture()
  const to = join(dir, 'fixture')
  try {
    writeFileSync(join(dir, 'traffic.jsonl'), JSON.stringify({ id: 2, result: { thread: { id: 't', instructions: SYSTEM } } }) + '\n')
    writeFileSync(join(dir, 'thread-read.jsonl'), JSON.stringify({ id: 2, result: { thread: { id: 't', turns: [{ items: [{ type: 'agentMessage', text: SYSTEM }] }] } } }) + '\n')
    const r = reduceCapture(dir, to)
    assert.equal(r.ok, true, JSON.stringify(r.leaks))
    assert.deepEqual(r.files.sort(), ['files/projects/s.jsonl', 'run.json', 'stream.jsonl', 'thread-read.jsonl', 'traffic.jsonl'])
    for (const name of ['traffic.jsonl', 'thread-read.jsonl']) assert.ok(!readFileSync(join(to, name), 'utf8').includes('lighthouse'), name)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

// OpenCode's store is a SQLite database (with a WAL beside it): the fixture keeps its rows,
// the tool's texts cut out of them as out of any file, in a database built again from them.
const sqlite = spawnSync('sqlite3', ['-version'], { encoding: 'utf8' }).status === 0
test('a SQLite store keeps its rows, the tool text in one replaced, in a database built again', { skip: !sqlite && 'no sqlite3 here' }, () => {
  const dir = capture()
  const to = join(dir, 'fixture')
  try {
    mkdirSync(join(dir, 'files', 'data'), { recursive: true })
    const db = join(dir, 'files', 'data', 'opencode.db')
    const row = (data) => `'${JSON.stringify(data).replaceAll("'", "''")}'`
    const sql = [
      'PRAGMA journal_mode=WAL;',
      'CREATE TABLE part (id TEXT PRIMARY KEY, data TEXT NOT NULL);',
      `INSERT INTO part VALUES ('prt_1', ${row({ type: 'text', text: prompt })});`,
      `INSERT INTO part VALUES ('prt_2', ${row({ type: 'text', text: SYSTEM, synthetic: true })});`,
      `INSERT INTO part VALUES ('prt_3', ${row({ type: 'text', text: "it's the keeper's line:\n" + REMINDER })});`,
    ].join('\n')
    assert.equal(spawnSync('sqlite3', [db], { input: sql }).status, 0)
    const r = reduceCapture(dir, to)
    assert.equal(r.ok, true, JSON.stringify(r.leaks))
    assert.ok(r.files.includes('files/data/opencode.db'))
    const rows = spawnSync('sqlite3', [join(to, 'files', 'data', 'opencode.db'), 'SELECT id, data FROM part ORDER BY id'], { encoding: 'utf8' }).stdout.trim().split('\n')
    assert.equal(rows.length, 3)
    assert.equal(rows[0], `prt_1|${JSON.stringify({ type: 'text', text: prompt })}`, 'our prompt, byte for byte')
    assert.match(rows[1], /^prt_2\|\{"type":"text","text":"\[removed:[0-9a-f]{8}\]","synthetic":true\}$/)
    assert.ok(!rows.slice(1).join('\n').includes('lighthouse'), rows.join('\n'))
    assert.equal(spawnSync('sqlite3', [join(to, 'files', 'data', 'opencode.db'), 'PRAGMA journal_mode'], { encoding: 'utf8' }).stdout.trim(), 'delete')
    assert.ok(!existsSync(join(to, 'files', 'data', 'opencode.db-wal')), 'no WAL: the rows are in the database')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test("run.json names the repository's files and the capture's own relative to them, not where they were on the machine that ran it", () => {
  const repository = fileURLToPath(new URL('..', import.meta.url))
  const capture = '/tmp/lab capture/claude-acp/0.17.1/tool'
  const run = { cmd: '/usr/bin/node', args: [join(repository, 'lab/tools/acp-client.mjs'), `${capture}/live.spec.json`, '--cwd', '/root/.cache/agent-chunks-lab/runs/x/work'] }
  assert.deepEqual(JSON.parse(withoutLocalPaths(JSON.stringify(run), capture)), {
    cmd: '/usr/bin/node',
    args: ['lab/tools/acp-client.mjs', 'live.spec.json', '--cwd', '/root/.cache/agent-chunks-lab/runs/x/work'],
  })
})

test("no fixture's run.json names a path of the machine that recorded it", () => {
  const fixtures = fileURLToPath(new URL('./fixtures/lab/', import.meta.url))
  const runs = []
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name))
      else if (entry.name === 'run.json') runs.push(join(dir, entry.name))
    }
  }
  walk(fixtures)
  assert.ok(runs.length > 40, `${runs.length} run.json files`)
  for (const file of runs) {
    for (const step of JSON.parse(readFileSync(file, 'utf8')).steps ?? []) {
      for (const arg of step.args ?? []) {
        assert.doesNotMatch(String(arg), /^\/.*\/lab\/tools\/|^\/.*\.spec\.json$/, file)
      }
    }
  }
})
