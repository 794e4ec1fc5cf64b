// The event-stream line rules through every bytes entry point: a leading BOM is skipped
// and CR, LF and CRLF each end a line, in every framing, split anywhere.
import test from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { ChunkStream, reduceEvents, loadHistory, loadHistorySync } = require('../index.js')

const events = ['{"type":"text-delta","delta":"a"}', '{"type":"text-delta","delta":"b"}', '{"type":"tool-call","toolCall":{"id":"1","name":"n","arguments":{}}}']
const wanted = [{ type: 'text', text: 'ab' }, { type: 'tool-batch', calls: [{ id: '1', name: 'n', arguments: {} }] }]

const shapes = (eol) => ({
  ndjson: events.map((e) => e + eol).join(''),
  sse: events.map((e) => `event: agent${eol}data: ${e}${eol}${eol}`).join(''),
})

test('BOM, CR, LF and CRLF: ChunkStream split at every byte, reduceEvents and loadHistory', async () => {
  for (const eol of ['\n', '\r', '\r\n']) {
    for (const [shape, body] of Object.entries(shapes(eol))) {
      for (const bom of ['', '\ufeff']) {
        const bytes = Buffer.from(bom + body)
        const framings = shape === 'sse' ? ['auto', 'sse'] : ['auto', 'ndjson']
        for (const framing of framings) {
          const context = `${JSON.stringify(eol)} ${shape} bom=${bom !== ''} ${framing}`
          assert.deepEqual(reduceEvents(bytes, { framing }), wanted, context)
          for (let cut = 0; cut <= bytes.length; cut++) {
            const stream = new ChunkStream({ framing })
            stream.push(bytes.subarray(0, cut))
            stream.push(bytes.subarray(cut))
            stream.end()
            assert.deepEqual(stream.chunks(), wanted, `${context} cut ${cut}`)
            assert.equal(stream.eventCount, 3, `${context} cut ${cut}`)
          }
        }
        const [message] = await loadHistory(bytes, 'events')
        assert.deepEqual(message.chunks, wanted)
        assert.deepEqual(loadHistorySync(bytes, 'events')[0].chunks, wanted)
      }
    }
  }
})

test('a CR at the end of one push and an LF at the start of the next end one line', () => {
  const stream = new ChunkStream({ framing: 'sse' })
  stream.push('data: {"type":"text-delta",\r')
  // Read as two line ends, the LF would end the frame here and fold half an event.
  stream.push('\ndata: "delta":"x"}\r')
  stream.push('\n\r')
  stream.push('\n')
  stream.end()
  assert.deepEqual(stream.chunks(), [{ type: 'text', text: 'x' }])
  assert.equal(stream.eventCount, 1)
})
