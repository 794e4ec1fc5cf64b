#!/usr/bin/env node
'use strict'
const { main } = require('../cli/main')

// A closed pipe (`agent-chunks replay … | head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})
process.exitCode = main(process.argv.slice(2))
