// The agent-chunks command, spawned as a user runs it: replay, convert and check over the
// examples, and every error path (exit status 2, one line naming the file and line).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'

import { buildTimeline, pi, sn, toUnifiedMessages } from '../index.js'
import { bin, example, ndjson, root, run, scratch } from './cli-helpers.mjs'

const tmp = scratch()
const ANSI = /\x1b\[/
const readExample = (name) => readFileSync(new URL(`../examples/${name}`, import.meta.url))

describe('help and usage', { concurrency: 2 }, () => {
  test('the command is the package bin, executable, and npm start replays the demo with it', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
    assert.equal(pkg.bin['agent-chunks'], 'bin/agent-chunks.js')
    assert.ok(statSync(bin).mode & 0o111, 'executable')
    assert.match(readFileSync(bin, 'utf8'), /^#!\/usr\/bin\/env node\n/)
    assert.equal(pkg.scripts.start, 'node bin/agent-chunks.js replay examples/demo-stream.ndjson')
    for (const dir of ['bin/', 'cli/']) assert.ok(pkg.files.includes(dir), `${dir} is published`)
  })

  for (const command of ['replay', 'convert', 'check', 'view']) {
    test(`${command} --help`, async () => {
      const { code, stdout, stderr } = await run([command, '--help'])
      assert.equal(code, 0)
      assert.match(stdout, new RegExp(`^Usage: agent-chunks ${command} `))
      assert.match(stdout, /--debug/)
      assert.equal(stderr, '')
    })
  }

  test('--help lists the commands and the formats; --version prints the version', async () => {
    const help = await run(['--help'])
    assert.equal(help.code, 0)
    for (const word of ['replay FILE', 'convert FILE', 'check STREAM HISTORY', 'view FILE', 'pi-stream', 'sn-stream', 'chatviewer']) assert.ok(help.stdout.includes(word), word)
    const version = await run(['--version'])
    assert.equal(version.stdout, `${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`)
  })

  const usage = [
    [[], /a command is needed/, '--help'],
    [['frob'], /unknown command "frob"/, '--help'],
    [['replay'], /replay needs FILE/, 'replay --help'],
    [['replay', 'a', 'b'], /unexpected b/, 'replay --help'],
    [['replay', example('demo-stream.ndjson'), '--bogus'], /unknown option --bogus/, 'replay --help'],
    [['replay', example('demo-stream.ndjson'), '--json', '--unified'], /--json and --unified cannot be used together/, 'replay --help'],
    [['replay', example('demo-stream.ndjson'), '--unified', '--now', 'soon'], /--now must be milliseconds/, 'replay --help'],
    [['replay', example('demo-stream.ndjson'), '--format', 'yaml'], /--format must be one of acp, claude, claude-stream, copilot, qwen, codex, codex-exec, opencode, opencode-run, opencode-events, opencode-global, chatviewer, pi-events, pi, sn, pi-stream, sn-stream, ag-ui, ai-sdk, events, got "yaml"/, 'replay --help'],
    [['convert', example('demo-stream.ndjson')], /convert needs --to TARGET/, 'convert --help'],
    [['convert', example('demo-stream.ndjson'), '--to'], /option --to needs a value/, 'convert --help'],
    [['convert', example('demo-stream.ndjson'), '--to', 'xml'], /--to must be one of events, pi, sn, unified/, 'convert --help'],
    [['check', example('pi-session.stream.ndjson')], /check needs HISTORY/, 'check --help'],
    [['check', 'a', 'b', '--stream-format', 'ndjson'], /--stream-format must be one of/, 'check --help'],
    [['view'], /view needs FILE/, 'view --help'],
  ]
  for (const [args, message, help] of usage) {
    test(`usage error: agent-chunks ${args.join(' ')}`, async () => {
      const { code, stdout, stderr } = await run(args)
      assert.equal(code, 2)
      assert.equal(stdout, '')
      assert.match(stderr, message)
      assert.ok(stderr.endsWith(`(see agent-chunks ${help})\n`), stderr)
      assert.equal(stderr.split('\n').length, 2, 'one line')
    })
  }
})

describe('replay', { concurrency: 2 }, () => {
  // Every example, its format told from its content, and something only it says.
  const examples = [
    ['demo-stream.ndjson', 'events', ['assistant · turn-1', '⚙ bash · toolu_01 · failed', 'ⓘ notice · Context is 61% full', '✖ error 429 · Rate limited', 'Done ✅ — have a good day 🎉']],
    ['agent-session.sse', 'events', ['assistant · turn-5e1a-2', '⚙ grep · toolu_01Grep · completed', '    diff    src/upload/client.ts\n            @@ -43,7 +43,7 @@\n', 'ⓘ model-changed · Switched to claude-haiku-4-5 (ci-key)', '✖ error 529', 'Ready to commit 🚀']],
    ['pi-session.jsonl', 'pi', ['user · 1a2b3c02', 'Why does `npm test` fail on the parser? 🧪', '⚙ exec · toolu_01A · failed', '✻ thinking · signed (anthropic)']],
    ['pi-session.stream.ndjson', 'pi-stream', ['assistant · turn-3', '⚙ read · toolu_01B · completed']],
    ['sn-history.json', 'sn', ['user · thought-u0', '⚙ get_weather · call_w2 · failed', 'upstream timeout']],
    ['ai-sdk-stream.sse', 'ai-sdk', ['assistant · msg_7Qx2', '✻ thinking · signed (anthropic)', '⚙ bash · toolu_01Run · completed', '⚙ read_file · toolu_02Read · failed', 'ENOENT: no such file']],
    ['sn-thinking.sse', 'sn-stream', ['assistant · thought-a0', 'assistant · thought-a1', 'Tōkyō (東京): 12 °C and clear 🌙.']],
    ['acp-session.ndjson', 'acp', ['The build fails on `npm test`. Can you fix it?', '⚙ npm test -- parser · call_shell_2 · failed', '- const ch = String.fromCharCode(code)', '+ const ch = String.fromCodePoint(code)']],
    ['chatviewer.json', 'chatviewer', ['user · b2c1-0001', '⚙ grep · call_grep_1 · completed', '⚙ bash · toolu_02Bash · failed']],
    ['acp-v1-load.ndjson', 'acp', ['user · msg_u1', 'assistant · msg_a2', '⚙ Read src/import.ts (1 - 40) · toolu_01Read · completed', 'ⓘ plan · [in_progress] Fix the loop bound (high)', '    [pending] Run the importer tests (medium)', 'user · msg_u3']],
    // A title line and a file snapshot first: still a Claude Code transcript.
    ['claude-code-session.jsonl', 'claude', ['assistant · msg_01Hx7Qm2', '✻ thinking · signed (anthropic)', '⚙ Edit · toolu_01Edit4 · failed', 'ⓘ compaction · This session is being continued', '✖ error · API Error: 529']],
    // A telemetry record first: still a Qwen Code recording.
    ['qwen-code-chat.jsonl', 'qwen', ['⚙ run_shell_command · call_3b7e02 · failed', 'Draw the forecast like @docs/chart.png', 'ⓘ notice · /compress']],
    ['chatviewer-session.jsonl', 'chatviewer', ['user · 9f3e-0015', 'Thanks! 🎉', '⚙ bash · call_test_10 · failed', "+   moduleFileExtensions: ['js', 'json', 'ts'],"]],
  ]
  // What a reader skipped, said on stderr.
  const notes = {
    'acp-v1-load.ndjson': `note: ${example('acp-v1-load.ndjson')}: 1 line skipped (unknown to this version or unreadable; --strict refuses them): line 23: a sessionUpdate this version does not know\n`,
  }
  for (const [name, format, says] of examples) {
    test(`${name} is read as ${format} and printed readably, without colour off a terminal`, async () => {
      // The whole transcript; what it leaves out (other branches) is said in a note.
      const { code, stdout, stderr } = await run(['replay', example(name), '--view', 'transcript'])
      assert.equal(code, 0, stderr)
      assert.equal(stderr.replace(/^note: .* left out \(.*--all reads every entry\).*\n/m, ''), notes[name] ?? '')
      assert.ok(stdout.startsWith(`${example(name)} · ${format} · `), stdout.slice(0, 80))
      for (const text of says) assert.ok(stdout.includes(text), `${name} shows ${JSON.stringify(text)}`)
      assert.doesNotMatch(stdout, ANSI)
    })
  }

  test('a call sent without rawInput shows no arguments line', async () => {
    const { stdout } = await run(['replay', example('acp-v1-load.ndjson')])
    const bash = stdout.slice(stdout.indexOf('⚙ npm test -- import'))
    assert.ok(bash.length > 0)
    assert.doesNotMatch(stdout, /args\s+undefined/)
    assert.ok(!bash.split('\n').slice(0, 2).some((line) => line.trim().startsWith('args')), bash.slice(0, 200))
  })

  test('captures with a BOM and CR or CRLF line ends read as with LF, in every format', async () => {
    for (const name of ['agent-session.sse', 'sn-thinking.sse', 'ai-sdk-stream.sse', 'demo-stream.ndjson', 'pi-session.stream.ndjson']) {
      const original = readFileSync(example(name), 'utf8')
      const wanted = await run(['replay', example(name)])
      for (const eol of ['\r', '\r\n']) {
        const file = tmp.file(`${eol === '\r' ? 'cr' : 'crlf'}-${name}`, '\ufeff' + original.replaceAll('\n', eol))
        const got = await run(['replay', file])
        assert.equal(got.stderr, '', `${name} ${JSON.stringify(eol)}`)
        assert.equal(got.stdout.replace(file, 'FILE'), wanted.stdout.replace(example(name), 'FILE'), `${name} ${JSON.stringify(eol)}`)
      }
    }
  })

  test('--color paints roles, thinking (dim) and statuses; --no-color wins', async () => {
    const { stdout } = await run(['replay', example('demo-stream.ndjson'), '--color'])
    assert.ok(stdout.includes('\x1b[2m✻ thinking · signed (anthropic)\x1b[0m'), 'thinking dimmed')
    assert.ok(stdout.includes('\x1b[31mfailed\x1b[0m'), 'a failed call in red')
    assert.ok(stdout.includes('\x1b[32mcompleted\x1b[0m'))
    const plain = await run(['replay', example('demo-stream.ndjson'), '--color', '--no-color'])
    assert.doesNotMatch(plain.stdout, ANSI)
  })

  const noScript = !existsSync('/usr/bin/script') && 'no script(1) to give the command a terminal'
  test('on a terminal the output is in colour, unless NO_COLOR is set', { skip: noScript }, async () => {
    const onTerminal = (env) =>
      new Promise((resolve, reject) => {
        const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} replay examples/demo-stream.ndjson`
        const environment = { ...process.env, ...env }
        if (!env.NO_COLOR) delete environment.NO_COLOR
        execFile('script', ['-qec', command, '/dev/null'], { cwd: root, env: environment, encoding: 'utf8' }, (error, stdout) => (error ? reject(error) : resolve(stdout)))
      })
    const coloured = await onTerminal({})
    assert.ok(coloured.includes('\x1b[2m✻ thinking · signed (anthropic)\x1b[0m'))
    const plain = await onTerminal({ NO_COLOR: '1' })
    assert.ok(plain.includes('✻ thinking · signed (anthropic)'))
    assert.doesNotMatch(plain, ANSI)
  })

  test('detection looks past a first line that tells nothing; --format reads a file none tells', async () => {
    const file = tmp.file('heartbeat.ndjson', ndjson([{ type: 'heartbeat' }, { type: 'text-delta', delta: 'hello' }]))
    const sniffed = await run(['replay', file])
    assert.equal(sniffed.code, 0, sniffed.stderr)
    assert.match(sniffed.stdout, /assistant · turn-1\n  hello\n/)
    const silent = tmp.file('heartbeats.ndjson', ndjson([{ type: 'heartbeat' }, { type: 'heartbeat' }]))
    const unknown = await run(['replay', silent])
    assert.equal(unknown.code, 2)
    assert.equal(unknown.stderr, `${silent}:1: cannot tell the format from its first 2 lines (the first: {"type":"heartbeat"}); closest: events (objects tagged by "type", none of an agent event type); pass --format\n`)
    const told = await run(['replay', silent, '--format', 'events'])
    assert.equal(told.code, 0, told.stderr)
  })

  test('--json prints the messages, as the library reads them', async () => {
    const { code, stdout } = await run(['replay', example('pi-session.jsonl'), '--json'])
    assert.equal(code, 0)
    assert.deepEqual(JSON.parse(stdout), pi.toMessages(readExample('pi-session.jsonl')))
  })

  test('--unified prints toUnifiedMessages of the messages, at the --now clock', async () => {
    const { code, stdout } = await run(['replay', example('sn-history.json'), '--unified', '--now', '1700000000000'])
    assert.equal(code, 0)
    const rows = JSON.parse(stdout)
    assert.deepEqual(rows, JSON.parse(JSON.stringify(toUnifiedMessages(sn.toMessages(readExample('sn-history.json')), { now: 1700000000000 }))))
    assert.ok(rows.every((row) => row.timestamp === 1700000000000))
  })

  test('--timeline prints buildTimeline of each assistant message, as finished', async () => {
    const { code, stdout } = await run(['replay', example('pi-session.jsonl'), '--timeline'])
    assert.equal(code, 0)
    const assistants = pi.toMessages(readExample('pi-session.jsonl')).filter((m) => m.role === 'assistant')
    const expected = assistants.map((m) => ({ messageId: m.id, groups: buildTimeline(m.chunks, { finished: true }) }))
    assert.deepEqual(JSON.parse(stdout), JSON.parse(JSON.stringify(expected)))
    assert.equal(JSON.parse(stdout)[0].groups[1].parent.status, 'error')
  })

  test('text that would act on the terminal or vanish is shown escaped', async () => {
    const file = tmp.file('hostile.ndjson', ndjson([{ type: 'text-delta', delta: 'red \x1b[31malert\x07 half \ud83d end\r\nnext' }]))
    const { stdout } = await run(['replay', file])
    assert.ok(stdout.includes('red \\u001b[31malert\\u0007 half \\ud83d end\n  next'), stdout)
    assert.doesNotMatch(stdout, ANSI)
  })

  test('long results are cut at 12 lines; --full shows them whole', async () => {
    const result = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')
    const file = tmp.file('long.ndjson', ndjson([
      { type: 'tool-call', toolCall: { id: 'c1', name: 'cat', arguments: { path: 'log.txt' } } },
      { type: 'tool-result', toolResult: { toolCallId: 'c1', result, isError: false } },
    ]))
    const cut = await run(['replay', file])
    assert.ok(cut.stdout.includes('line 12\n'))
    assert.ok(!cut.stdout.includes('line 13\n'))
    assert.ok(cut.stdout.includes('… 18 more lines (--full shows all)'))
    const full = await run(['replay', file, '--full'])
    assert.ok(full.stdout.includes('line 30\n'))
    assert.ok(!full.stdout.includes('more lines'))
  })

  test('Sn thoughts one per line are read as Sn thoughts', async () => {
    const thoughts = JSON.parse(readExample('sn-history.json')).map((thought) => JSON.stringify(thought))
    const { code, stdout } = await run(['replay', tmp.file('thoughts.jsonl', `${thoughts.join('\n')}\n`), '--json'])
    assert.equal(code, 0)
    assert.deepEqual(JSON.parse(stdout), sn.toMessages(readExample('sn-history.json')))
  })

  test('FILE - reads standard input', async () => {
    const { code, stdout } = await run(['replay', '-', '--json'], { input: readExample('sn-history.json') })
    assert.equal(code, 0)
    assert.deepEqual(JSON.parse(stdout), sn.toMessages(readExample('sn-history.json')))
  })

  test('a pipe given by name is read whole', async () => {
    const command = `cat examples/sn-history.json | ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} replay /dev/stdin --json`
    const stdout = await new Promise((resolve, reject) => {
      execFile('sh', ['-c', command], { cwd: root, encoding: 'utf8' }, (error, out) => (error ? reject(error) : resolve(out)))
    })
    assert.deepEqual(JSON.parse(stdout), sn.toMessages(readExample('sn-history.json')))
  })

  test('a stream is folded into one assistant message per turn, ids from the turns', async () => {
    const { stdout } = await run(['replay', example('agent-session.sse'), '--json'])
    const messages = JSON.parse(stdout)
    assert.deepEqual(messages.map((m) => [m.id, m.role]), [['turn-5e1a-1', 'assistant'], ['turn-5e1a-2', 'assistant'], ['turn-5e1a-3', 'assistant']])
    assert.ok(messages[2].chunks[1].text.endsWith('Ready to commit 🚀'), 'an emoji split across two events comes out whole')
  })
})

describe('convert', { concurrency: 2 }, () => {
  test('--to events writes agent events that rebuild the assistant messages; check agrees', async () => {
    const out = tmp.path('pi-as-events.ndjson')
    const converted = await run(['convert', example('pi-session.jsonl'), '--to', 'events', '-o', out])
    assert.equal(converted.code, 0)
    assert.equal(converted.stdout, '')
    assert.equal(converted.stderr, 'note: 4 messages left out: events holds only assistant messages\n')
    const events = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    assert.deepEqual(events[0], { type: 'turn-start', turnId: '1a2b3c03' })
    assert.ok(events.some((e) => e.type === 'reasoning-end' && e.metadata.anthropic.signature))
    const check = await run(['check', out, example('pi-session.jsonl')])
    assert.equal(check.code, 0, check.stdout)
    const back = await run(['replay', out, '--json'])
    const assistants = pi.toMessages(readExample('pi-session.jsonl')).filter((m) => m.role === 'assistant')
    assert.deepEqual(JSON.parse(back.stdout), assistants)
  })

  test('--to events keeps shell output, errors and notices', async () => {
    const { code, stdout, stderr } = await run(['convert', example('demo-stream.ndjson'), '--to', 'events'])
    assert.equal(code, 0)
    assert.equal(stderr, '')
    const types = stdout.trim().split('\n').map((line) => JSON.parse(line).type)
    for (const type of ['shell-output', 'notice', 'model-changed', 'error']) assert.ok(types.includes(type), type)
    const again = tmp.file('demo-again.ndjson', stdout)
    assert.equal((await run(['check', again, example('demo-stream.ndjson')])).code, 0)
  })

  test('--to pi writes a session the library reads back to the same messages', async () => {
    const { code, stdout, stderr } = await run(['convert', example('acp-session.ndjson'), '--to', 'pi'])
    assert.equal(code, 0)
    // The agent's plan is a system chunk, which a Pi session has no place for.
    assert.equal(stderr, 'note: pi does not keep everything: the first change is at messages[1].chunks[2].type (counting only user and assistant messages)\n')
    const acp = JSON.parse((await run(['replay', example('acp-session.ndjson'), '--json'])).stdout)
    const withoutPlans = (chunks) => chunks.filter((chunk) => chunk.type !== 'system')
    assert.deepEqual(pi.toMessages(stdout).map((m) => [m.role, m.chunks]), acp.map((m) => [m.role, withoutPlans(m.chunks)]))
  })

  test('--to sn writes one thought per message; what Solar Network cannot hold is reported', async () => {
    const { code, stdout, stderr } = await run(['convert', example('pi-session.jsonl'), '--to', 'sn'])
    assert.equal(code, 0)
    const thoughts = JSON.parse(stdout)
    assert.equal(thoughts.length, 9)
    assert.deepEqual(thoughts[0], sn.fromMessage(pi.toMessages(readExample('pi-session.jsonl'))[1]))
    assert.equal(stderr, 'note: 1 message left out: sn holds only user and assistant messages\nnote: sn does not keep everything: the first change is at messages[1].chunks[0].type (counting only user and assistant messages)\n')
  })

  test('--to unified writes toUnifiedMessages, at the --now clock', async () => {
    const { code, stdout } = await run(['convert', example('chatviewer-session.jsonl'), '--to', 'unified', '--now', '0'])
    assert.equal(code, 0)
    const rows = JSON.parse(stdout)
    assert.deepEqual(rows.map((row) => row.type).slice(0, 4), ['user', 'thinking', 'assistant', 'tool_call'])
    assert.equal(rows[0].isFirst, true)
    assert.equal(rows[1].isFirst, true, 'the first row after a user message starts the line')
  })

  test('an output that cannot be written is an error', async () => {
    const { code, stderr } = await run(['convert', example('pi-session.jsonl'), '--to', 'pi', '-o', tmp.path('no/such/dir/out.jsonl')])
    assert.equal(code, 2)
    assert.equal(stderr, `${tmp.path('no/such/dir/out.jsonl')}: cannot write: no such directory\n`)
  })
})

describe('check', { concurrency: 2 }, () => {
  const pairs = [
    ['pi-session.stream.ndjson', 'pi-session.jsonl', 'agree: 6 turns and 12 chunks, as the history has them'],
    ['pi-events.ndjson', 'pi-events.session.jsonl', 'agree: 3 turns and 7 chunks, as the history has them'],
    ['openclaw-gateway.ndjson', 'openclaw-session.jsonl', 'agree: 4 turns and 7 chunks, as the history has them'],
    ['sn-thinking.sse', 'sn-history.json', 'agree: 2 turns and 5 chunks, as the history has them'],
    ['acp-session.ndjson', 'acp-session.ndjson', 'agree: 2 turns and 10 chunks, as the history has them'],
    ['agent-session.sse', 'agent-session.sse', 'agree: 3 turns and 13 chunks, as the history has them'],
    ['claude-code-stream.ndjson', 'claude-code-stream.session.jsonl', 'agree: 2 turns and 4 chunks, as the history has them'],
    ['claude-code-stream.partial.ndjson', 'claude-code-stream.session.jsonl', 'agree: 2 turns and 4 chunks, as the history has them'],
    ['copilot-session.stream.ndjson', 'copilot-session.events.jsonl', 'agree: 2 turns and 4 chunks, as the history has them'],
    ['opencode-run.jsonl', 'opencode-run.session.json', 'agree: 2 turns and 4 chunks, as the history has them'],
    ['opencode-events.sse', 'opencode-events.messages.json', 'agree: 2 turns and 4 chunks, as the history has them'],
    ['opencode-global.sse', 'opencode-session.json', 'agree: 2 turns and 4 chunks, as the history has them'],
  ]
  for (const [stream, history, verdict] of pairs) {
    test(`${stream} agrees with ${history}`, async () => {
      const { code, stdout, stderr } = await run(['check', example(stream), example(history)])
      assert.equal(stderr, '')
      assert.equal(code, 0, stdout)
      assert.ok(stdout.endsWith(`${verdict}\n`), stdout)
    })
  }

  test('a compacted session: the stream is checked against the history\'s whole branch, not the part a resume starts from', async () => {
    const { code, stdout } = await run(['check', '__test__/fixtures/claude-compacted.stream.ndjson', '__test__/fixtures/claude-compacted.session.jsonl'])
    assert.equal(code, 0, stdout)
    assert.ok(stdout.includes('history: __test__/fixtures/claude-compacted.session.jsonl (claude), 4 messages, 2 from the assistant'), stdout)
    assert.ok(stdout.endsWith('agree: 2 turns and 2 chunks, as the history has them\n'), stdout)
  })

  test('a drifted stream: the first difference by path, both values, where they part, and the lines', async () => {
    const stream = '__test__/fixtures/pi-drift.stream.ndjson'
    const { code, stdout } = await run(['check', stream, example('pi-session.jsonl')])
    assert.equal(code, 1)
    const lines = stdout.split('\n')
    assert.equal(lines[0], `stream:  ${stream} (pi-stream), 6 turns`)
    assert.equal(lines[1], 'history: examples/pi-session.jsonl (pi), 10 messages, 6 from the assistant')
    assert.equal(lines[2], 'first difference at messages[2].chunks[2].calls[0].result')
    assert.equal(lines[3], `  stream:  ${JSON.stringify('FAIL src/parser.test.ts\n  ✕ parses ünïcödé identifiers (4 ms)\n\nExpected: "ünïcödé"\nReceived: "u\u0308ni\u0308co\u0308de\u0301"')}`)
    assert.equal(lines[4], `  history: ${JSON.stringify('FAIL src/parser.test.ts\n  ✕ parses ünïcödé identifiers (4 ms)\n\nExpected: "ünïcödé"\nReceived: "ünïcödé"')}`)
    assert.equal(lines[5], '  the strings part at character 94: U+0075 U+0308 U+006E in the stream, U+00FC U+006E U+00EF in the history')
    assert.equal(lines[6], '  this chunk was built by lines 20–21 (turn 1)')
    assert.equal(lines[7], '  the history has it in message 2 (id 1a2b3c03)')
  })

  test('a stream cut short: the missing turn is the difference', async () => {
    const turns = readFileSync(new URL('../examples/pi-session.stream.ndjson', import.meta.url), 'utf8').split('{"type":"final"}\n')
    const stream = tmp.file('two-turns.ndjson', `${turns[0]}{"type":"final"}\n${turns[1]}{"type":"final"}\n`)
    const { code, stdout } = await run(['check', stream, example('pi-session.jsonl')])
    assert.equal(code, 1)
    assert.match(stdout, /first difference at messages\[9\]\n  the stream has 5 turns, the history 6 assistant messages\n  stream:  \(nothing\)\n  history: \{"id":"1a2b3c0f"/)
  })

  test('the same entries in another key order are a difference', async () => {
    const history = readFileSync(new URL('../examples/sn-history.json', import.meta.url), 'utf8').replace('{"temp":7,"sky":"cloudy ☁️"}', '{"sky":"cloudy ☁️","temp":7}')
    const { code, stdout } = await run(['check', example('sn-thinking.sse'), tmp.file('reordered.json', history)])
    assert.equal(code, 1)
    assert.match(stdout, /first difference at messages\[1\]\.chunks\[1\]\.calls\[0\]\.result\n  stream:  keys temp, sky\n  history: keys sky, temp\n/)
  })

  test('a history given as the stream, or a stream as the history, is an error', async () => {
    const swapped = await run(['check', example('pi-session.jsonl'), example('pi-session.stream.ndjson')])
    assert.equal(swapped.code, 2)
    assert.equal(swapped.stderr, 'examples/pi-session.jsonl: a pi file is a history, not a stream (streams: acp, claude-stream, copilot, codex-exec, opencode-run, opencode-events, opencode-global, pi-events, pi-stream, sn-stream, ag-ui, ai-sdk, events)\n')
    const stream = await run(['check', example('pi-session.stream.ndjson'), example('sn-thinking.sse')])
    assert.equal(stream.code, 2)
    assert.equal(stream.stderr, 'examples/sn-thinking.sse: a sn-stream file is a stream, not a history (histories: acp, claude, claude-stream, copilot, qwen, codex, opencode, chatviewer, pi, sn, ag-ui, ai-sdk, events)\n')
  })

  test('ACP updates sent as JSON-RPC session/update requests are read as ACP', async () => {
    const requests = readFileSync(new URL('../examples/acp-session.ndjson', import.meta.url), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: JSON.parse(line) }))
    const stream = tmp.file('acp-rpc.ndjson', `${requests.join('\n')}\n`)
    const { code, stdout } = await run(['check', stream, example('acp-session.ndjson')])
    assert.equal(code, 0, stdout)
    assert.ok(stdout.startsWith(`stream:  ${stream} (acp), 2 turns\n`))
  })

  test('--stream-format and --history-format override detection', async () => {
    // More lines that tell nothing than detection looks past.
    const stream = tmp.file('stream.txt', `${'{"type":"keepalive"}\n'.repeat(64)}${readFileSync(new URL('../examples/pi-session.stream.ndjson', import.meta.url), 'utf8')}`)
    assert.equal((await run(['check', stream, example('pi-session.jsonl')])).code, 2)
    const { code, stdout } = await run(['check', stream, example('pi-session.jsonl'), '--stream-format', 'pi-stream', '--history-format', 'pi'])
    assert.equal(code, 0, stdout)
  })
})

describe('bad input: one line with the position, exit 2', { concurrency: 2 }, () => {
  const cases = [
    ['a missing file', () => 'no/such.ndjson', 'no/such.ndjson: no such file'],
    ['a directory', () => 'examples', 'examples: is a directory'],
    ['an empty file', () => tmp.file('empty.ndjson', '\n\n'), (file) => `${file}: the file is empty`],
    ['a file of no known format', () => 'README.md', 'README.md:1: cannot tell the format: the first line is not JSON (# agent-chunks); pass --format'],
    // Read past (skipped and counted) unless --strict: see the test after this table.
    ['invalid UTF-8, --strict', () => tmp.file('latin1.ndjson', Buffer.concat([Buffer.from('{"type":"text-delta","delta":"a"}\n{"type":"text-delta","delta":"'), Buffer.from([0xe9]), Buffer.from('"}\n')])), (file) => new RegExp(`^${file}:2: invalid UTF-8`), ['--strict']],
    ['a line that is not JSON in agent events, --strict', () => tmp.file('cut.ndjson', '{"type":"text-delta","delta":"a"}\n\n{"type":"text-delta","delta":\n'), (file) => new RegExp(`^${file}:3: `), ['--strict']],
    ['a field of the wrong type in agent events', () => tmp.file('typed.ndjson', ndjson([{ type: 'text-delta', delta: 'a' }, { type: 'text-delta', delta: 5 }])), (file) => `${file}:2: text-delta event: "delta" must be a string, got number`],
    ['a bad frame in an SSE capture', () => tmp.file('bad.sse', 'data: {"type":"text-delta","delta":"a"}\n\nevent: x\ndata: {"type":"tool-call","toolCall":{"id":1}}\n\n'), (file) => new RegExp(`^${file}:4: tool-call event: "toolCall\\.id" must be a string`)],
    ['a bad line in a Pi session', () => tmp.file('bad.jsonl', '{"role":"user","content":"hi"}\n{"role":"user"}\n'), (file) => `${file}:2: content must be an array or a string, got undefined`],
    ['a bad event in a Pi gateway stream', () => tmp.file('bad-gateway.ndjson', ndjson([{ type: 'delta', text: 'a' }, { type: 'tool-start', toolCallId: 7, name: 'x', args: {} }])), (file) => new RegExp(`^${file}:2: .*toolCallId`)],
    ['a bad thought in Sn thoughts', () => tmp.file('bad-thoughts.json', '[\n  {"id":"a","parts":[],"role":0},\n  {"id":1,"parts":[],"role":0}\n]\n'), (file) => `${file}:3: element 1: id must be a string, got number`],
    ['a bad line in ACP updates', () => tmp.file('bad-acp.ndjson', '{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}}\n{"sessionId":"s","update":{"sessionUpdate":"tool_call","title":"x"}}\n'), (file) => new RegExp(`^${file}:2: .*toolCallId`)],
    ['a bad element in a ChatViewer array', () => tmp.file('bad-transcript.json', '[\n  {"uuid":"a","timestamp":1,"type":"user","message":{"content":"hi"}},\n  {"uuid":2,"timestamp":2,"type":"assistant"}\n]\n'), (file) => `${file}:3: messages[1].uuid must be a string, got number`],
    // Without --strict, skipped and counted as the ChatViewer passes the row over.
    ['a bad line in a ChatViewer transcript, --strict', () => tmp.file('bad-transcript.jsonl', '{"uuid":"a","timestamp":1,"type":"user","message":{"content":"hi"}}\n{"uuid":2,"timestamp":2,"type":"assistant"}\n'), (file) => new RegExp(`^${file}:2: .*uuid must be a string`), ['--strict']],
  ]
  for (const [what, make, expected, extra = []] of cases) {
    test(what, async () => {
      const file = make()
      const { code, stdout, stderr } = await run(['replay', file, ...extra])
      assert.equal(code, 2)
      assert.equal(stdout, '')
      const line = typeof expected === 'function' ? expected(file) : expected
      if (line instanceof RegExp) assert.match(stderr, line)
      else assert.equal(stderr, `${line}\n`)
      assert.equal(stderr.split('\n').length, 2, `one line: ${stderr}`)
      assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace')
    })
  }

  test('a line that cannot be read, after one that could, is read past with a note (--strict refuses it, above)', async () => {
    const file = tmp.file('torn.ndjson', '{"type":"text-delta","delta":"a"}\n{"type":"text-delta","delta":\n{"type":"text-delta","delta":"b"}\n')
    const { code, stdout, stderr } = await run(['replay', file, '--json'])
    assert.equal(code, 0, stderr)
    assert.deepEqual(JSON.parse(stdout)[0].chunks, [{ type: 'text', text: 'ab' }])
    assert.match(stderr, new RegExp(`^note: ${file}: 1 line skipped .*line 2: `))
  })

  test('--debug adds the stack trace', async () => {
    const file = tmp.file('debug.ndjson', ndjson([{ type: 'text-delta', delta: 5 }]))
    const { code, stderr } = await run(['replay', file, '--debug'])
    assert.equal(code, 2)
    assert.ok(stderr.startsWith(`${file}:1: text-delta event: "delta" must be a string, got number\n`))
    assert.match(stderr, /\n\s+at /)
  })

  test('errors in check name the file they are in', async () => {
    const file = tmp.file('bad-stream.ndjson', '{"type":"delta","text":"a"}\nnot json\n')
    const { code, stderr } = await run(['check', file, example('pi-session.jsonl'), '--strict'])
    assert.equal(code, 2)
    assert.match(stderr, new RegExp(`^${file}:2: invalid JSON: `))
  })
})
