/**
 * Seeded AG-UI event sequences for the `ag-ui` format's tests: runs of text, reasoning and
 * tool-call messages streamed token by token (explicit events or the CHUNK shorthand),
 * interleaved, with results in the same or a later run, out of order, for calls of earlier
 * runs; state, activity, step, custom and raw events between them; ids drawn from a small
 * alphabet now and then, so that the same id names messages of different roles. Every
 * sequence is a pure function of its seed.
 *
 * `valid: true` keeps to what `@ag-ui/client`'s verifier accepts (a RUN_STARTED first, each
 * START before its CONTENT and END, nothing open at RUN_FINISHED, steps nested); otherwise
 * a few order violations are mixed in (content after END, a step finished twice, events
 * after RUN_FINISHED), which the client refuses and its reducer folds on.
 *
 * `{ type: 'MESSAGES_SNAPSHOT', restate: 'same' | 'edit' | 'drop' | 'reorder' | 'rekey' | 'duplicate' }`
 * placeholders stand where a snapshot goes: the test makes it from the messages the client
 * holds at that point (see `snapshotOf`).
 */
import { createRng, randomText, splitIntoDeltas } from './random-streams.mjs'

const THREAD = 'thread-r'

function argsText(rng) {
  const value = rng.pick([
    { path: 'src/a.ts' },
    { command: 'npm test', cwd: '/tmp', env: { CI: '1' } },
    { query: randomText(rng, 2), limit: rng.int(50), nested: [1, 'two', { three: null }] },
    [],
    'a string argument',
  ])
  return JSON.stringify(value)
}

/** Splits `text` into 1–4 deltas (a character may be cut in two). */
function pieces(rng, text) {
  return splitIntoDeltas(rng, text, rng.between(1, 4))
}

export function randomAgUiSequence(seed, { valid = true, maxRuns = 4, snapshots = [] } = {}) {
  const rng = createRng(seed)
  const events = []
  let n = 0
  const fresh = (prefix) => (rng.chance(0.06) ? rng.pick(['x', 'y', 'z']) : `${prefix}-${seed}-${n++}`)
  // Message ids the client holds (for parents and results), calls without a result yet.
  const assistants = []
  const users = []
  const pendingCalls = []
  const activities = []
  const runs = rng.between(1, maxRuns)
  for (let run = 0; run < runs; run++) {
    const runId = `run-${run}`
    events.push({ type: 'RUN_STARTED', threadId: THREAD, runId })
    if (rng.chance(0.5)) {
      const id = fresh('user')
      users.push(id)
      if (rng.chance(0.5)) {
        events.push({ type: 'TEXT_MESSAGE_START', messageId: id, role: 'user' })
        for (const delta of pieces(rng, randomText(rng, 3))) events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta })
        events.push({ type: 'TEXT_MESSAGE_END', messageId: id })
      } else {
        // The run's input echoed, as servers that replay the request do.
        events[events.length - 1] = {
          ...events[events.length - 1],
          input: { threadId: THREAD, runId, messages: [{ id, role: 'user', content: randomText(rng, 3) }], tools: [], context: [], forwardedProps: {} },
        }
      }
    }
    const step = rng.chance(0.3) ? 'agent' : null
    if (step) events.push({ type: 'STEP_STARTED', stepName: step })
    const parts = rng.between(1, 5)
    for (let p = 0; p < parts; p++) {
      switch (rng.weighted([[4, 'text'], [2, 'reasoning'], [3, 'tools'], [1, 'chunks'], [1, 'interleaved'], [1, 'other'], [1, 'results']])) {
        case 'text': {
          const id = fresh('msg')
          const role = rng.weighted([[8, undefined], [2, 'assistant'], [1, 'system'], [1, 'developer']])
          events.push({ type: 'TEXT_MESSAGE_START', messageId: id, ...(role && { role }), ...(rng.chance(0.1) && { metadata: { step: p } }) })
          for (const delta of pieces(rng, randomText(rng, 5))) events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta })
          events.push({ type: 'TEXT_MESSAGE_END', messageId: id, ...(rng.chance(0.1) && { metadata: { usage: rng.int(100) } }) })
          if (!role || role === 'assistant') assistants.push(id)
          break
        }
        case 'reasoning': {
          const id = fresh('reasoning')
          const span = rng.chance(0.7)
          if (span) events.push({ type: 'REASONING_START', messageId: id })
          events.push({ type: 'REASONING_MESSAGE_START', messageId: id, role: 'reasoning' })
          for (const delta of pieces(rng, randomText(rng, 4))) events.push({ type: 'REASONING_MESSAGE_CONTENT', messageId: id, delta })
          events.push({ type: 'REASONING_MESSAGE_END', messageId: id })
          if (span) events.push({ type: 'REASONING_END', messageId: id })
          if (rng.chance(0.4)) events.push({ type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: id, encryptedValue: `enc-${id}` })
          break
        }
        case 'tools': {
          const parent = rng.weighted([[5, assistants.at(-1)], [2, fresh('msg')], [1, undefined], [1, users.at(-1)]])
          const calls = rng.between(1, 3)
          for (let c = 0; c < calls; c++) {
            const id = fresh('call')
            events.push({ type: 'TOOL_CALL_START', toolCallId: id, toolCallName: rng.pick(['bash', 'read', 'search']), ...(parent && { parentMessageId: parent }) })
            for (const delta of pieces(rng, argsText(rng))) events.push({ type: 'TOOL_CALL_ARGS', toolCallId: id, delta })
            events.push({ type: 'TOOL_CALL_END', toolCallId: id })
            if (rng.chance(0.2)) events.push({ type: 'REASONING_ENCRYPTED_VALUE', subtype: 'tool-call', entityId: id, encryptedValue: `enc-${id}` })
            pendingCalls.push(id)
          }
          if (parent && !assistants.includes(parent) && !users.includes(parent)) assistants.push(parent)
          break
        }
        case 'results': {
          // Results for calls of this or an earlier run, in any order.
          const count = rng.int(pendingCalls.length + 1)
          for (let r = 0; r < count; r++) {
            const [call] = pendingCalls.splice(rng.int(pendingCalls.length), 1)
            const content = rng.chance(0.85)
              ? randomText(rng, 3)
              : [{ type: 'text', text: randomText(rng, 2) }, { type: 'image', source: { type: 'url', value: 'https://example.com/a.png', mimeType: 'image/png' } }]
            events.push({ type: 'TOOL_CALL_RESULT', messageId: fresh('result'), toolCallId: call, content })
          }
          if (rng.chance(0.05)) events.push({ type: 'TOOL_CALL_RESULT', messageId: fresh('result'), toolCallId: `no-such-call-${seed}`, content: 'orphan' })
          break
        }
        case 'chunks': {
          const id = fresh('chunked')
          const text = pieces(rng, randomText(rng, 4))
          text.forEach((delta, i) => events.push({ type: 'TEXT_MESSAGE_CHUNK', ...(i === 0 || rng.chance(0.3) ? { messageId: id } : {}), delta }))
          assistants.push(id)
          if (rng.chance(0.5)) {
            const call = fresh('call')
            pieces(rng, argsText(rng)).forEach((delta, i) =>
              events.push({ type: 'TOOL_CALL_CHUNK', ...(i === 0 ? { toolCallId: call, toolCallName: 'bash', parentMessageId: id } : {}), delta }),
            )
            pendingCalls.push(call)
          }
          if (rng.chance(0.3)) {
            const rid = fresh('reasoning')
            pieces(rng, randomText(rng, 2)).forEach((delta, i) => events.push({ type: 'REASONING_MESSAGE_CHUNK', ...(i === 0 ? { messageId: rid } : {}), delta }))
          }
          // A chunk stream is closed by the next explicit event of its lane.
          events.push({ type: 'CUSTOM', name: 'checkpoint', value: { at: events.length } })
          break
        }
        case 'interleaved': {
          // Two text messages streaming at once, and a call's arguments between them.
          const a = fresh('msg')
          const b = fresh('msg')
          const da = pieces(rng, randomText(rng, 4))
          const db = pieces(rng, randomText(rng, 4))
          events.push({ type: 'TEXT_MESSAGE_START', messageId: a }, { type: 'TEXT_MESSAGE_START', messageId: b })
          while (da.length || db.length) {
            if (da.length && (rng.chance(0.5) || !db.length)) events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: a, delta: da.shift() })
            else events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: b, delta: db.shift() })
          }
          events.push({ type: 'TEXT_MESSAGE_END', messageId: b }, { type: 'TEXT_MESSAGE_END', messageId: a })
          assistants.push(a, b)
          break
        }
        case 'other': {
          events.push(
            rng.pick([
              { type: 'STATE_SNAPSHOT', snapshot: { count: rng.int(9), items: ['a'] } },
              { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/items/-', value: 'b' }] },
              { type: 'CUSTOM', name: 'progress', value: rng.int(100) },
              { type: 'RAW', event: { provider: 'x', chunk: randomText(rng, 1) } },
            ]),
          )
          if (rng.chance(0.4)) {
            // Activities keep ids of their own: one that takes a message's id is read
            // otherwise than the client reads it (docs), and tested on its own.
            const id = activities.length && rng.chance(0.5) ? rng.pick(activities) : `activity-${seed}-${n++}`
            if (!activities.includes(id)) {
              activities.push(id)
              events.push({ type: 'ACTIVITY_SNAPSHOT', messageId: id, activityType: 'PLAN', content: { steps: ['look'] } })
            } else events.push({ type: 'ACTIVITY_DELTA', messageId: id, activityType: 'PLAN', patch: [{ op: 'add', path: '/steps/-', value: 'act' }] })
          }
          break
        }
      }
      if (!valid && rng.chance(0.15)) {
        const target = assistants.at(-1)
        events.push(
          rng.pick([
            ...(target ? [{ type: 'TEXT_MESSAGE_CONTENT', messageId: target, delta: ' (late)' }] : []),
            { type: 'STEP_FINISHED', stepName: 'never-started' },
            { type: 'TEXT_MESSAGE_END', messageId: `never-${seed}` },
          ]),
        )
      }
    }
    for (const restate of snapshots.filter(() => rng.chance(0.5))) events.push({ type: 'MESSAGES_SNAPSHOT', restate })
    if (step) events.push({ type: 'STEP_FINISHED', stepName: step })
    if (rng.chance(0.08)) events.push({ type: 'RUN_ERROR', message: 'the model is overloaded', code: '529' })
    else events.push({ type: 'RUN_FINISHED', threadId: THREAD, runId })
    if (!valid && rng.chance(0.2)) events.push({ type: 'CUSTOM', name: 'after-the-run', value: 1 })
  }
  return events
}

/**
 * The snapshot a `restate` placeholder stands for, made from the messages the client holds
 * (`messages`, AG-UI messages): the same list (`same`), one message's text corrected
 * (`edit`), one message left out (`drop`), the list in another order with tool messages
 * after the text that follows their call (`reorder`, as in #2767), a tool message under a
 * new id (`rekey`, #2707), or one message given twice (`duplicate`).
 */
export function snapshotOf(restate, messages, rng) {
  const list = messages.filter((m) => m.role !== 'activity').map((m) => structuredClone(m))
  switch (restate) {
    case 'same':
      break
    case 'edit': {
      const target = list.find((m) => typeof m.content === 'string' && m.role !== 'tool')
      if (target) target.content += ' (corrected)'
      break
    }
    case 'drop':
      if (list.length) list.splice(rng.int(list.length), 1)
      break
    case 'reorder': {
      const tools = list.filter((m) => m.role === 'tool')
      const rest = list.filter((m) => m.role !== 'tool')
      return { type: 'MESSAGES_SNAPSHOT', messages: [...rest, ...tools] }
    }
    case 'rekey': {
      const tool = list.find((m) => m.role === 'tool')
      if (tool) tool.id = `${tool.id}-canonical`
      break
    }
    case 'duplicate':
      if (list.length) list.push(structuredClone(list[rng.int(list.length)]))
      break
  }
  return { type: 'MESSAGES_SNAPSHOT', messages: list }
}
