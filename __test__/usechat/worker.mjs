// A server process answering one request of a chat: it goes on from the conversation a
// process before it kept (messages and resume state), pushes the rest of the turn's bytes
// and sends each piece of UI message stream it writes, with what it keeps after writing
// it, to the front that holds the browser's connection. The front may kill it at any
// moment; the next process goes on from the last state it was sent.
import { Conversation } from 'agent-chunks'
import { keep, play, seeded } from './serve.mjs'

process.once('message', async ({ format, saved, bytes, seed, replay }) => {
  const live = new Conversation({ format, ...saved })
  const rng = seeded(seed)
  const rest = Buffer.from(bytes, 'base64')
  let sent = 0
  const send = (message) => new Promise((resolve) => process.send(message, resolve))
  const pending = []
  await play(live, rest, rng, {
    // A process taking over a response a client reconnects to sends it again from its start.
    first: replay ? live.toUIMessageStream({ replay: true }) : '',
    write: (sse) => {
      pending.push({ sse, consumed: sent })
    },
    after: async (consumed) => {
      sent = consumed
      for (const message of pending.splice(0)) await send({ ...message, consumed, saved: keep(live) })
      return true
    },
  })
  for (const message of pending.splice(0)) await send({ ...message, consumed: rest.length, saved: keep(live) })
  await send({ done: true, consumed: rest.length, saved: keep(live) })
  process.disconnect()
})
