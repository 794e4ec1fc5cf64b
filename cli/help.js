'use strict'
// What agent-chunks --help and COMMAND --help print.

const { FORMATS, folderNames, formatNames, historyFormats, streamFormats } = require('./formats')
const { targetNames } = require('./convert')

const formatList = Object.entries(FORMATS)
  .map(([name, what]) => `  ${name.padEnd(11)} ${what}`)
  .join('\n')
/** `a, b or c`. */
const either = (names) => `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`
// Every target but `unified` is a format of the table that has a writer.
const targetList = targetNames
  .map((name) => `  ${name.padEnd(9)} ${name === 'unified' ? 'the webui rows (toUnifiedMessages), JSON' : FORMATS[name]}`)
  .join('\n')

// The tools' own session folders, as scan looks for them, a line each:
// `~/.codex/sessions ($CODEX_HOME/sessions)`.
const HELP = {
  main: `Usage: agent-chunks COMMAND [options]

Reads AI-agent chat streams and histories into the chunk model, to show them and to
find out why a live stream and its reloaded history differ.

Commands:
  replay FILE             print the conversation in FILE
  convert FILE --to T     write it as ${either(targetNames)}
  check STREAM HISTORY    exit 0 when the folded stream equals the history, else
                          print the first difference and exit 1
  view FILE -o PAGE       write it as a self-contained HTML page
  scan [PATH…]            what every conversation file under PATH reads as: format,
                          messages, tool calls, skipped lines, failures; exit 1 if any fails;
                          no PATH: the folders where the tools keep their sessions

Run agent-chunks COMMAND --help for a command's options.

Formats (detected from the content; --format overrides):
${formatList}

Options:
  -h, --help   this help
  --version    the version
  --debug      show stack traces of errors

Inputs of 4 MiB or more show a progress bar on standard error when it is a terminal.
Exit status: 0 done, 1 check found a difference or scan a file it could not read, 2 bad
input or usage.
`,
  replay: `Usage: agent-chunks replay FILE [options]

Prints the conversation in FILE: who speaks, thinking (dimmed), tool calls with their
status, arguments and results, errors and notices. A stream is folded as a chat UI folds
it live, one message per stored message. Colour only on a terminal, and not with NO_COLOR.
FILE - reads standard input.

Options:
  --format F     the format of FILE (${formatNames.join(', ')})
  --json         print the ChatMessage[] as JSON
  --unified      print the webui rows (toUnifiedMessages) as JSON
  --timeline     print the timeline groups of each assistant message (buildTimeline)
  --now MS       the clock for --unified rows (milliseconds since the epoch)
  --full         show long arguments and results whole (default: 12 lines each)
  --strict       refuse lines the format does not know or cannot read (default: skip
                 them, counted on standard error)
  --leaf ID      a Pi session: the leaf (entry id) whose branch to read (default: the last entry)
  --session ID   a store of many sessions (a database, a folder): the session to read (default: the latest)
  --view V       which entries of a session: resumed (default: as the tool shows it when
                 the session is opened again: the current branch from its last
                 compaction on), transcript (the current branch whole), all (every entry
                 in file order); what is left out is counted on standard error
  --all          --view all
  --color        colour even when not on a terminal
  --no-color     no colour
  --debug        show stack traces of errors
`,
  convert: `Usage: agent-chunks convert FILE --to TARGET [-o OUT] [options]

Writes the conversation in FILE in another format, to standard output or OUT:
${targetList}
What the target cannot hold (user messages in events, thinking in sn …) is reported on
standard error.

Options:
  --to TARGET    ${targetNames.join(', ')}
  -o, --output OUT  the file to write (default: standard output)
  --format F     the format of FILE (${formatNames.join(', ')})
  --now MS       the clock for unified rows (milliseconds since the epoch)
  --strict       refuse lines the format does not know or cannot read (default: skip
                 them, counted on standard error)
  --leaf ID      a Pi session: the leaf (entry id) whose branch to read (default: the last entry)
  --session ID   a store of many sessions (a database, a folder): the session to read (default: the latest)
  --view V       which entries of a session: resumed (default: as the tool shows it when
                 the session is opened again: the current branch from its last
                 compaction on), transcript (the current branch whole), all (every entry
                 in file order); what is left out is counted on standard error
  --all          --view all
  --debug        show stack traces of errors
`,
  check: `Usage: agent-chunks check STREAM HISTORY [options]

Folds STREAM as a chat UI folds it live (each turn one assistant message) and loads
HISTORY, then compares the turns with the history's assistant messages, in order, chunk
by chunk (key order included). Exits 0 when they agree; otherwise prints the first
difference as a path into the history's messages, with both values and the stream lines
that built it, and exits 1.

STREAM: any stream format (${streamFormats.join(', ')}); HISTORY: any history format
(${historyFormats.join(', ')}). Without a format option each is detected.

Options:
  --stream-format F    the format of STREAM
  --history-format F   the format of HISTORY
  --strict             refuse lines the formats do not know
  --debug              show stack traces of errors
`,
  view: `Usage: agent-chunks view FILE -o PAGE [options]

Writes the conversation in FILE as one self-contained HTML page (inline CSS and script,
nothing loaded from anywhere): user messages, the assistant timeline with its connectors,
markdown rendered (HTML in messages shown as text), collapsible thinking, tool-call cards
with status, arguments, results and diffs, the user's shell commands as terminal blocks,
errors, notices and the images the session holds. Without -o the page goes to standard
output.

Options:
  -o, --output PAGE  the page to write
  --format F     the format of FILE (${formatNames.join(', ')})
  --title T      the page title (default: the file name)
  --strict       refuse lines the format does not know or cannot read (default: skip
                 them, counted on standard error)
  --leaf ID      a Pi session: the leaf (entry id) whose branch to read (default: the last entry)
  --session ID   a store of many sessions (a database, a folder): the session to read (default: the latest)
  --view V       which entries of a session: resumed (default: as the tool shows it when
                 the session is opened again: the current branch from its last
                 compaction on), transcript (the current branch whole), all (every entry
                 in file order); what is left out is counted on standard error
  --all          --view all
  --debug        show stack traces of errors
`,
  scan: `Usage: agent-chunks scan [PATH…] [options]

Reads every conversation file under each PATH as replay reads it and prints, per file,
its format, messages, tool calls (and how many have a result) and every counter the
reader reports (skipped lines, by kind where the reader gives kinds); a file that
cannot be read is a line \`FILE:LINE: failed: why\`. A summary follows. A directory is
walked (symbolic links followed, each directory once) for .jsonl, .ndjson and .sse files,
and .json files whose format is told from their content; a file named on the command
line is read whatever its name. Files are read on several threads when there are many.
With no PATH, the folders where the tools it reads keep their sessions are scanned, those
that exist:
${folderNames.map((name) => `  ${name}`).join('\n')}
On a terminal a progress bar is drawn on standard error.

Options:
  --format F     read every file as F (${formatNames.join(', ')});
                 default: each file's format is detected
  --json         print { files, summary } as JSON: each file's counts, the reader's
                 report whole, or its error { line, reason }
  -q, --quiet    print only the files that fail, and the summary
  --strict       refuse lines the format does not know (they then fail the file)
  -j, --jobs N   read on N threads (default: one per processor, up to 8, from 64 MiB of
                 files on; below that on one)
  --debug        show stack traces of errors

Exit status: 0 every file was read, 1 some file failed, 2 bad usage.
`,
}

module.exports = { HELP }
