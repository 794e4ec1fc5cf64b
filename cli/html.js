'use strict'
// Text from a session file as HTML text: escaped, with what would be invisible or lost
// (control characters, lone surrogates) shown as escapes.

const { visible } = require('./text')

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text for an HTML text node or a quoted attribute. */
const escape = (text) => visible(text).replace(/[&<>"']/g, (ch) => ESCAPES[ch])

module.exports = { escape }
