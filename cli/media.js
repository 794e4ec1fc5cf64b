'use strict'
// Files a session holds (`file` chunks, image blocks in tool results) as the page shows
// them: an image stored inline as an `<img>` with a `data:` URL, but only a PNG, JPEG,
// GIF or WebP whose base64 is well formed and whose bytes start as that format's do (no
// SVG, which can carry script, and nothing a browser would have to guess at); a remote
// file as a link that the page never follows by itself; anything else as a line saying
// what it is.

const { escape } = require('./html')

/** The image types shown, each with a test of its first bytes. */
const IMAGE_SIGNATURES = {
  'image/png': (bytes) => startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': (bytes) => startsWith(bytes, [0xff, 0xd8, 0xff]),
  'image/gif': (bytes) => ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a',
  'image/webp': (bytes) => ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP',
}

const startsWith = (bytes, prefix) => prefix.every((byte, i) => bytes[i] === byte)
const ascii = (bytes, from, to) => String.fromCharCode(...bytes.subarray(from, to))

/**
 * Well-formed base64: the standard alphabet in groups of four, `=` only as the last one
 * or two. (Checked without a repeating pattern, which would exhaust the regular
 * expression engine's stack on a big image.)
 */
function isBase64(data) {
  if (data.length === 0 || data.length % 4 !== 0 || /[^A-Za-z0-9+/=]/.test(data)) return false
  const padding = data.indexOf('=')
  return padding === -1 || (padding >= data.length - 2 && (padding === data.length - 1 || data[data.length - 1] === '='))
}

/**
 * A `data:` URL for an image stored inline, or undefined when it is not one this page
 * shows: `mediaType` must be one of the four raster types exactly and `data` well-formed
 * base64 (no whitespace, no URL-safe alphabet) of bytes in that format.
 */
function imageDataUrl(mediaType, data) {
  if (typeof mediaType !== 'string' || typeof data !== 'string') return undefined
  const type = mediaType.toLowerCase()
  if (!Object.hasOwn(IMAGE_SIGNATURES, type) || !isBase64(data)) return undefined
  const head = Buffer.from(data.slice(0, 24), 'base64')
  return IMAGE_SIGNATURES[type](head) ? `data:${type};base64,${data}` : undefined
}

const DATA_URL = /^data:([^;,]*);base64,(.*)$/s

/** An image stored as a `data:` URL, as the `data:` URL shown (rebuilt from checked parts). */
function imageFromDataUrl(url) {
  const match = DATA_URL.exec(url)
  return match ? imageDataUrl(match[1], match[2]) : undefined
}

const REMOTE = /^https?:\/\//i

/** How many bytes a base64 text stands for (about; for a line that says what a file is). */
const decodedSize = (data) => Math.floor((data.replace(/=+$/, '').length * 3) / 4)

function size(bytes) {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}

/** What a file is, in words: its name, type and size as far as the chunk says. */
function describe({ mediaType, filename, data }) {
  const facts = [typeof mediaType === 'string' ? mediaType : 'unknown type']
  if (typeof data === 'string') facts.push(size(decodedSize(data)))
  return `${typeof filename === 'string' ? `${filename} ` : ''}(${facts.join(', ')})`
}

/**
 * A file chunk `{ mediaType, data?, url?, filename? }` (or an image block of a tool
 * result in the same terms) as HTML.
 */
function fileHtml(file) {
  const label = escape(describe(file))
  const inline = imageDataUrl(file.mediaType, file.data) ?? (typeof file.url === 'string' ? imageFromDataUrl(file.url) : undefined)
  if (inline) {
    return `<figure class="file image"><img src="${escape(inline)}" alt="${label}"><figcaption>${label}</figcaption></figure>`
  }
  if (typeof file.url === 'string' && REMOTE.test(file.url)) {
    return `<div class="file"><span class="file-kind">file</span> ${label} <a href="${escape(file.url)}" rel="noopener noreferrer" target="_blank">${escape(file.url)}</a></div>`
  }
  const dataUrl = typeof file.url === 'string' && file.url.startsWith('data:')
  const notes = []
  // A reference the page does not follow (a local path, another scheme) is shown as text.
  if (typeof file.url === 'string' && !dataUrl) notes.push(`<code>${escape(file.url)}</code>`)
  const image = /^image\//i.test(String(file.mediaType)) || (dataUrl && file.url.startsWith('data:image/'))
  if (image && (typeof file.data === 'string' || dataUrl)) {
    notes.push('<span class="file-note">not shown: not a PNG, JPEG, GIF or WebP image in valid base64</span>')
  }
  return `<div class="file"><span class="file-kind">file</span> ${label}${notes.map((note) => ` ${note}`).join('')}</div>`
}

module.exports = { fileHtml, imageDataUrl }
