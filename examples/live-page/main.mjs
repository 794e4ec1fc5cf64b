// A page that folds a recorded stream live: the bytes arrive in pieces, each piece is
// pushed into a Conversation, and only the messages the push reports as changed are drawn
// again. The immutable view makes "changed" a matter of identity: a message object that
// is the same as before needs no drawing (what React's `memo` relies on).
import { Conversation } from 'agent-chunks'

// The page is served from `examples/live-page/`, next to the recordings.
const RECORDING = new URL('../agent-session.sse', location.href)
const list = document.getElementById('messages')
const drawn = new Map() // message index → times drawn

function chunkElement(chunk) {
  const element = document.createElement('div')
  element.className = chunk.type === 'tool-batch' ? 'call' : chunk.type
  if (chunk.type === 'tool-batch') {
    element.textContent = chunk.calls
      .map((call) => `${call.name}(${JSON.stringify(call.arguments ?? {})})${'result' in call ? ` → ${JSON.stringify(call.result)}` : ' …'}`)
      .join('\n')
  } else {
    element.textContent = chunk.text ?? chunk.message ?? ''
  }
  return element
}

function draw(index, message) {
  const item = list.children[index] ?? list.appendChild(document.createElement('li'))
  item.dataset.role = message.role
  item.dataset.id = message.id
  const count = (drawn.get(index) ?? 0) + 1
  drawn.set(index, count)
  const renders = document.createElement('span')
  renders.className = 'renders'
  renders.textContent = `drawn ${count}×`
  item.replaceChildren(renders, ...message.chunks.map(chunkElement))
}

async function fold() {
  const live = new Conversation({ format: 'events', mode: 'immutable' })
  const snapshots = []
  const response = await fetch(RECORDING)
  const reader = response.body.getReader()
  let pushes = 0
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    // Network reads are large on a local server: cut them smaller, as a slow link would.
    for (let at = 0; at < value.length; at += 97) {
      const before = live.messages
      const changes = live.push(value.subarray(at, at + 97))
      pushes++
      for (const index of changes.added) draw(index, live.messages[index])
      for (const { index } of changes.changed) draw(index, live.messages[index])
      snapshots.push({ before, after: live.messages, changes })
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
  }
  live.end()
  // What identity says matches the report: a message not reported is the same object.
  const sharing = snapshots.every(({ before, after, changes }) =>
    before.every((message, i) => (changes.changed.some((c) => c.index === i) ? after[i] !== message : after[i] === message)),
  )
  document.getElementById('status').textContent = `done: ${live.messages.length} messages from ${pushes} pushes`
  return { messages: live.messages, pushes, drawn: [...drawn.values()], sharing, shown: list.innerText }
}

globalThis.liveReport = fold().catch((error) => ({ failed: String(error?.stack ?? error) }))
