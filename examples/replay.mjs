#!/usr/bin/env node
// Replays a recorded agent stream (NDJSON, one AgentEvent per line) through
// appendEventToChunks and prints the message it builds, the way a chat UI shows it.
//
//   node examples/replay.mjs examples/demo-stream.ndjson
import { readFileSync } from 'node:fs'

import { appendEventToChunks } from '../index.js'

const file = process.argv[2]
if (!file) {
  console.error('usage: node examples/replay.mjs STREAM.ndjson')
  process.exit(2)
}

const colour = process.stdout.isTTY && !process.env.NO_COLOR
const paint = (code) => (text) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text)
const dim = paint('2')
const bold = paint('1')
const red = paint('31')
const green = paint('32')
const yellow = paint('33')
const indent = (text, prefix = '    ') => String(text).replace(/^/gm, prefix)
const show = (value) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2))

const chunks = []
let events = 0
readFileSync(file, 'utf8')
  .split('\n')
  .forEach((line, index) => {
    if (!line.trim()) return
    let event
    try {
      event = JSON.parse(line)
    } catch (error) {
      console.error(`${file}:${index + 1}: not JSON: ${error.message}`)
      process.exit(2)
    }
    appendEventToChunks(chunks, event)
    events++
  })

console.log(bold(`assistant`) + dim(`  (${events} events → ${chunks.length} chunks)`))
for (const chunk of chunks) {
  switch (chunk.type) {
    case 'text':
      console.log(indent(chunk.text))
      break
    case 'thinking':
      console.log(indent(dim(`thinking${chunk.metadata ? ' (signed)' : ''}: ${chunk.text}`)))
      break
    case 'tool-batch':
      for (const call of chunk.calls) {
        const status = !('result' in call) ? yellow('running') : call.isError ? red('failed') : green('done')
        console.log(indent(`${bold('⚙ ' + call.name)} ${dim(call.id)} ${status}`))
        console.log(indent(dim(JSON.stringify(call.arguments)), "        "))
        if (call.shellOutput?.stdout) console.log(indent(call.shellOutput.stdout.trimEnd(), '      │ '))
        if (call.shellOutput?.stderr) console.log(indent(red(call.shellOutput.stderr.trimEnd()), '      │ '))
        if ('result' in call) console.log(indent(show(call.result), '      → '))
      }
      break
    case 'error':
      console.log(indent(red(`error${chunk.statusCode !== undefined ? ` ${chunk.statusCode}` : ''}: ${chunk.message}`)))
      break
    case 'system':
      console.log(indent(yellow(`[${chunk.kind}] ${chunk.text}`)))
      break
  }
}
