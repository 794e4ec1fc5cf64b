/**
 * Live conversation rows of `npm run bench`: what one push into a `Conversation` costs
 * with 10, 1,000 and 100,000 messages before it (it should not grow), in both views,
 * against what a user does without it to stay equal to the reload: read the whole
 * recording again on every update (`foldStream`).
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
  let base = null
  for (const size of sizes) {
    const { bytes, messages } = history(native, size)
    const views = {}
    for (const mode of ['mutable', 'immutable']) {
      const live = new native.Conversation({ format: 'events', mode, messages, line: 2 * size + 1 })
      live.push(TURN)
      views[mode] = () => live.push(DELTA)
    }
    // The alternative: the recording so far read whole on each update.
    let recording = Buffer.concat([bytes, TURN, DELTA])
    const reread = () => native.foldStream(recording, { format: 'events' })
    const mutable = measurePair(views.mutable, reread)
    const immutable = measurePair(views.immutable, reread)
    base ??= mutable.native
    rows.push([
      size.toLocaleString('en-US'),
      mutable.native.toFixed(0),
      ratio(mutable.native / base),
      immutable.native.toFixed(0),
      (mutable.js / 1e3).toFixed(1),
      ratio(1 / mutable.ratio),
      ratio(1 / immutable.ratio),
    ])
    recording = null
  }
  printTable(
    'Live conversation: one push (a streamed token) after N messages',
    ['messages before', 'mutable ns/push', '÷ at 10', 'immutable ns/push', 're-read µs/update', 're-read ÷ mutable', 're-read ÷ immutable'],
    rows,
  )
  console.log('mutable: one array, changed in place; immutable: a new array per push (a copy of N references),')
  console.log('the changed message and chunk new, the rest shared. re-read: foldStream of the recording so far.')
}
