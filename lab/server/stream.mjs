// Writing a scripted turn as server-sent events: text cut into deltas the way a model
// streams it, with the options that make a stream hard to read (a character cut between
// two TCP writes, a stall that never ends the response).

/** The deltas of a text: given explicitly as an array, or cut every `size` code points. */
export function deltasOf(text, size = 24) {
  if (Array.isArray(text)) return text
  const chars = Array.from(text ?? '')
  const out = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''))
  return out
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/**
 * An SSE writer over a response. `rawSplit` cuts the bytes of every event that holds a
 * multi-byte character inside that character, written as two writes.
 */
export class SseWriter {
  constructor(res, { rawSplit = false, delayMs = 0 } = {}) {
    this.res = res
    this.rawSplit = rawSplit
    this.delayMs = delayMs
    this.closed = false
    res.on('close', () => {
      this.closed = true
    })
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    })
  }

  async event(name, data) {
    if (this.closed) return
    const head = name ? `event: ${name}\n` : ''
    const bytes = Buffer.from(`${head}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`, 'utf8')
    const lead = this.rawSplit ? bytes.findIndex((b) => b >= 0xc0) : -1
    if (lead >= 0) {
      this.res.write(bytes.subarray(0, lead + 1))
      await sleep(15)
      if (this.closed) return
      this.res.write(bytes.subarray(lead + 1))
    } else {
      this.res.write(bytes)
    }
    if (this.delayMs) await sleep(this.delayMs)
  }

  end() {
    if (!this.closed) this.res.end()
  }

  /** Holds the response open until the client goes away. */
  stall() {
    return new Promise((resolve) => {
      if (this.closed) return resolve()
      this.res.on('close', resolve)
    })
  }
}
