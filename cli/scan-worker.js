'use strict'
// A thread of `agent-chunks scan`: scans the files it is sent, one at a time, and sends
// each result back.

const { parentPort, workerData } = require('node:worker_threads')

const { scanFile } = require('./scan')

parentPort.on('message', ({ index, file }) => {
  parentPort.postMessage({ index, result: scanFile(file, workerData) })
})
