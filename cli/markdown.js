'use strict'
// Message text as HTML, by markdown-it (CommonMark with tables and strikethrough), made
// safe for a page that must run nothing and load nothing: raw HTML in a message is shown
// as text, links go only to http(s) and mailto addresses, an image is a link to it (a
// page that fetched it would tell its server the conversation was opened), and a fenced
// block is one `pre` with its language as a label.

const MarkdownIt = require('markdown-it')

const { visible } = require('./text')

const md = new MarkdownIt('default', { html: false, linkify: true, typographer: false, breaks: true })

// Only addresses written out with their scheme become links: `parser.ts` or `notes.md`
// in a message about code is a file name, not a web site.
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false })

const SAFE_LINK = /^(?:https?:\/\/|mailto:)/i

// Anything else (`javascript:`, `data:`, `file:`, relative paths that would resolve
// against the page's own location) stays the text it was written as.
md.validateLink = (url) => SAFE_LINK.test(url.trim())

md.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index].attrSet('rel', 'noopener noreferrer')
  tokens[index].attrSet('target', '_blank')
  return self.renderToken(tokens, index, options)
}

md.renderer.rules.image = (tokens, index, options, env, self) => {
  const token = tokens[index]
  const alt = self.renderInlineAsText(token.children, options, env)
  const href = md.utils.escapeHtml(token.attrGet('src'))
  const label = md.utils.escapeHtml(alt ? `image: ${alt}` : 'image')
  return `<a class="image-link" href="${href}" rel="noopener noreferrer" target="_blank">${label}</a>`
}

function codeBlock(content, info) {
  const language = info.trim().split(/\s+/)[0]
  const label = language ? ` data-lang="${md.utils.escapeHtml(language)}"` : ''
  return `<pre class="code"${label}><code>${md.utils.escapeHtml(content.replace(/\n$/, ''))}</code></pre>\n`
}

md.renderer.rules.fence = (tokens, index) => codeBlock(tokens[index].content, tokens[index].info)
md.renderer.rules.code_block = (tokens, index) => codeBlock(tokens[index].content, '')

/** Markdown as HTML (control characters and lone surrogates shown as escapes first). */
const markdown = (text) => md.render(visible(text))

/** One line of markdown as inline HTML (no paragraph, no blocks). */
const markdownInline = (text) => md.renderInline(visible(text))

module.exports = { markdown, markdownInline }
