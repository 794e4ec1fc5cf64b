/**
 * Live conversation rows of `npm run bench`: what one push into a `Conversation` costs
 * with 10, 1,000 and 100,000 messages before it (it should not grow), in both views,
 * alone and with what a view reads after it (`messages`, or the changed message by
 * `at`), against what a user does without it to stay equal to the reload: read the
 * whole recording again on every update (`foldStream`).
 */

/** `count` finished turns of agent events, as NDJSON, and the messages they read as. */
function history(native, count) {
  let text = ''
  for (let i = 0; i < count; i++) {
    text += `{"type":"turn-start","turnId":"t${i}"}\n`
    text += `{"type":"text-delta","delta":"Answer ${i}: the file parses."}\n`
  }
  const bytes = Buffer.from(text)
  return { bytes, messages: count ? native.foldStream(bytes, { format: 'events' }).messages : [] }
}

/** The update pushed: one streamed token of a new turn's answer. */
const DELTA = Buffer.from('{"type":"text-delta","delta":"token "}\n')
const TURN = Buffer.from('{"type":"turn-start","turnId":"live"}\n')

export function runLiveCases({ native, measurePair, printTable, ratio, quick }) {
  const sizes = quick ? [10, 1_000] : [10, 1_000, 100_000]
  const rows = []
  const at10 = {}
  const ns = (value) => value.toFixed(0)
  for (const size of sizes) {
    const { bytes, messages } = history(native, size)
    const push = {}
    const pushRead = {}
    const pushAt = {}
    for (const mode of ['mutable', 'immutable']) {
      // One conversation per measurement: each keeps its own turn growing.
      const open = () => {
        const live = new native.Conversation({ format: 'events', mode, messages, line: 2 * size + 1 })
        live.push(TURN)
        live.messages
        return live
      }
      const alone = open()
      push[mode] = () => alone.push(DELTA)
      // A UI that draws after every push reads `messages` each time.
      const drawn = open()
      pushRead[mode] = () => {
        drawn.push(DELTA)
        return drawn.messages
      }
      // A UI that draws each message on its own reads the one that changed.
      const one = open()
      pushAt[mode] = () => {
        one.push(DELTA)
        return one.at(-1)
      }
    }
    // The alternative: the recording so far read whole on each update.
    let recording = Buffer.concat([bytes, TURN, DELTA])
    const reread = () => native.foldStream(recording, { format: 'events' })
    const alone = measurePair(push.mutable, push.immutable)
    const read = measurePair(pushRead.mutable, pushRead.immutable)
    const at = measurePair(pushAt.mutable, pushAt.immutable)
    const again = measurePair(push.mutable, reread)
    const measured = {
      mutable: alone.native,
      mutableRead: read.native,
      immutable: alone.js,
      immutableRead: read.js,
      immutableAt: at.js,
    }
    if (size === sizes[0]) Object.assign(at10, measured)
    rows.push([
      size.toLocaleString('en-US'),
      ns(measured.mutable),
      ratio(measured.mutable / at10.mutable),
      ns(measured.mutableRead),
      ns(measured.immutable),
      ratio(measured.immutable / at10.immutable),
      ns(measured.immutableRead),
      ratio(measured.immutableRead / at10.immutableRead),
      ns(measured.immutableAt),
      ratio(measured.immutableAt / at10.immutableAt),
      (again.js / 1e3).toFixed(1),
      ratio(1 / again.ratio),
    ])
    recording = null
  }
  printTable(
    'Live conversation: one push (a streamed token) after N messages, ns',
    ['messages before', 'mutable push', '÷ at 10', '+ read', 'immutable push', '÷ at 10', '+ read', '÷ at 10', '+ at(-1)', '÷ at 10', 're-read µs/update', 're-read ÷ mutable push'],
    rows,
  )
  console.log('mutable: one array, changed in place. immutable: pushes change an array no caller sees; the first read of')
  console.log('`messages` after a change copies it (V8 slice, N references), the changed message and chunk new, the rest')
  console.log('shared. "+ read": push, then read `messages` (a UI drawing the list per push); "+ at(-1)": push, then read')
  console.log('the message that changed (a UI drawing each message on its own). re-read: foldStream of the recording so far.')
}
