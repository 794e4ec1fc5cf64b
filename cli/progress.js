'use strict'
// A progress bar on a terminal, for inputs big enough to make one wait. It redraws one
// line in place, only when the shown percentage changes, and clears it at the end.

const THRESHOLD = 4 * 1024 * 1024

const NONE = { stage() {}, update() {}, end() {} }

/**
 * A bar on `stream` when it is a terminal and the input is at least `threshold` bytes;
 * otherwise one that draws nothing.
 */
function createProgress({ size, stream = process.stderr, threshold = THRESHOLD }) {
  if (!stream.isTTY || size < threshold) return NONE
  let label = ''
  let total
  let shown = -1
  let drawn = false
  const draw = (text) => {
    stream.write(`\r\x1b[2K${text}`)
    drawn = true
  }
  return {
    /** Starts a stage of the work, `units` long; without units, one that cannot be measured. */
    stage(name, units) {
      label = name.padEnd(8)
      total = units
      shown = -1
      if (units === undefined) draw(`${label} …`)
      else this.update(0)
    },
    update(done) {
      if (total === undefined) return
      const percent = Math.min(100, Math.floor((done / (total || 1)) * 100))
      if (percent === shown) return
      shown = percent
      const width = Math.max(10, Math.min(40, (stream.columns || 80) - label.length - 8))
      const full = Math.round((percent / 100) * width)
      draw(`${label} ${'█'.repeat(full)}${'░'.repeat(width - full)} ${String(percent).padStart(3)}%`)
    },
    /** Clears the bar; the next update draws it again (after other output, say). */
    end() {
      if (drawn) stream.write('\r\x1b[2K')
      drawn = false
      shown = -1
    },
  }
}

module.exports = { createProgress, THRESHOLD }
