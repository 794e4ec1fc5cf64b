// The page `agent-chunks view` writes, made from chunk arrays of every kind a reader
// produces: markdown rendered (and made harmless), the user's shell commands as terminal
// blocks, errors, system notices of any kind, files and inline images; then the page as
// Chromium shows it, with a screenshot under target/cli-view/.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

import { root, scratch } from './cli-helpers.mjs'
import { MARKDOWN, SVG, png, richSession, signatures } from './view-session.mjs'

const require = createRequire(import.meta.url)
const { renderPage } = require('../cli/page.js')
const { imageDataUrl } = require('../cli/media.js')

const tmp = scratch()
const CHROMIUM = '/usr/bin/chromium'
const shots = join(root, 'target', 'cli-view')

const page = (messages) => renderPage(messages, { title: 'session', format: 'pi' })
const assistant = (...chunks) => [{ id: 'a', role: 'assistant', chunks }]
/** The part of a page between <main> and </main>: what the session put there. */
const main = (html) => html.slice(html.indexOf('<main'), html.indexOf('</main>'))

test('markdown: headings, lists, emphasis, tables, links, one block per fenced code', () => {
  const html = main(page(assistant({ type: 'text', text: MARKDOWN })))
  assert.ok(html.includes('<h2>Why the test fails</h2>'))
  assert.ok(html.includes('<strong>bytes</strong>, not <em>code points</em>; <s>one fix</s> the fix is <code>fromCodePoint</code>'))
  assert.match(html, /<ol>\n<li>read the failing spec<\/li>\n<li>fix the decoder\n<ul>\n<li>keep the old name<\/li>/)
  assert.match(html, /<table>\n<thead>\n<tr>\n<th>file<\/th>\n<th style="text-align:right">change<\/th>/)
  assert.ok(html.includes('<blockquote>\n<p>quoted advice</p>'))
  assert.equal(html.match(/<pre class="code"/g).length, 1)
  assert.ok(html.includes('<pre class="code" data-lang="ts"><code>const ch = String.fromCodePoint(code)\nconst next = i + (code &gt; 0xffff ? 2 : 1)</code></pre>'))
  assert.ok(html.includes('<a href="https://example.com/docs" rel="noopener noreferrer" target="_blank">the docs</a>'))
  assert.doesNotMatch(html, /\*\*|```|^#/m)

  // An address written out is a link; a file name is not a web site.
  const bare = main(page(assistant({ type: 'text', text: 'see https://example.com/a?b=1 and src/parser.ts, notes.md, www.example.com' })))
  assert.ok(bare.includes('<p>see <a href="https://example.com/a?b=1" rel="noopener noreferrer" target="_blank">https://example.com/a?b=1</a> and src/parser.ts, notes.md, www.example.com</p>'))
})

test('markdown: raw HTML is text, links go nowhere but http(s) and mailto, images are never loaded', () => {
  const hostile = [
    'Raw: <script>alert(1)</script> <img src=x onerror=alert(2)> <a href="https://example.com">a</a>',
    '<div onclick="alert(3)">block</div>',
    '[a](javascript:alert(4)) [b](JaVaScRiPt:alert(5)) [c](&#106;avascript:alert(6)) [d](vbscript:x) [e](data:text/html,<script>alert(7)</script>)',
    '[f](file:///etc/passwd) [g](relative/path) <javascript:alert(8)> [h][ref] [ok](mailto:me@example.com)',
    '![i](https://example.com/track.png) ![j](data:image/png;base64,AAAA) ![k](javascript:alert(9))',
    '```html" onmouseover="alert(10)\n</code></pre><script>alert(11)</script>\n```',
    'bell \u0007 here',
    '',
    '[ref]: javascript:alert(12)',
  ].join('\n\n')
  const html = main(page(assistant({ type: 'text', text: hostile }, { type: 'thinking', text: hostile }, { type: 'system', kind: 'custom', text: hostile })))
  assert.doesNotMatch(html, /<(script|img|div onclick|iframe)\b/)
  // The address in the raw anchor is text like any other, so a link of its own.
  assert.ok(html.includes('Raw: &lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt; &lt;a href=&quot;<a href="https://example.com" rel="noopener noreferrer" target="_blank">https://example.com</a>&quot;&gt;a&lt;/a&gt;'))
  assert.ok(html.includes('&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(11)&lt;/script&gt;'))
  assert.ok(html.includes('data-lang="html&quot;"'), 'the info string is an escaped attribute value')
  assert.ok(html.includes('bell \\u0007 here'))
  const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1])
  assert.deepEqual([...new Set(hrefs)], ['https://example.com', 'mailto:me@example.com', 'https://example.com/track.png'])
  assert.ok(html.includes('<a class="image-link" href="https://example.com/track.png" rel="noopener noreferrer" target="_blank">image: i</a>'))
  assert.ok(html.includes('[a](javascript:alert(4))'))
  assert.doesNotMatch(html, /<[^>]*\ssrc=/)
})

test('inline images: only PNG, JPEG, GIF and WebP in canonical base64 whose bytes are that format', () => {
  for (const [type, data] of Object.entries(signatures)) {
    assert.equal(imageDataUrl(type, data), `data:${type};base64,${data}`, type)
    assert.equal(imageDataUrl(type.toUpperCase(), data), `data:${type};base64,${data}`, `${type} in capitals`)
  }
  const valid = signatures['image/png']
  const rejected = {
    svg: ['image/svg+xml', SVG],
    'another type’s bytes': ['image/png', signatures['image/jpeg']],
    'a type with parameters': ['image/png; charset=binary', valid],
    'a type not listed': ['image/bmp', valid],
    'text as an image': ['image/png', Buffer.from('<html><script>alert(1)</script>').toString('base64')],
    'empty data': ['image/png', ''],
    'a line break': ['image/png', `${valid.slice(0, 8)}\n${valid.slice(8)}`],
    'the URL-safe alphabet': ['image/png', valid.replace(/\+/g, '-').replace(/\//g, '_') + (/[+/]/.test(valid) ? '' : '-_==')],
    'missing padding': ['image/png', valid.replace(/=+$/, '') + (valid.endsWith('=') ? '' : 'A')],
    'a quote that would end the attribute': ['image/png', `${valid.slice(0, -4)}"><x`],
    'not a string': ['image/png', 42],
  }
  for (const [what, [type, data]] of Object.entries(rejected)) assert.equal(imageDataUrl(type, data), undefined, what)

  // Padding only at the end, one or two of it.
  const head = Buffer.from(png(2, 2), 'base64').subarray(0, 12).toString('base64') // 16 characters, no padding
  for (const tail of ['AA==', 'AAA=']) assert.ok(imageDataUrl('image/png', head + tail), tail)
  for (const tail of ['A===', '====', 'AA=A', '=AAA', 'AA==AAAA', 'AAA', 'AAAAA']) assert.equal(imageDataUrl('image/png', head + tail), undefined, tail)
})

test('a screenshot of several megabytes is shown like a small one', () => {
  const bytes = Buffer.alloc(6 * 1024 * 1024 + 1)
  bytes.set(Buffer.from(png(2, 2), 'base64').subarray(0, 8))
  const data = bytes.toString('base64')
  assert.equal(imageDataUrl('image/png', data), `data:image/png;base64,${data}`)
  const html = main(page(assistant({ type: 'file', mediaType: 'image/png', data, filename: 'big.png' })))
  assert.ok(html.includes(`<img src="data:image/png;base64,${data}" alt="big.png (image/png, 6.0 MiB)">`))
})

test('files: inline images shown, everything else described, remote ones only linked', () => {
  const html = main(page(richSession()))
  const images = [...html.matchAll(/<img src="([^"]*)" alt="([^"]*)">/g)].map((match) => [match[1].slice(0, 22), match[2]])
  assert.deepEqual(images, [
    ['data:image/png;base64,', 'screenshot.png (image/png, 9.3 KiB)'],
    ['data:image/png;base64,', '(image/png, 4.0 KiB)'],
    ['data:image/gif;base64,', 'dot.gif (image/gif)'],
    ['data:image/png;base64,', 'alone.png (image/png, 4.4 KiB)'],
  ])
  for (const name of ['broken.png (image/png, 8 B)', 'logo.svg (image/svg+xml, 90 B)', 'lies.png (image/png, 12 B)']) {
    assert.ok(html.includes(`${name} <span class="file-note">not shown: not a PNG, JPEG, GIF or WebP image in valid base64</span>`), name)
  }
  assert.ok(html.includes('(image/png) <a href="https://example.com/remote.png" rel="noopener noreferrer" target="_blank">https://example.com/remote.png</a>'))
  assert.ok(html.includes('<span class="file-kind">file</span> spec.pdf (application/pdf, 16 B)</div>'))
  assert.doesNotMatch(html, new RegExp(SVG.slice(0, 40).replace(/[+/]/g, '\\$&')))

  const hostile = main(
    page(
      assistant(
        { type: 'file', mediaType: 'image/png" onerror="alert(1)', data: png(2, 2), filename: '<img src=x onerror=alert(2)>.png' },
        { type: 'file', mediaType: 'text/html', url: 'javascript:alert(3)', filename: 'x"><script>alert(4)</script>' },
        { type: 'file', mediaType: 'image/png', url: 'https://example.com/a.png" onmouseover="alert(5)' },
        { type: 'file', mediaType: 'image/png', url: `data:image/svg+xml;base64,${SVG}` },
      ),
    ),
  )
  assert.doesNotMatch(hostile, /<(img|script)\b/)
  assert.ok(hostile.includes('&lt;img src=x onerror=alert(2)&gt;.png (image/png&quot; onerror=&quot;alert(1), 79 B)'))
  assert.ok(hostile.includes('<code>javascript:alert(3)</code>'))
  assert.ok(hostile.includes('href="https://example.com/a.png&quot; onmouseover=&quot;alert(5)"'))
  assert.doesNotMatch(hostile, /href="(?!https:)/)
})

test('a message holding only files gets a row of its own, on the timeline by the library’s rule', () => {
  const picture = { type: 'file', mediaType: 'image/png', data: png(4, 4) }
  const messages = [
    { id: 'a1', role: 'assistant', chunks: [{ type: 'text', text: 'one' }] },
    { id: 'u1', role: 'user', chunks: [picture] },
    { id: 'a2', role: 'assistant', chunks: [{ type: 'text', text: 'two' }] },
    { id: 'a3', role: 'assistant', chunks: [picture] },
    { id: 'a4', role: 'assistant', chunks: [picture, { type: 'text', text: 'three' }] },
  ]
  const rows = [...main(page(messages)).matchAll(/<div class="row row-([\w-]+)" data-message-id="(\w+)"[^>]*?( data-first)?( data-last)?>/g)]
  assert.deepEqual(
    rows.map(([, type, id, first, last]) => [type, id, Boolean(first), Boolean(last)]),
    [
      ['assistant', 'a1', true, true],
      ['user', 'u1', false, false],
      ['assistant', 'a2', true, false],
      ['files', 'a3', false, false],
      ['assistant', 'a4', false, true],
    ],
  )
  assert.match(main(page(messages)), /<div class="bubble"><figure class="file image"><img src="data:image\/png;base64,/)
  assert.match(main(page(messages)), /data-message-id="a4".*<div class="body"><figure class="file image">.*<\/figure><div class="text md"><p>three<\/p>/)
})

test('the user’s shell commands: a terminal block with the command, output, exit code and marks', () => {
  const html = main(page(richSession()))
  const block = (id) => html.slice(html.indexOf(`data-call-id="${id}"`), html.indexOf('</div>\n</div>', html.indexOf(`data-call-id="${id}"`)))
  assert.match(block('b1'), /run by the user<\/span><span class="status">exit 0<\/span>/)
  assert.ok(block('b1').includes('<span class="prompt">$ </span><span class="command">git status --short</span>\n<span class="term-output"> M src/parser.ts\n?? notes.md</span>'))
  assert.match(block('b2'), /data-status="failed".*<span class="status">exit 2<\/span>/s)
  assert.ok(block('b2').includes('<span class="command">npm run build &lt;&amp;2</span>\n<span class="term-output">error TS2304: &lt;Cannot&gt; find name</span>'))
  assert.ok(block('b2').includes('<span class="mark" data-mark="truncated">output truncated; full output in /tmp/pi-bash-1.log</span>'))
  assert.match(block('b3'), /<span class="status">cancelled<\/span>.*<span class="command">sleep 100<\/span><\/pre>/s)
  assert.doesNotMatch(block('b3'), /undefined/)
})

test('tool calls: a title, no "undefined" for absent arguments, an object result’s output as text', () => {
  const html = main(page(richSession()))
  assert.ok(html.includes('<span class="tool-name">read</span><span class="subject" title="Read src/parser.ts">Read src/parser.ts</span>'))
  const read = html.slice(html.indexOf('data-call-id="call-title"'), html.indexOf('data-call-id="call-object"'))
  assert.doesNotMatch(read, /undefined|arguments/)
  const object = html.slice(html.indexOf('data-call-id="call-object"'), html.indexOf('data-call-id="call-shot"'))
  assert.ok(object.includes('<pre class="output result">a.txt\nb.txt</pre><div class="marks"><span class="mark" data-mark="exit">exit code 0</span></div>'))
  assert.ok(object.includes('<pre class="output result-more">{\n  &quot;pid&quot;: 41\n}</pre>'))
  assert.doesNotMatch(html, /undefined/)

  const bare = main(page(assistant({ type: 'tool-batch', calls: [{ id: 'c', name: 'x', arguments: undefined, result: undefined, isError: false }] })))
  assert.ok(bare.includes('<div class="label">result</div><pre class="output result">(none)</pre>'))
  assert.doesNotMatch(bare, /undefined|arguments/)
})

test('errors and system notices of any kind are shown, with their kind', () => {
  const html = main(page(richSession()))
  assert.ok(html.includes('<div class="card error"><div class="error-title">Error 400</div><div class="error-message">400 {&quot;type&quot;:&quot;error&quot;,&quot;error&quot;:{&quot;type&quot;:&quot;invalid_request_error&quot;,&quot;message&quot;:&quot;&lt;prompt&gt; is too long&quot;}}</div></div>'))
  for (const [kind, text] of [['thinking-level-changed', 'high'], ['model-changed', 'anthropic/claude-sonnet-4-5'], ['branch-summary', 'The abandoned branch tried <code>TextDecoder</code>.'], ['custom', '&lt;i&gt;from an extension&lt;/i&gt;']]) {
    assert.ok(html.includes(`<div class="notice" data-kind="${kind}"><span class="kind">${kind}</span> ${text}</div>`), kind)
  }
  assert.ok(html.includes('<details class="notice" data-kind="compaction"><summary><span class="kind">compaction</span> Fix the parser.</summary><div class="md"><h2>Goal</h2>'))
})

const browserMissing = !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM} (apt-get install chromium)`

test('in Chromium: the rich page runs nothing it holds, loads nothing, and shows it all', { skip: browserMissing }, async () => {
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  try {
    const file = tmp.path('rich.html')
    writeFileSync(file, renderPage(richSession(), { title: 'rich session', format: 'pi' }))
    const tab = await browser.newPage({ viewport: { width: 960, height: 900 } })
    const requests = []
    const dialogs = []
    tab.on('request', (request) => requests.push(request.url()))
    tab.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      return dialog.dismiss()
    })
    await tab.goto(pathToFileURL(file).href)

    // Markdown as elements; one code block as one box.
    const text = tab.locator('.row-assistant .md').first()
    assert.equal(await text.locator('h2').textContent(), 'Why the test fails')
    assert.equal(await text.locator('ol > li').count(), 2)
    assert.equal(await text.locator('table td').first().textContent(), 'src/parser.ts')
    assert.equal(await text.locator('pre.code').count(), 1)
    assert.equal(await text.locator('pre.code').evaluate((pre) => getComputedStyle(pre).whiteSpace), 'pre')
    const code = await text.locator('pre.code').boundingBox()
    assert.ok(code.height > 30 && code.height < 80, `one box for both lines: ${code.height}px`)
    assert.equal(await text.locator('strong').first().textContent(), 'bytes')

    // Images decoded from the page itself; the others described; nothing else loaded.
    const images = await tab.$$eval('main img', (elements) => elements.map((img) => [img.alt, img.naturalWidth, img.src.slice(0, 15)]))
    assert.deepEqual(images, [
      ['screenshot.png (image/png, 9.3 KiB)', 96, 'data:image/png;'],
      ['(image/png, 4.0 KiB)', 64, 'data:image/png;'],
      ['dot.gif (image/gif)', 1, 'data:image/gif;'],
      ['alone.png (image/png, 4.4 KiB)', 48, 'data:image/png;'],
    ])
    const first = tab.locator('main img').first()
    await tab.locator('main img').nth(3).click()
    assert.equal(await first.evaluate((img) => img.classList.contains('full')), false)
    assert.equal(await tab.locator('main img').nth(3).evaluate((img) => img.classList.contains('full')), true, 'a click shows an image at full size')
    assert.deepEqual(requests, [pathToFileURL(file).href], 'nothing but the page itself is loaded')
    assert.deepEqual(dialogs, [])
    assert.equal(await tab.locator('main script, main style, main iframe').count(), 0)

    // The terminal blocks, the error, the notices are on screen.
    const terminal = tab.locator('[data-call-id="b2"]')
    assert.equal(await terminal.locator('.status').textContent(), 'exit 2')
    assert.equal(await terminal.locator('pre.term').textContent(), '$ npm run build <&2\nerror TS2304: <Cannot> find name')
    assert.equal(await terminal.locator('pre.term').isVisible(), true)
    assert.equal(await tab.locator('.card.error').isVisible(), true)
    assert.equal(await tab.locator('.card.error .error-title').evaluate((title) => getComputedStyle(title).color), 'rgb(207, 34, 46)')
    assert.deepEqual(await tab.$$eval('.notice .kind', (kinds) => kinds.map((kind) => kind.textContent)), ['compaction', 'thinking-level-changed', 'model-changed', 'branch-summary', 'custom'])
    assert.equal(await tab.locator('details.notice .md').isVisible(), false)
    await tab.getByRole('button', { name: 'Expand all' }).click()
    assert.equal(await tab.locator('details.notice .md h2').first().textContent(), 'Goal')

    mkdirSync(shots, { recursive: true })
    await tab.screenshot({ path: join(shots, 'rich-session.png'), fullPage: true })
    await tab.emulateMedia({ colorScheme: 'dark' })
    await tab.screenshot({ path: join(shots, 'rich-session-dark.png'), fullPage: true })
  } finally {
    await browser.close()
  }
})
