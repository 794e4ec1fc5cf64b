'use strict'
// Messages written in another format. Each writer's output is read back and compared
// with the messages, so what a format cannot hold is reported rather than lost silently.

const native = require('../index.js')
const { firstDifference } = require('./diff')
const { loadMessages } = require('./formats')

const ROLES = ['user', 'assistant', 'system']

/** `roles` as a note names them: `assistant messages`, `user and assistant messages`. */
const rolesNamed = (roles) => `${roles.length > 1 ? `${roles.slice(0, -1).join(', ')} and ${roles.at(-1)}` : roles[0]} messages`

/**
 * Per target: `write(messages, options)` → text, and for a format `kept(messages)` /
 * `readBack(text)`: what the target should hold and what it does hold, compared after
 * writing. The formats are the rows of the library's table that have a writer
 * (`formats()`'s `write`, written by `writeMessages`); `unified` is the webui's rows, no
 * format.
 */
const TARGETS = Object.fromEntries([
  ...native
    .formats()
    .filter((format) => format.write)
    .map(({ name, holds }) => [
      name,
      {
        write: (messages) => native.writeMessages(name, messages),
        kept: (messages) => messages.filter((message) => holds.includes(message.role)),
        readBack: (text) => loadMessages(Buffer.from(text), name),
        // Named in the notes when the format holds only some of the roles.
        holds: holds.length < ROLES.length ? rolesNamed(holds) : undefined,
      },
    ]),
  ['unified', { write: (messages, { now } = {}) => `${JSON.stringify(native.toUnifiedMessages(messages, now === undefined ? {} : { now }), null, 2)}\n` }],
])

const targetNames = Object.keys(TARGETS)

/**
 * `messages` in `target`: `{ text, notes }`, the notes saying what the target left out or
 * changed (the first difference after reading it back).
 */
function convert(messages, target, options) {
  const { write, kept, readBack, holds } = TARGETS[target]
  const text = write(messages, options)
  const notes = []
  if (kept) {
    const left = messages.length - kept(messages).length
    if (left) notes.push(`${left} message${left === 1 ? '' : 's'} left out: ${target} holds only ${holds}`)
    const difference = firstDifference(kept(messages), readBack(text), 'messages')
    if (difference) notes.push(`${target} does not keep everything: the first change is at ${difference.path}${holds ? ` (counting only ${holds})` : ''}`)
  }
  return { text, notes }
}

module.exports = { convert, targetNames }
