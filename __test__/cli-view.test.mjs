// agent-chunks view: the page it writes, as text (self-contained, escaped) and as
// Chromium renders it (messages, the timeline connectors, tool cards, collapsible
// thinking), with a screenshot under target/cli-view/.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

import { toUnifiedMessages } from '../index.js'
import { example, ndjson, root, run, scratch } from './cli-helpers.mjs'

const tmp = scratch()
const CHROMIUM = '/usr/bin/chromium'
const shots = join(root, 'target', 'cli-view')

const hostile = ndjson([
  { type: 'text-delta', delta: 'Look: <script>alert(1)</script> & <img src=x onerror=alert(2)> "quoted" \'single\'' },
  { type: 'tool-call', toolCall: { id: 'x"><script>alert(3)</script>', name: '<b>bold</b>', arguments: { html: '</pre><iframe src="https://example.com">' } } },
  { type: 'tool-result', toolResult: { toolCallId: 'x"><script>alert(3)</script>', result: '<style>body{display:none}</style>', isError: false } },
  { type: 'notice', message: '<a href="javascript:alert(4)">click</a>' },
])

async function page(source, name) {
  const out = tmp.path(`${name}.html`)
  const { code, stdout, stderr } = await run(['view', source, '-o', out])
  assert.equal(code, 0, stderr)
  assert.equal(stdout, '')
  return out
}

test('the page is self-contained: inline style and script, nothing fetched, a CSP that forbids it', async () => {
  const html = readFileSync(await page(example('acp-session.ndjson'), 'acp'), 'utf8')
  assert.match(html, /^<!doctype html>/)
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">/)
  assert.doesNotMatch(html, /\b(src|href)\s*=/i)
  assert.doesNotMatch(html, /https?:|@import|url\(/)
  assert.equal(html.match(/<script>/g).length, 1)
})

test('all text from the file is escaped', async () => {
  const html = readFileSync(await page(tmp.file('hostile.ndjson', hostile), 'hostile'), 'utf8')
  // Message text is markdown; the HTML in it is text.
  assert.ok(html.includes('Look: &lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(2)&gt; &quot;quoted&quot; \'single\''))
  assert.ok(html.includes('data-call-id="x&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;"'))
  assert.ok(html.includes('&lt;/pre&gt;&lt;iframe'))
  assert.ok(html.includes('&lt;style&gt;body{display:none}&lt;/style&gt;'))
  assert.doesNotMatch(html, /<(img|iframe|a|b)\b/)
  assert.equal(html.match(/<script>/g).length, 1)
  assert.equal(html.match(/<style>/g).length, 1)
})

test('a stream’s markdown, error and notice, as the page shows them', async () => {
  const stream = ndjson([
    { type: 'text-delta', delta: '## Plan\n\n- **one**\n- [two](javascript:alert(1))\n\n```sh\nls\npwd\n```\n' },
    { type: 'error', error: 'fetch failed', statusCode: 502 },
    { type: 'model-changed', modelId: 'm2', keyId: 'k' },
  ])
  const html = readFileSync(await page(tmp.file('plan.ndjson', stream), 'plan'), 'utf8')
  assert.ok(html.includes('<div class="text md"><h2>Plan</h2>\n<ul>\n<li><strong>one</strong></li>\n<li>[two](javascript:alert(1))</li>\n</ul>\n<pre class="code" data-lang="sh"><code>ls\npwd</code></pre>'))
  assert.ok(html.includes('<div class="card error"><div class="error-title">Error 502</div><div class="error-message">fetch failed</div></div>'))
  assert.ok(html.includes('<div class="notice" data-kind="model-changed"><span class="kind">model-changed</span> Switched to m2 (k)</div>'))
})

test('without -o the page goes to standard output; --title names it', async () => {
  const { code, stdout } = await run(['view', example('sn-history.json'), '--title', 'Weather <chat>'])
  assert.equal(code, 0)
  assert.ok(stdout.includes('<title>Weather &lt;chat&gt;</title>'))
  assert.ok(stdout.includes('<p class="facts">sn · 4 messages · 3 tool calls (1 failed)</p>'))
})

test('view of a bad file is an error like any other', async () => {
  const { code, stderr } = await run(['view', tmp.file('bad.ndjson', '{"type":"text-delta","delta":1}\n'), '-o', tmp.path('never.html')])
  assert.equal(code, 2)
  assert.match(stderr, /bad\.ndjson:1: text-delta event: "delta" must be a string, got number\n$/)
  assert.equal(existsSync(tmp.path('never.html')), false)
})

const browserMissing = !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM} (apt-get install chromium)`

test('in Chromium: messages, connectors as the webui draws them, tool cards, thinking', { skip: browserMissing }, async () => {
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  try {
    const source = example('chatviewer-session.jsonl')
    const file = await page(source, 'chatviewer')
    const messages = JSON.parse((await run(['replay', source, '--json'])).stdout)
    const rows = toUnifiedMessages(messages, { now: 0 })

    const tab = await browser.newPage({ viewport: { width: 960, height: 900 } })
    const requests = []
    tab.on('request', (request) => requests.push(request.url()))
    await tab.goto(pathToFileURL(file).href)

    // One element per webui row, in order, placed on the timeline as the library says.
    const shown = await tab.$$eval('main .row', (elements) =>
      elements.map((row) => ({
        user: row.classList.contains('row-user'),
        first: row.hasAttribute('data-first'),
        last: row.hasAttribute('data-last'),
        text: row.querySelector('.bubble')?.textContent,
      })),
    )
    assert.equal(shown.length, rows.length)
    rows.forEach((row, i) => {
      assert.equal(shown[i].user, row.type === 'user', `row ${i}`)
      if (row.type === 'user') assert.equal(shown[i].text, row.content)
      else assert.deepEqual([shown[i].first, shown[i].last], [row.isFirst, row.isLast], `row ${i}`)
    })
    assert.deepEqual(shown.filter((row) => row.user).map((row) => row.text), messages.filter((m) => m.role === 'user').map((m) => m.chunks[0].text))

    // The connector: one unbroken line through consecutive rows, from the first bullet to
    // the last, broken at user messages; none for a row alone.
    const geometry = await tab.$$eval('main .row:not(.row-user)', (elements) =>
      elements.map((row) => {
        const line = row.querySelector('.line')
        const dot = row.querySelector('.dot').getBoundingClientRect()
        const visible = getComputedStyle(line).display !== 'none'
        const box = line.getBoundingClientRect()
        return { visible, top: box.top, bottom: box.bottom, dot: (dot.top + dot.bottom) / 2, first: row.hasAttribute('data-first'), last: row.hasAttribute('data-last') }
      }),
    )
    const near = (a, b, what) => assert.ok(Math.abs(a - b) < 1, `${what}: ${a} vs ${b}`)
    geometry.forEach((row, i) => {
      if (row.first && row.last) return assert.equal(row.visible, false, `row ${i} stands alone`)
      assert.equal(row.visible, true, `row ${i} has a line`)
      if (row.first) near(row.top, row.dot, `row ${i}: the line starts at the bullet`)
      if (row.last) near(row.bottom, row.dot, `row ${i}: the line ends at the bullet`)
      if (!row.last) near(row.bottom, geometry[i + 1].top, `row ${i}: the line runs on into the next row`)
    })
    assert.ok(geometry.some((row) => row.first && row.last), 'the example has a row alone')
    assert.ok(geometry.filter((row) => !row.first && !row.last).length > 3)

    // Tool cards: status, arguments, result, diff.
    const failed = tab.locator('[data-call-id="call_test_10"]')
    assert.equal(await failed.getAttribute('data-status'), 'failed')
    assert.equal(await failed.locator('.status').textContent(), 'failed')
    assert.match(await failed.locator('pre.result').textContent(), /Cannot find module '\.\/money'/)
    assert.equal(await tab.locator('[data-call-id="call_grep_7"] .status').textContent(), 'completed')
    const edit = tab.locator('[data-call-id="call_edit_11"] .diff')
    assert.equal(await edit.locator('.diff-path').textContent(), '/work/billing/jest.config.js')
    assert.equal(await edit.locator('.del').textContent(), "-   moduleFileExtensions: ['js', 'json'],")
    assert.equal(await edit.locator('.ins').textContent(), "+   moduleFileExtensions: ['js', 'json', 'ts'],")

    // Thinking and arguments are collapsed until opened.
    const thinking = tab.locator('details.thinking').first()
    assert.equal(await thinking.locator('.text').isVisible(), false)
    await thinking.locator('summary').click()
    assert.equal(await thinking.locator('.text').isVisible(), true)
    assert.match(await thinking.locator('.text').textContent(), /^NaN usually means/)
    assert.equal(await failed.locator('details.args pre').isVisible(), false)
    await tab.getByRole('button', { name: 'Expand all' }).click()
    assert.equal(await failed.locator('details.args pre').isVisible(), true)
    assert.equal(await tab.locator('main details:not([open])').count(), 0)

    mkdirSync(shots, { recursive: true })
    await tab.screenshot({ path: join(shots, 'chatviewer-session.png'), fullPage: true })
    assert.deepEqual(requests, [pathToFileURL(file).href], 'nothing but the page itself is loaded')

    // Hostile text stays text: no dialog, no element it spelled out.
    const dialogs = []
    tab.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      return dialog.dismiss()
    })
    await tab.goto(pathToFileURL(await page(tmp.file('hostile.ndjson', hostile), 'hostile-browser')).href)
    assert.deepEqual(dialogs, [])
    assert.equal(await tab.locator('img, iframe, a, b, main script, main style').count(), 0)
    assert.ok((await tab.locator('.row-assistant .text').textContent()).includes('<img src=x onerror=alert(2)>'))
    assert.equal(await tab.locator('.tool-name').textContent(), '<b>bold</b>')
    await tab.screenshot({ path: join(shots, 'hostile.png'), fullPage: true })
  } finally {
    await browser.close()
  }
})
