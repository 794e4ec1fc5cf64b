// A small fixed part of the agent lab, offline: the committed captures (reduced: the tools'
// own texts replaced) of Claude Code, Copilot CLI, Qwen Code, Codex, OpenCode and Kilo CLI go through the lab's check —
// the live fold == the reload of the session file the run wrote == what the tool showed of
// it — and each must pass, or differ only where a reason of lab/reasons.mjs says the tool
// itself does. A capture changed by one word must fail it.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'

import { isAcpTool } from '../lab/acp-check.mjs'
import { checkCapture, describeResult } from '../lab/check.mjs'
import { REASONS, explain } from '../lab/reasons.mjs'
import { root, scratch } from './cli-helpers.mjs'

const fixtures = join(root, '__test__', 'fixtures')

/** Every capture folder under the fixtures (a folder with a run.json). */
function captures(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (!statSync(p).isDirectory()) continue
    if (existsSync(join(p, 'run.json'))) out.push(p)
    else captures(p, out)
  }
  return out.sort()
}
const all = [...captures(join(fixtures, 'lab')), ...captures(join(fixtures, 'codex'))]
const check = (dir) => checkCapture(dir, JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')))

// The captures that do not simply pass, and why (anything else must pass).
const EXPECTED = {
  // Codex 0.147 persists no command events: its own view shows no calls, ours does.
  'codex/0.147.0-tool': { verdict: 'explained', reasons: ['codex-view-without-calls'] },
  // A call of a tool that does not exist: an output in the rollout, no item in Codex's view.
  'codex/0.171.0-failing-tool': { verdict: 'explained', reasons: ['codex-view-without-unknown-tool'] },
  // Codex 0.147 driven through its app server: the calls it streamed live are neither in its
  // re-reads nor in its own view (it stores no command items).
  'codex-app-server/0.147.0/tool': { verdict: 'explained', reasons: ['codex-reread-without-calls', 'codex-view-without-calls'] },
  // The TypeScript CLI's -q output is not a stream format; nothing to compare its rollout with.
  'codex/0.1.2504172351-tool': { verdict: 'none', reasons: [] },
  // ACP: the agent's file keeps what ACP shows otherwise (tool names, steps, signatures).
  'claude-acp/0.23.1/tool': { verdict: 'explained', reasons: ['acp-shows-not-stores'] },
  'qwen-acp/0.24.4/tool': { verdict: 'explained', reasons: ['acp-shows-not-stores'] },
  // A cancelled turn's streamed text, kept by neither the transcript nor the load.
  'claude-acp/0.23.1/abort': { verdict: 'explained', reasons: ['acp-cancelled-text-not-kept'] },
  // A refused model call: Claude Code keeps it as text, the live prompt fails with it.
  'claude-acp/0.23.1/model-error': { verdict: 'explained', reasons: ['claude-acp-api-error-as-text', 'acp-load-replays-no-endings'] },
  'qwen-acp/0.24.4/model-error': { verdict: 'explained', reasons: ['acp-load-replays-no-endings'] },
  // TodoWrite sent as a plan, kept as a call.
  'claude-acp/0.23.1/plan': { verdict: 'explained', reasons: ['acp-plan-for-todo-call'] },
  'qwen-acp/0.24.4/failing-tool': { verdict: 'explained', reasons: ['qwen-acp-unknown-tool-input', 'acp-shows-not-stores'] },
  'qwen-acp/0.24.4/permission': { verdict: 'explained', reasons: ['qwen-acp-permission-title', 'acp-shows-not-stores'] },
  'claude-acp/0.17.1/tool': { verdict: 'explained', reasons: ['acp-shows-not-stores'] },
  // codex-acp: its live updates come from Codex's events, its load and rollout are the rollout's items.
  'codex-acp/0.16.0/tool': { verdict: 'explained', reasons: ['codex-acp-events-not-rollout'] },
  'codex-acp/0.16.0/permission': { verdict: 'explained', reasons: ['codex-acp-events-not-rollout'] },
  'codex-acp/0.16.0/failing-tool': { verdict: 'explained', reasons: ['codex-acp-events-not-rollout'] },
  'codex-acp/0.9.5/plan': { verdict: 'explained', reasons: ['codex-acp-events-not-rollout', 'acp-plan-for-todo-call'] },
  // 0.4.4 offers no session/load: only its rollout to compare with.
  'codex-acp/0.4.4/tool': { verdict: 'explained', reasons: ['codex-acp-events-not-rollout'] },
  // Gemini CLI: a command known live from its permission request, replayed from its recording.
  'gemini-acp/0.61.0/tool': { verdict: 'explained', reasons: ['gemini-acp-load-from-recording'] },
  'gemini-acp/0.61.0/permission-reject': { verdict: 'explained', reasons: ['gemini-acp-rejected-call-not-kept'] },
  // OpenCode 1.18.33's /api/event carries only the events of the requests: the user's message.
  'opencode/1.18.33/read-error': { verdict: 'explained', reasons: ['opencode-api-event-requests-only'] },
  'opencode/1.18.33/tool': { verdict: 'explained', reasons: ['opencode-api-event-requests-only'] },
}

const reasonsOf = (r) => [...new Set(r.streams.flatMap((s) => Object.values(s.checks).flatMap((c) => (c.reason ? [c.reason] : []))))]

describe('lab check over the committed captures', () => {
  test('there is a capture of each tool, with its streams, session files and view', () => {
    // lab/<tool>/<version>/<scenario>, and Codex's own layout codex/<version>-<scenario>
    const tools = new Set(all.map((dir) => relative(fixtures, dir).split('/')).map(([top, tool]) => (top === 'lab' ? tool : top)))
    for (const tool of ['claude', 'copilot', 'codex', 'qwen', 'codex-app-server', 'opencode', 'kilo']) assert.ok(tools.has(tool), `${tool} in ${[...tools]}`)
    for (const scenario of ['text', 'tool', 'thinking', 'parallel']) {
      for (const tool of ['claude/2.1.332', 'copilot/1.0.102', 'qwen/0.24.4']) assert.ok(existsSync(join(fixtures, 'lab', tool, scenario, 'run.json')), `${tool} ${scenario}`)
    }
  })

  for (const dir of all) {
    const name = relative(fixtures, dir).replace(/^lab\//, '')
    test(name, () => {
      const r = check(dir)
      const expected = EXPECTED[name] ?? { verdict: 'pass', reasons: [] }
      assert.equal(r.verdict, expected.verdict, describeResult(r))
      assert.deepEqual(reasonsOf(r), expected.reasons, describeResult(r))
      for (const reason of reasonsOf(r)) assert.ok(REASONS[reason], reason)
      if (r.verdict === 'none') return
      // Every stream was folded live and reloaded; the view compared wherever the tool gave one
      // (an OpenCode store's other sessions, a sub-agent's, have a view and no stream).
      for (const s of r.streams.filter((s) => s.checks.live)) {
        assert.notEqual(s.checks.live.result, 'none', `${s.stream} live`)
        if (isAcpTool(r.tool)) {
          // An ACP client's log: its parsed messages pushed as objects, and the session/load replay.
          assert.notEqual(s.checks.objects.result, 'none', `${s.stream} objects`)
          if (s.checks.load.result === 'none') assert.match(s.checks.load.why, /offers no session\/load|refused session\/load/, `${s.stream} load`)
          continue
        }
        assert.notEqual(s.checks.reload.result, 'none', `${s.stream} reload`)
        const hasView = readdirSync(dir).some((n) => n.startsWith('resume.') && !/"error"/.test(readFileSync(join(dir, n), 'utf8').slice(0, 200)))
        if (hasView) assert.notEqual(s.checks.view.result, 'none', `${s.stream} view`)
      }
    })
  }
})

describe('lab check fails where a reading is wrong', () => {
  const tmp = scratch()
  /** A copy of a fixture with `from` replaced by `to` in the files `pick` chooses. */
  function changed(name, pick, from, to) {
    const dir = join(tmp.dir, name.replaceAll('/', '-'))
    cpSync(join(fixtures, name), dir, { recursive: true })
    return edit(dir, pick, from, to)
  }
  /** `from` replaced by `to` in the files of `dir` that `pick` chooses. */
  function edit(dir, pick, from, to) {
    let n = 0
    const walk = (d) => {
      for (const f of readdirSync(d)) {
        const p = join(d, f)
        if (statSync(p).isDirectory()) walk(p)
        else if (pick(relative(dir, p))) {
          const text = readFileSync(p, 'utf8')
          if (text.includes(from)) {
            writeFileSync(p, text.replaceAll(from, to))
            n++
          }
        }
      }
    }
    walk(dir)
    assert.ok(n > 0, `${from} found in ${dir}`)
    return dir
  }

  test('a word changed in the session file: reload and view differ, with no reason', () => {
    for (const name of ['lab/claude/2.1.332/tool', 'lab/copilot/1.0.102/tool', 'codex/0.171.0-tool', 'lab/codex-app-server/0.171.0/tool']) {
      const dir = changed(name, (p) => p.startsWith('files/') || p.startsWith('rollout-'), 'The folder holds', 'The folder held')
      const r = check(dir)
      assert.equal(r.verdict, 'differ', describeResult(r))
      for (const s of r.streams) {
        assert.equal(s.checks.reload.result, 'differ', name)
        assert.equal(s.checks.reload.reason, undefined, name)
        assert.match(s.checks.reload.difference, /held|holds/, name)
        if (s.checks.view.result !== 'none') assert.equal(s.checks.view.result, 'differ', name)
      }
    }
  })

  test('a word changed in what the tool showed: only the view differs', () => {
    const dir = changed('lab/copilot/1.0.102/thinking', (p) => p.startsWith('resume.'), 'That is 42.', 'That is 41.')
    const r = check(dir)
    assert.equal(r.verdict, 'differ', describeResult(r))
    assert.deepEqual(Object.fromEntries(Object.entries(r.streams[0].checks).map(([k, c]) => [k, c.result])), { live: 'pass', reload: 'pass', view: 'differ' })
  })

  test("a word changed in Codex's re-read: only that re-read differs", () => {
    const dir = changed('lab/codex-app-server/0.171.0/tool', (p) => p === 'thread-read.jsonl', 'The folder holds', 'The folder held')
    const r = check(dir)
    assert.equal(r.verdict, 'differ', describeResult(r))
    for (const s of r.streams) {
      const results = Object.fromEntries(Object.entries(s.checks).map(([k, c]) => [k, c.result]))
      assert.deepEqual(results, { live: 'pass', reload: 'pass', read: 'differ', resume: 'pass', view: 'pass' }, s.stream)
      assert.match(s.checks.read.difference, /held|holds/)
    }
  })

  test("a word changed in the app server's live traffic: live stays equal to itself, reload and the re-reads differ", () => {
    const dir = changed('lab/codex-app-server/0.171.0/tool', (p) => p === 'traffic.jsonl', 'The folder holds', 'The folder held')
    const r = check(dir)
    const traffic = r.streams.find((s) => s.stream === 'traffic.jsonl')
    const results = Object.fromEntries(Object.entries(traffic.checks).map(([k, c]) => [k, c.result]))
    assert.deepEqual(results, { live: 'pass', reload: 'differ', read: 'differ', resume: 'differ', view: 'pass' })
  })

  test("Qwen Code: a result is read as its stream shows it, from the recording's display, not the model's output", () => {
    // The display's text changed, the output the model was sent left as it was: the reload differs.
    const dir = changed('lab/qwen/0.24.4/tool', (p) => p.startsWith('files/'), '"text":"lab-tool-output\\nnotes.txt"', '"text":"lab-tool-output\\nnotes.md"')
    const r = check(dir)
    assert.equal(r.verdict, 'differ', describeResult(r))
    for (const s of r.streams) {
      assert.equal(s.checks.reload.result, 'differ', s.stream)
      assert.equal(s.checks.reload.reason, undefined, s.stream)
      assert.match(s.checks.reload.difference, /calls\[0\]\.result .*history: "lab-tool-output\\nnotes\.md"/, s.stream)
    }
  })

  /** The Qwen Code 0.24.4 tool capture with its shell result `recorded` in the recording and `streamed` in the stream. */
  function qwenResults(recorded, streamed) {
    const dir = changed('lab/qwen/0.24.4/tool', (p) => p.startsWith('files/'), '"text":"lab-tool-output\\nnotes.txt"', `"text":${JSON.stringify(recorded)}`)
    edit(dir, (p) => p.startsWith('stream'), '"content":"lab-tool-output\\nnotes.txt"', `"content":${JSON.stringify(streamed)}`)
    return check(dir)
  }
  const HEADLESS = '\n[... truncated for Headless transport ...]\n'
  const preview = (length) => `\n[... truncated for saved session preview; original length: ${length} characters ...]\n`
  const explainedBy = (r, reason) => {
    assert.equal(r.verdict, 'explained', describeResult(r))
    assert.deepEqual(reasonsOf(r), [reason])
  }
  const unexplained = (r) => {
    assert.equal(r.verdict, 'differ', describeResult(r))
    for (const s of r.streams) assert.equal(s.checks.reload.reason, undefined, s.stream)
  }

  test("Qwen Code: a result its stream cut is explained only when the start and end it kept are those of a recorded text over 64 KiB of JSON", () => {
    const long = `lab-tool-output\n${'x'.repeat(70000)}\nnotes.txt`
    explainedBy(qwenResults(long, long.slice(0, 100) + HEADLESS + long.slice(-100)), 'qwen-stream-cuts-results')
    // Another end, or a start and an end longer together than the text, is no cut of it.
    unexplained(qwenResults(long, long.slice(0, 100) + HEADLESS + 'notes.md'))
    unexplained(qwenResults(long, long.slice(0, 40000) + HEADLESS + long.slice(-40000)))
    // A short result (25 characters) is not cut by the stream, whatever its start and end.
    unexplained(qwenResults('lab-tool-output\nnotes.txt', `lab-tool${HEADLESS}notes.txt`))
  })

  test('Qwen Code: a result its recording cut is explained only when the stream has a text of the length the cut states', () => {
    const long = `lab-tool-output\n${'y'.repeat(40000)}\nnotes.txt`
    const cut = (length) => long.slice(0, 100) + preview(length) + long.slice(-100)
    explainedBy(qwenResults(cut(long.length), long), 'qwen-stream-cuts-results')
    unexplained(qwenResults(cut(long.length + 1), long))
    unexplained(qwenResults(cut(long.length), long.slice(1)))
  })

  test("Qwen Code: an answer whose text ends differ by white space is explained for 0.15, which trims it, not for 0.24.4", () => {
    const spaced = (version) => check(changed(`lab/qwen/${version}/tool`, (p) => p.startsWith('stream'), 'printed lab-tool-output.', 'printed lab-tool-output. \\n'))
    explainedBy(spaced('0.15.10'), 'qwen-recording-trims-text')
    unexplained(spaced('0.24.4'))
  })

  test('a reason explains only its own difference: Codex 0.147 without calls, and a changed answer', () => {
    const dir = changed('codex/0.147.0-tool', (p) => p.startsWith('resume.'), 'The folder holds', 'The folder held')
    const r = check(dir)
    assert.equal(r.verdict, 'differ', describeResult(r))
    assert.equal(r.streams[0].checks.view.reason, undefined)
  })
})

// OpenCode and Kilo CLI: each capture is two sessions of one store (`run --format json`'s
// and the one sent through `serve`), every stream compared with the store's session, and
// that session with OpenCode's own answer (GET /session/:id/message) and its export.
describe('lab check of OpenCode and Kilo captures', () => {
  const tmp = scratch()
  const OPENCODE = ['lab/opencode/1.18.33/tool', 'lab/kilo/7.7.7/tool']
  /** A copy of a fixture with the bytes of `from` replaced by `to` (as long) in the files `pick` chooses. */
  function changed(name, pick, from, to) {
    assert.equal(Buffer.byteLength(from), Buffer.byteLength(to), 'a database keeps its layout only if the bytes keep their length')
    const dir = join(tmp.dir, `${name.replaceAll('/', '-')}-${pick.name}-${to.replace(/\W/g, '')}`)
    cpSync(join(fixtures, name), dir, { recursive: true })
    let n = 0
    const walk = (d) => {
      for (const f of readdirSync(d)) {
        const p = join(d, f)
        if (statSync(p).isDirectory()) walk(p)
        else if (pick(relative(dir, p))) {
          const bytes = readFileSync(p)
          const at = bytes.indexOf(from)
          if (at < 0) continue
          let i = at
          while (i >= 0) {
            bytes.write(to, i)
            n++
            i = bytes.indexOf(from, i + 1)
          }
          writeFileSync(p, bytes)
        }
      }
    }
    walk(dir)
    assert.ok(n > 0, `${from} found in ${name}`)
    return dir
  }
  const results = (r) => r.streams.map((s) => [s.stream, Object.fromEntries(Object.entries(s.checks).map(([k, c]) => [k, c.result]))])

  test('every stream of a capture is compared with the store and with what OpenCode returned', () => {
    for (const name of OPENCODE) {
      const r = check(join(fixtures, name))
      const streams = r.streams.map((s) => s.stream)
      for (const file of ['stream.jsonl', 'stream.event.sse', 'stream.global.sse']) assert.ok(streams.includes(file), `${name}: ${file}`)
      for (const s of r.streams) {
        if (s.checks.live.result === 'none') continue
        for (const c of ['live', 'reload', 'view', 'export']) assert.ok(s.checks[c], `${name} ${s.stream} ${c}: ${describeResult(r)}`)
      }
    }
  })

  /** Each stream's comparisons that pass on the fixture as it is, and on the changed copy. */
  function passing(name, dir) {
    const before = Object.fromEntries(results(check(join(fixtures, name))))
    const r = check(dir)
    assert.equal(r.verdict, 'differ', describeResult(r))
    return r.streams.map((s) => [s.stream, Object.keys(s.checks).filter((k) => before[s.stream][k] === 'pass'), s.checks])
  }

  test('a word changed in the store (the database itself): every reload that passed differs, with no reason', () => {
    for (const name of OPENCODE) {
      const dir = changed(name, (p) => p.endsWith('.db'), 'lab-tool-output', 'lab-tool-outpux')
      for (const [stream, passed, checks] of passing(name, dir)) {
        if (!passed.includes('reload')) continue
        assert.equal(checks.reload.result, 'differ', `${name} ${stream}`)
        assert.equal(checks.reload.reason, undefined, `${name} ${stream}`)
        assert.equal(checks.shown.result, 'pass', `${name} ${stream}: the stream still agrees with what OpenCode returned`)
      }
    }
  })

  test("a word changed in OpenCode's own answer: the stream against it and the view differ, the reload does not", () => {
    for (const name of OPENCODE) {
      const dir = changed(name, (p) => p.startsWith('resume.messages.'), 'lab-tool-output', 'lab-tool-outpux')
      for (const [stream, passed, checks] of passing(name, dir)) {
        if (!passed.includes('reload')) continue
        assert.equal(checks.view.result, 'differ', `${name} ${stream}`)
        assert.equal(checks.shown.result, 'differ', `${name} ${stream}`)
        assert.equal(checks.export.result, 'pass', `${name} ${stream}`)
        assert.equal(checks.reload.result, 'pass', `${name} ${stream}`)
      }
    }
  })

  test('a word changed in the export: only the export differs', () => {
    const name = 'lab/opencode/1.18.33/tool'
    const dir = changed(name, (p) => p.startsWith('resume.export.'), 'lab-tool-output', 'lab-tool-outpux')
    for (const [stream, passed, checks] of passing(name, dir)) {
      if (!passed.includes('export')) continue
      assert.equal(checks.export.result, 'differ', stream)
      for (const k of passed.filter((k) => k !== 'export')) assert.equal(checks[k].result, 'pass', `${stream} ${k}`)
    }
  })

  test('a word changed in a live stream: its reload differs', () => {
    const dir = changed('lab/opencode/1.18.33/tool', (p) => p === 'stream.event.sse', 'lab-tool-output', 'lab-tool-outpux')
    const r = check(dir)
    const event = r.streams.find((s) => s.stream === 'stream.event.sse')
    assert.equal(event.checks.reload.result, 'differ', describeResult(r))
    assert.equal(event.checks.reload.reason, undefined)
  })
})

test("a reason whose own code names what does not exist fails loudly, while one that cannot read a capture's data explains nothing", () => {
  const data = { checks: ['live'], why: 'test', test: (ctx) => ctx.streamed.length > 0 }
  const broken = { checks: ['live'], why: 'test', test: () => notDefinedAnywhere() } // eslint-disable-line no-undef
  REASONS['test-reads-data'] = data
  try {
    assert.equal(explain('live', {}), undefined, 'data it cannot read: no reason')
    REASONS['test-broken'] = broken
    assert.throws(() => explain('live', {}), ReferenceError)
  } finally {
    delete REASONS['test-reads-data']
    delete REASONS['test-broken']
  }
})
