#!/usr/bin/env node
'use strict'
const { main } = require('../cli/main')

// A closed pipe (`agent-chunks replay … | head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})
// `scan` reads on threads and returns a promise of its status; the others return it.
const status = main(process.argv.slice(2))
if (typeof status?.then === 'function') status.then((code) => (process.exitCode = code))
else process.exitCode = status
