'use strict'
// The errors the command reports in one line and exits 2 for: bad input (with the file
// and, where one is at fault, the line) and bad usage.

class InputError extends Error {
  /**
   * @param {string} message what is wrong, without the position
   * @param {{ file?: string, line?: number, cause?: unknown }} [where]
   */
  constructor(message, where = {}) {
    super(message, where.cause === undefined ? undefined : { cause: where.cause })
    this.name = 'InputError'
    this.file = where.file
    this.line = where.line
  }

  /** `file:line: message`, or as much of the position as is known. */
  describe() {
    const position = [this.file, this.line].filter((part) => part !== undefined).join(':')
    return position ? `${position}: ${this.message}` : this.message
  }

  /** The same error, placed in `file` (and at `line` when it has none yet). */
  at(file, line) {
    const placed = new InputError(this.message, { file: this.file ?? file, line: this.line ?? line, cause: this.cause })
    placed.stack = this.stack
    return placed
  }
}

class UsageError extends Error {
  /**
   * @param {string} message
   * @param {string} [command] the subcommand whose --help to point at
   */
  constructor(message, command) {
    super(message)
    this.name = 'UsageError'
    this.command = command
  }
}

module.exports = { InputError, UsageError }
