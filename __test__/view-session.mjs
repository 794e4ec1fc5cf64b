// A session with everything the page has to show, as ChatMessage[] (the chunks a
// reader makes of a real session): markdown, hostile HTML, thinking, tool calls of every
// result shape, the user's own shell commands, errors, system notices of kinds old and
// new, and files (inline images valid and not, remote ones, other files).
import { crc32, deflateSync } from 'node:zlib'

/** A real PNG: `width` × `height`, a gradient, as base64. */
export function png(width = 96, height = 48) {
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([length, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8-bit RGB, no interlace
  const rows = []
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3)
    for (let x = 0; x < width; x++) row.set([40 + Math.round((180 * x) / width), 90 + Math.round((120 * y) / height), 200], 1 + x * 3)
    rows.push(row)
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]).toString('base64')
}

/** The first bytes of each image format, padded: enough for the page's signature check. */
export const signatures = {
  'image/png': png(2, 2),
  'image/jpeg': Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1]).toString('base64'),
  // 1×1, one red pixel: a two-colour table, then the LZW-coded pixel.
  'image/gif': Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\x00\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;', 'latin1').toString('base64'),
  'image/webp': Buffer.from('RIFF\x1a\x00\x00\x00WEBPVP8L', 'latin1').toString('base64'),
}

export const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(9)"><script>alert(10)</script></svg>').toString('base64')

export const MARKDOWN = `## Why the test fails

The parser reads **bytes**, not *code points*; ~~one fix~~ the fix is \`fromCodePoint\`:

1. read the failing spec
2. fix the decoder
   - keep the old name

| file | change |
| --- | ---: |
| src/parser.ts | 1 line |

\`\`\`ts
const ch = String.fromCodePoint(code)
const next = i + (code > 0xffff ? 2 : 1)
\`\`\`

> quoted advice

See [the docs](https://example.com/docs), not [this](javascript:alert(5)) or [that](JaVaScRiPt:alert(6)).
Raw: <script>alert(7)</script> and <img src=x onerror=alert(8)> and ![remote](https://example.com/pixel.png).`

export function richSession() {
  return [
    {
      id: 'u1',
      role: 'user',
      chunks: [
        { type: 'text', text: 'Why does `npm test` fail? Screenshot attached. <b>not bold</b>' },
        { type: 'file', mediaType: 'image/png', data: png(), filename: 'screenshot.png' },
      ],
    },
    {
      id: 'a1',
      role: 'assistant',
      chunks: [
        { type: 'thinking', text: '**Looking at the spec**\n\nThe decoder splits *surrogate pairs*.', metadata: { anthropic: { signature: 'sig' } } },
        { type: 'text', text: MARKDOWN },
        {
          type: 'tool-batch',
          calls: [
            { id: 'call-bash', name: 'bash', arguments: { command: 'npm test -- parser' }, result: [{ type: 'text', text: 'FAIL src/parser.test.ts\n  ✕ parses emoji' }], isError: true },
            { id: 'call-title', name: 'read', title: 'Read src/parser.ts', result: [{ type: 'content', content: { type: 'text', text: 'export function parse() {}' } }], isError: false },
            { id: 'call-object', name: 'exec', arguments: { cmd: 'ls' }, result: { output: 'a.txt\nb.txt\n', exitCode: 0, pid: 41 }, isError: false },
            { id: 'call-shot', name: 'screenshot', arguments: {}, result: [{ type: 'image', data: png(64, 32), mimeType: 'image/png' }], isError: false },
          ],
        },
      ],
    },
    { id: 'b1', role: 'user', chunks: [{ type: 'tool-batch', calls: [{ id: 'b1', name: 'bash', arguments: { command: 'git status --short' }, result: { output: ' M src/parser.ts\n?? notes.md\n', exitCode: 0, cancelled: false, truncated: false }, isError: false }] }] },
    {
      id: 'b2',
      role: 'user',
      chunks: [{ type: 'tool-batch', calls: [{ id: 'b2', name: 'bash', arguments: { command: 'npm run build <&2' }, result: { output: 'error TS2304: <Cannot> find name\n', exitCode: 2, cancelled: false, truncated: true, fullOutputPath: '/tmp/pi-bash-1.log' }, isError: true }] }],
    },
    { id: 'b3', role: 'user', chunks: [{ type: 'tool-batch', calls: [{ id: 'b3', name: 'bash', arguments: { command: 'sleep 100' }, result: { output: '', cancelled: true, truncated: false }, isError: true }] }] },
    {
      id: 'a2',
      role: 'assistant',
      chunks: [
        { type: 'text', text: 'Let me try again.' },
        { type: 'error', message: '400 {"type":"error","error":{"type":"invalid_request_error","message":"<prompt> is too long"}}', statusCode: 400 },
      ],
    },
    {
      id: 's1',
      role: 'system',
      chunks: [
        { type: 'system', kind: 'compaction', text: '## Goal\nFix the parser.\n\n## Progress\n- spec read\n- decoder **fixed**' },
        { type: 'system', kind: 'thinking-level-changed', text: 'high' },
        { type: 'system', kind: 'model-changed', text: 'anthropic/claude-sonnet-4-5' },
        { type: 'system', kind: 'branch-summary', text: 'The abandoned branch tried `TextDecoder`.' },
        { type: 'system', kind: 'custom', text: '<i>from an extension</i>' },
      ],
    },
    {
      id: 'a3',
      role: 'assistant',
      chunks: [
        { type: 'text', text: 'Files I was given:' },
        { type: 'file', mediaType: 'image/png', data: 'not base64!', filename: 'broken.png' },
        { type: 'file', mediaType: 'image/svg+xml', data: SVG, filename: 'logo.svg' },
        { type: 'file', mediaType: 'image/png', data: signatures['image/jpeg'], filename: 'lies.png' },
        { type: 'file', mediaType: 'image/png', url: 'https://example.com/remote.png' },
        { type: 'file', mediaType: 'application/pdf', data: Buffer.from('%PDF-1.7 nothing').toString('base64'), filename: 'spec.pdf' },
        { type: 'file', mediaType: 'image/gif', url: `data:image/gif;base64,${signatures['image/gif']}`, filename: 'dot.gif' },
      ],
    },
    { id: 'a4', role: 'assistant', chunks: [{ type: 'file', mediaType: 'image/png', data: png(48, 48), filename: 'alone.png' }] },
  ]
}
