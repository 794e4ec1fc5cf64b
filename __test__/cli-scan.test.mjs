// agent-chunks scan: every conversation file under the paths given, read as replay reads
// it, one line per file and a summary; failures with their line, exit 1; --json; threads.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'

import { readHistory } from '../index.js'
import { bin, ndjson, root, run, scratch } from './cli-helpers.mjs'

const require = createRequire(import.meta.url)
const scan = { ...require('../cli/scan.js'), ...require('../cli/scan-report.js') }
const tmp = scratch()

// A Claude Code session: a question, one tool call with its result, an answer, and a line
// of a kind this version does not know.
const line = { sessionId: 's', version: '2.0.30', cwd: '/home/ana/app', userType: 'external', isSidechain: false }
const claude = ndjson([
  { type: 'user', uuid: 'u1', parentUuid: null, ...line, timestamp: '2025-01-01T00:00:00Z', message: { role: 'user', content: 'How many files?' } },
  { type: 'assistant', uuid: 'a1', parentUuid: 'u1', ...line, timestamp: '2025-01-01T00:00:01Z', message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls | wc -l' } }] } },
  { type: 'user', uuid: 'r1', parentUuid: 'a1', ...line, timestamp: '2025-01-01T00:00:02Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '7' }] } },
  { type: 'telescope', uuid: 'x1', parentUuid: 'r1', ...line },
  { type: 'assistant', uuid: 'a2', parentUuid: 'r1', ...line, timestamp: '2025-01-01T00:00:03Z', message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'Seven.' }] } },
])

// A Pi session whose third line was cut short by a crash and the next entry written onto it.
const piHeader = { type: 'session', version: 3, id: 'p', timestamp: '2025-01-01T00:00:00Z', cwd: '/w' }
const piUser = { type: 'message', id: 'e1', parentId: null, timestamp: '2025-01-01T00:00:01Z', message: { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 } }
const piTorn = `${ndjson([piHeader, piUser])}{"type":"message","id":"e2","parentId":"e1","timestamp":"2025-01-01T00:00:02Z","message":{"role":"assist${JSON.stringify(piUser)}\n`

// A Pi session whose first line is no UTF-8 text (its header written in Latin-1): no file
// of any format, refused at once.
const piBroken = Buffer.concat([
  Buffer.from(JSON.stringify({ ...piHeader, id: 'q', cwd: '/home/jos\u00e9' }), 'latin1'),
  Buffer.from(`\n${ndjson([piUser])}`),
])

// An AI SDK UI message stream.
const aiSdk = [
  { type: 'start', messageId: 'm' },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'Bonjour' },
  { type: 'text-end', id: 't' },
  { type: 'finish' },
]
  .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
  .join('')

/** A directory tree of sessions, some good, one torn (read past), one broken, files scan passes by. */
function tree() {
  const dir = tmp.path(`tree-${Math.random().toString(36).slice(2)}`)
  mkdirSync(join(dir, 'projects', '-home-ana-app'), { recursive: true })
  mkdirSync(join(dir, 'pi'))
  writeFileSync(join(dir, 'projects', '-home-ana-app', 'b-session.jsonl'), claude)
  writeFileSync(join(dir, 'projects', '-home-ana-app', 'sessions-index.json'), '{"version":1,"entries":[]}')
  writeFileSync(join(dir, 'projects', 'notes.txt'), 'not a session')
  writeFileSync(join(dir, 'pi', 'torn.jsonl'), piTorn)
  writeFileSync(join(dir, 'pi', 'broken.jsonl'), piBroken)
  writeFileSync(join(dir, 'a-stream.sse'), aiSdk)
  return dir
}

describe('scan', { concurrency: 2 }, () => {
  test('no folder given: the folders the table names where the tools keep their sessions, those that exist, a variable moving a tool\'s home', async () => {
    const home = tmp.path('home')
    const moved = tmp.path('claude-config')
    mkdirSync(join(home, '.copilot', 'session-state', 's1'), { recursive: true })
    mkdirSync(join(home, '.claude', 'projects', 'p'), { recursive: true })
    mkdirSync(join(moved, 'projects', 'p'), { recursive: true })
    writeFileSync(join(home, '.copilot', 'session-state', 's1', 'events.jsonl'), readFileSync(join(root, 'examples/copilot-session.events.jsonl')))
    writeFileSync(join(home, '.claude', 'projects', 'p', 'not-this.jsonl'), readFileSync(join(root, 'examples/claude-code-session.jsonl')))
    writeFileSync(join(moved, 'projects', 'p', 'session.jsonl'), readFileSync(join(root, 'examples/claude-code-stream.session.jsonl')))
    const { code, stdout, stderr } = await run(['scan', '--json'], { env: { HOME: home, CLAUDE_CONFIG_DIR: moved, QWEN_HOME: '', PI_CODING_AGENT_DIR: '' } })
    assert.equal(code, 0, stderr)
    assert.equal(stderr, `scanning ${join(moved, 'projects')}, ${join(home, '.copilot', 'session-state')}\n`)
    const { files, summary } = JSON.parse(stdout)
    assert.deepEqual(files.map((f) => [f.file, f.format, f.messages]), [
      [join(moved, 'projects', 'p', 'session.jsonl'), 'claude', 3],
      [join(home, '.copilot', 'session-state', 's1', 'events.jsonl'), 'copilot', 3],
    ])
    assert.equal(summary.failed, 0)
    const none = await run(['scan'], { env: { HOME: tmp.path('empty-home'), CLAUDE_CONFIG_DIR: '', QWEN_HOME: '', PI_CODING_AGENT_DIR: '' } })
    assert.equal(none.code, 0)
    assert.equal(none.stderr, 'no session folder of a tool this version reads is on this machine\n')
  })

  test('a directory: one line per conversation file in path order, failures with their line, a summary, exit 1', async () => {
    const dir = tree()
    const { code, stdout, stderr } = await run(['scan', dir])
    assert.equal(code, 1)
    assert.equal(stderr, '', 'no bar off a terminal')
    const lines = stdout.trimEnd().split('\n')
    const claudeRead = readHistory(claude)
    const piRead = readHistory(piTorn)
    assert.equal(claudeRead.skipped.count, 1, 'the fixture has one line the reader skips')
    assert.equal(piRead.skipped.count, 1, 'the torn line is skipped, the entry written onto it read')
    const kinds = (skipped) => Object.entries(skipped.kinds).map(([kind, n]) => `${kind}: ${n}`).join(', ')
    assert.deepEqual(lines, [
      `${join(dir, 'a-stream.sse')}: ai-sdk, 1 message`,
      `${join(dir, 'pi', 'broken.jsonl')}:1: failed: invalid UTF-8`,
      `${join(dir, 'pi', 'torn.jsonl')}: pi, ${piRead.messages.length} messages; skipped 1 (${kinds(piRead.skipped)})`,
      `${join(dir, 'projects', '-home-ana-app', 'b-session.jsonl')}: claude, ${claudeRead.messages.length} messages, 1 tool call (1 with a result); skipped 1 (${kinds(claudeRead.skipped)})`,
      '4 files: 3 read, 1 failed (and 1 .json file that is not a conversation)',
      `${1 + piRead.messages.length + claudeRead.messages.length} messages, 1 tool call (1 with a result); formats: ai-sdk 1, pi 1, claude 1`,
      `skipped 2 (${kinds({ kinds: { ...piRead.skipped.kinds, ...claudeRead.skipped.kinds } })}), in 2 files`,
    ])
  })

  test('--json: each file with its counts and the reader report whole, or its error; the summary', async () => {
    const dir = tree()
    const { code, stdout } = await run(['scan', dir, '--json'])
    assert.equal(code, 1)
    const { files, summary } = JSON.parse(stdout)
    const byName = Object.fromEntries(files.map((file) => [file.file.slice(dir.length + 1), file]))
    assert.deepEqual(Object.keys(byName), ['a-stream.sse', 'pi/broken.jsonl', 'pi/torn.jsonl', 'projects/-home-ana-app/b-session.jsonl', 'projects/-home-ana-app/sessions-index.json'])
    const claudeRead = readHistory(claude)
    const piRead = readHistory(piTorn)
    const { format, messages, ...claudeReport } = claudeRead
    assert.deepEqual(byName['projects/-home-ana-app/b-session.jsonl'], {
      file: join(dir, 'projects/-home-ana-app/b-session.jsonl'),
      format: 'claude',
      messages: claudeRead.messages.length,
      roles: { user: 1, assistant: claudeRead.messages.length - 1 },
      toolCalls: 1,
      toolResults: 1,
      report: claudeReport,
    })
    assert.deepEqual(byName['pi/broken.jsonl'].error, { line: 1, reason: 'invalid UTF-8' })
    assert.equal(byName['pi/torn.jsonl'].report.skipped.count, 1)
    assert.match(byName['projects/-home-ana-app/sessions-index.json'].ignored, /./)
    assert.deepEqual(summary, {
      files: 4,
      read: 3,
      failed: 1,
      ignored: 1,
      messages: 1 + piRead.messages.length + claudeRead.messages.length,
      toolCalls: 1,
      toolResults: 1,
      formats: { 'ai-sdk': 1, pi: 1, claude: 1 },
      report: {
        skipped: { count: 2, kinds: { ...piRead.skipped.kinds, ...claudeRead.skipped.kinds } },
        leftOut: { count: 0, reasons: {} },
      },
      filesWith: { skipped: 2 },
    })
  })

  test('exit 0 when every file reads; --quiet prints only failures and the summary', async () => {
    const dir = tree()
    const good = join(dir, 'projects')
    const all = await run(['scan', good, join(dir, 'a-stream.sse')])
    assert.equal(all.code, 0)
    assert.equal(all.stdout.split('\n').filter((line) => line.includes(': claude, ') || line.includes(': ai-sdk, ')).length, 2)
    const quiet = await run(['scan', dir, '-q'])
    assert.equal(quiet.code, 1)
    assert.deepEqual(quiet.stdout.split('\n').slice(0, 2).map((line) => line.split(':')[0].slice(dir.length + 1) || line.split(':')[0]), ['pi/broken.jsonl', '4 files'])
  })

  test('a file named on the command line is read whatever its name; a missing one fails', async () => {
    const log = tmp.file('capture.log', claude)
    const { code, stdout } = await run(['scan', log, tmp.path('nowhere.jsonl')])
    assert.equal(code, 1)
    const [first, second] = stdout.split('\n')
    assert.equal(first, `${tmp.path('nowhere.jsonl')}: failed: no such file`, 'a path that cannot be walked is said first')
    assert.match(second, /capture\.log: claude, /)
  })

  test('a device or a pipe named on the command line is a failure, not a read that never ends', { skip: process.platform === 'win32' }, async () => {
    const { code, stdout } = await run(['scan', '/dev/zero', '--json'])
    assert.equal(code, 1)
    assert.deepEqual(JSON.parse(stdout).files, [{ file: '/dev/zero', error: { reason: 'not a regular file' } }])
  })

  test('--format reads every file as that format; --strict refuses lines the reader does not know', async () => {
    const file = tmp.file('as-claude.jsonl', claude)
    const given = await run(['scan', file, '--format', 'pi', '--json'])
    assert.equal(given.code, 0)
    const [asPi] = JSON.parse(given.stdout).files
    assert.equal(asPi.format, 'pi')
    assert.deepEqual(asPi.report.skipped, readHistory(claude, { format: 'pi' }).skipped, 'read as pi reads it: no entry it knows')
    const dir = tree()
    const walked = JSON.parse((await run(['scan', dir, '--format', 'claude', '--json'])).stdout)
    assert.match(walked.files.find((entry) => entry.file.endsWith('sessions-index.json')).ignored, /./, 'a .json file found by the walk is still read only when its content is a conversation')
    const strict = await run(['scan', file, '--strict', '--json'])
    assert.equal(strict.code, 1)
    assert.equal(JSON.parse(strict.stdout).files[0].error.line, 4, 'the unknown line')
  })

  test('symbolic links: followed, a loop walked once, a dangling one to a session is a failure', async () => {
    const dir = tree()
    symlinkSync(dir, join(dir, 'projects', 'loop'))
    symlinkSync(join(dir, 'gone.jsonl'), join(dir, 'pi', 'dangling.jsonl'))
    symlinkSync(join(dir, 'gone.txt'), join(dir, 'pi', 'dangling.txt'))
    const { code, stdout } = await run(['scan', dir, '--json'])
    assert.equal(code, 1)
    const { files, summary } = JSON.parse(stdout)
    assert.equal(summary.files, 5, 'each file once, the dangling .jsonl link among them')
    assert.deepEqual(files.find((file) => file.file.endsWith('dangling.jsonl')).error, { reason: 'no such file' })
  })

  test('an unreadable file or directory is a failure, not a crash', { skip: process.getuid?.() === 0 && 'root reads every file' }, async () => {
    const dir = tree()
    chmodSync(join(dir, 'a-stream.sse'), 0)
    chmodSync(join(dir, 'pi'), 0)
    const { code, stdout } = await run(['scan', dir, '--json'])
    chmodSync(join(dir, 'pi'), 0o755)
    assert.equal(code, 1)
    const { files } = JSON.parse(stdout)
    assert.deepEqual(files.find((file) => file.file.endsWith('a-stream.sse')).error, { reason: 'permission denied' })
    assert.deepEqual(files.find((file) => file.file.endsWith('pi')).error, { reason: 'permission denied' })
  })

  test('on threads the output is the same, in the same order', async () => {
    const dir = tmp.path('many')
    mkdirSync(dir)
    for (let i = 0; i < 12; i++) tmp.file(`many/${String(i).padStart(2, '0')}.jsonl`, i % 4 === 3 ? piBroken : claude)
    const one = await run(['scan', dir, '-j', '1'])
    const four = await run(['scan', dir, '-j', '4'])
    assert.equal(one.code, 1)
    assert.equal(four.code, 1)
    assert.equal(four.stdout, one.stdout)
    assert.equal(one.stdout.split('\n').filter((line) => line.includes(': failed: ')).length, 3)
  })

  test('every example of the package is read', async () => {
    const { code, stdout } = await run(['scan', 'examples', '--json'])
    assert.equal(code, 0, stdout)
    const { files, summary } = JSON.parse(stdout)
    const examples = readdirSync(join(root, 'examples')).filter((name) => /\.(jsonl|ndjson|sse|json)$/.test(name))
    assert.equal(files.length, examples.length)
    assert.equal(summary.failed, 0)
    assert.equal(summary.ignored, 0)
  })

  test('usage errors exit 2', async () => {
    for (const [args, message] of [
      [['scan', '.', '-j', '0'], /--jobs must be a whole number from 1 to 64, got "0"/],
      [['scan', '.', '--jobs', '2.5'], /--jobs must be a whole number/],
      [['scan', '.', '--format', 'yaml'], /--format must be one of/],
      [['scan', '.', '--leaf', 'x'], /unknown option --leaf/],
    ]) {
      const { code, stdout, stderr } = await run(args)
      assert.equal(code, 2, args.join(' '))
      assert.equal(stdout, '')
      assert.match(stderr, message)
      assert.match(stderr, /see agent-chunks scan --help/)
    }
  })

  test('scan --help, and the main help lists it', async () => {
    const own = await run(['scan', '--help'])
    assert.equal(own.code, 0)
    assert.match(own.stdout, /^Usage: agent-chunks scan \[PATH…\] /)
    assert.match(own.stdout, /~\/\.claude\/projects \(\$CLAUDE_CONFIG_DIR\/projects\)/)
    const main = await run(['--help'])
    assert.match(main.stdout, /scan \[PATH…\]/)
  })

  test('a progress bar on a terminal (standard error), none when it is a pipe', { skip: !process.stderr && 'no stderr' }, async () => {
    const dir = tree()
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} scan ${JSON.stringify(dir)} -q`
    const screen = await new Promise((resolve, reject) => {
      execFile('script', ['-qec', command, '/dev/null'], { cwd: root, encoding: 'utf8' }, (error, stdout) => (error && error.code !== 1 ? reject(error) : resolve(stdout)))
    })
    assert.match(screen, /\r\x1b\[2Kscanning [█░]+ +\d+%/)
    assert.match(screen, /scanning █+ 100%/)
  })
})

describe('what the reader reports is shown whole', () => {
  test('every counter: numbers, arrays, counts with their kinds, a count with an example', () => {
    const report = {
      skipped: { count: 3, examples: ['line 2: unknown entry type "x"'], byKind: { 'unknown entry type': 2, 'torn line': 1 } },
      leftOut: { count: 2, examples: ['entry e9: unreachable'] },
      branches: 4,
      notes: ['a', 'b'],
      empty: { count: 0 },
    }
    assert.equal(scan.describeReport(report), 'skipped 3 (unknown entry type: 2, torn line: 1), left out 2 (e.g. entry e9: unreachable), branches 4, notes 2')
  })

  test('the summary adds every counter up, and counts the files that had it', () => {
    const results = [
      { file: 'a', format: 'pi', messages: 2, toolCalls: 1, toolResults: 1, report: { skipped: { count: 1, examples: ['x'], byKind: { torn: 1 } }, leftOut: { count: 2 } } },
      { file: 'b', format: 'pi', messages: 1, toolCalls: 0, toolResults: 0, report: { skipped: { count: 2, examples: ['y'], byKind: { torn: 1, unknown: 1 } }, leftOut: { count: 0 } } },
      { file: 'c', error: { line: 3, reason: 'bad' } },
    ]
    const summary = scan.summarize(results)
    assert.deepEqual(summary.report, { skipped: { count: 3, byKind: { torn: 2, unknown: 1 } }, leftOut: { count: 2 } })
    assert.deepEqual(summary.filesWith, { skipped: 2, leftOut: 1 })
    assert.deepEqual(scan.describeSummary(summary), [
      '3 files: 2 read, 1 failed',
      '3 messages, 1 tool call (1 with a result); formats: pi 2',
      'skipped 3 (torn: 2, unknown: 1), in 2 files',
      'left out 2, in 1 file',
    ])
  })

  test('little work is read on this thread; 64 MiB or more on several', () => {
    const few = [{ file: 'examples/pi-session.jsonl' }]
    assert.equal(scan.threadsFor(few), 1)
    assert.equal(scan.threadsFor(few, 4), 1, 'never more threads than files')
    const many = Array.from({ length: 400 }, () => ({ file: 'examples/pi-session.jsonl' }))
    assert.equal(scan.threadsFor(many), 1, 'many small files are still little work')
    assert.equal(scan.threadsFor(many, 3), 3, '--jobs is taken as given')
    const big = tmp.file('big.jsonl', ' '.repeat(1024 * 1024))
    const much = Array.from({ length: 64 }, () => ({ file: big }))
    assert.ok(scan.threadsFor(much) > 1 || availableParallelism() === 1, '64 MiB of files are read on threads')
  })
})
