// The scripted scenarios, in no tool's words: each is a prompt carrying a marker and the
// model turns that answer it (see server/script.mjs for how a request finds its turn).
// A turn: `thinking` ({text, signature?, summary?[], raw?}), `text` (a string, or the
// exact deltas as an array), `calls` ({tool: 'shell', cmd} | {tool: 'task', prompt} |
// {tool: 'raw', name, args}), `usage` ({input, output}), `stall` (stop mid-text and hold
// the response open), `rawSplit` (cut multi-byte characters between TCP writes), `chunk`
// (code points per delta).

const think = (text, n = 1) => ({ text, signature: `lab-sig-${n}-${'A'.repeat(16)}`, summary: [text] })

const LONG_LINE = 'The quick brown fox jumps over the lazy dog; 0123456789. '
const longText = (bytes) => {
  const out = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const line = `${String(i).padStart(5, '0')} ${LONG_LINE.repeat(2)}\n`
    out.push(line)
    size += line.length
  }
  return out.join('')
}

/**
 * `expect` says what the model server must have seen for the run to have done what the
 * scenario is for: `steps` (a script name → the step it must reach: the tool result came
 * back), `rules` (a compaction), `stall` (the abort happened while streaming).
 * @type {Record<string, {about: string, prompt: string, scripts: Record<string, any[]>, expect?: {steps?: Record<string, number>, rules?: string[], stall?: boolean}, abort?: boolean, compact?: boolean, subagent?: boolean, summaryMarker?: string}>}
 */
export const SCENARIOS = {
  text: {
    about: 'one plain text answer',
    expect: { steps: { text: 0 } },
    prompt: '[lab:text] Say hello and describe the lab in two short paragraphs.',
    scripts: {
      text: [{ text: 'Hello from the lab.\n\nThis answer is **scripted**: it has two paragraphs and `code`.' }],
    },
  },
  thinking: {
    about: 'thinking with a signature (Anthropic) / reasoning summary and encrypted content (Responses), then text',
    expect: { steps: { thinking: 0 } },
    prompt: '[lab:thinking] Think first, then answer: what is 6 × 7?',
    scripts: {
      thinking: [
        {
          thinking: { ...think('The user asks for 6 × 7. That is 42.'), raw: 'Raw reasoning: 6 * 7 = 42.' },
          text: '6 × 7 = **42**.',
        },
      ],
    },
  },
  tool: {
    about: 'a shell call the agent really runs, then text',
    expect: { steps: { tool: 1 } },
    prompt: '[lab:tool] List the files here with a shell command.',
    scripts: {
      tool: [
        {
          thinking: think('I should run ls.', 2),
          text: 'I will list the files.',
          calls: [{ tool: 'shell', cmd: 'echo lab-tool-output; ls -1' }],
        },
        { text: 'The folder holds `notes.txt`; the command printed lab-tool-output.' },
      ],
    },
  },
  parallel: {
    about: 'two shell calls in one model turn',
    expect: { steps: { parallel: 1 } },
    prompt: '[lab:parallel] Run two commands at once.',
    scripts: {
      parallel: [
        {
          text: 'Running both.',
          calls: [
            { tool: 'shell', cmd: 'echo first-call' },
            { tool: 'shell', cmd: 'echo second-call' },
          ],
        },
        { text: 'Both commands ran: first-call and second-call.' },
      ],
    },
  },
  'failing-tool': {
    about: 'a command that fails, a call of a tool that does not exist, then text',
    expect: { steps: { 'failing-tool': 2 } },
    prompt: '[lab:failing-tool] Read a file that is not there.',
    scripts: {
      'failing-tool': [
        { calls: [{ tool: 'shell', cmd: 'cat /nonexistent/lab-missing-file' }] },
        { calls: [{ tool: 'raw', name: 'lab_no_such_tool', args: { x: 1 } }] },
        { text: 'The file does not exist, and that tool is not available.' },
      ],
    },
  },
  'read-error': {
    about: "a file tool's call that fails (OpenCode's read of a missing file: a tool part in the error state; a tool without `read` gets a call of a tool it does not have), then text",
    expect: { steps: { 'read-error': 1 } },
    prompt: '[lab:read-error] Read a file that is not there with your file tool.',
    scripts: {
      'read-error': [
        { calls: [{ tool: 'raw', name: 'read', args: { filePath: '/nonexistent/lab-missing-file.txt' } }] },
        { text: 'That file does not exist.' },
      ],
    },
  },
  abort: {
    about: 'the client is stopped while the answer streams (SIGINT, then SIGKILL; an ACP client sends session/cancel)',
    expect: { stall: true },
    prompt: '[lab:abort] Write a long story slowly.',
    abort: true,
    scripts: {
      abort: [{ text: 'Once upon a time, in a lab far away, a stream began and ', stall: true, delayMs: 30 }],
    },
  },
  compact: {
    about: 'the context fills up (large usage reported, small limits set) and the tool compacts',
    expect: { rules: ['compaction'] },
    prompt: '[lab:compact] Run a command, then keep going.',
    compact: true,
    summaryMarker: 'after-compaction',
    scripts: {
      compact: [
        {
          text: 'Running a command first.',
          calls: [{ tool: 'shell', cmd: 'echo before-compaction' }],
          usage: { input: 195000, output: 900 },
        },
        { text: 'Still going before the compaction.', calls: [{ tool: 'shell', cmd: 'echo still-going' }], usage: { input: 198000, output: 900 } },
        { text: 'Finished before any compaction.' },
      ],
      'after-compaction': [{ text: 'Resumed after the compaction: the work is done.' }],
    },
  },
  subagent: {
    about: 'a sub-agent (Claude Code Task, Codex spawn_agent, Copilot task) that runs a command of its own',
    expect: { steps: { sub: 1, subagent: 1 } },
    prompt: '[lab:subagent] Ask a sub-agent to find the answer.',
    subagent: true,
    scripts: {
      subagent: [
        { text: 'Delegating.', calls: [{ tool: 'task', prompt: '[lab:sub] Run one command and report.', description: 'lab sub-agent' }] },
        { text: 'The sub-agent reported back: 42.', calls: [{ tool: 'wait' }] },
      ],
      sub: [
        { text: 'Sub-agent running a command.', calls: [{ tool: 'shell', cmd: 'echo from-sub-agent' }] },
        { text: 'Sub-agent result: 42.' },
      ],
    },
  },
  unicode: {
    about: 'emoji, CJK, combining marks, graphemes (ZWJ, a flag, a combining mark) cut between deltas, bytes of characters cut between TCP writes',
    expect: { steps: { unicode: 1 } },
    prompt: '[lab:unicode] Grüße! Antworte mit 漢字 und 😀.',
    scripts: {
      unicode: [
        {
          thinking: think('Denken: ünïcødé 漢字 🧪', 3),
          text: ['Grüße ', 'e', '\u0301', ' — 👩\u200d', '👩\u200d👧 ', '漢', '字 ', '😀', ' Ω≈ç√ 🇫', '🇷 end'],
          calls: [{ tool: 'shell', cmd: "printf 'ünïcødé 漢字 😀\\n'" }],
        },
        { text: 'Übersicht: 漢字 ✓ — 😀 e\u0301 🇫🇷', rawSplit: true },
      ],
    },
  },
  surrogates: {
    about: 'a surrogate pair cut between two deltas, each half a lone \\uD83D / \\uDE00 escape (no API is known to send this: it probes what a tool does with it)',
    expect: { steps: { surrogates: 0 } },
    prompt: '[lab:surrogates] Send an emoji in two halves.',
    scripts: {
      surrogates: [{ text: ['Halves: ', '\ud83d', '\ude00', ' joined.'] }],
    },
  },
  // ACP clients' own (`acp`: how the client answers; the other tools do not run these).
  // A command that writes, so that every agent asks before it runs it.
  permission: {
    about: 'ACP: the agent asks to run a command that writes a file and the client allows it',
    acp: { permission: 'allow' },
    expect: { steps: { permission: 1 } },
    prompt: '[lab:permission] Write a file with a shell command.',
    scripts: {
      permission: [
        { text: 'Asking to run it.', calls: [{ tool: 'shell', cmd: 'echo allowed > lab-made.txt && cat lab-made.txt' }] },
        { text: 'The file was written.' },
      ],
    },
  },
  'permission-reject': {
    about: 'ACP: the agent asks to run a command that writes a file and the client rejects it',
    acp: { permission: 'reject' },
    expect: { steps: { 'permission-reject': 0 } },
    prompt: '[lab:permission-reject] Write a file with a shell command, if you are allowed to.',
    scripts: {
      'permission-reject': [
        { text: 'Asking to run it.', calls: [{ tool: 'shell', cmd: 'echo rejected > lab-made.txt && cat lab-made.txt' }] },
        { text: 'The command was not allowed.' },
      ],
    },
  },
  plan: {
    about: "ACP: the agent's todo tool, which it reports as a plan",
    acp: {},
    expect: { steps: { plan: 1 } },
    prompt: '[lab:plan] Make a plan of two steps.',
    scripts: {
      plan: [
        { text: 'Planning.', calls: [{ tool: 'plan', steps: [['Read the notes', 'completed'], ['Write the answer', 'in_progress']] }] },
        { text: 'The plan has two steps.' },
      ],
    },
  },
  'second-prompt': {
    about: 'ACP: a second prompt in the same session',
    acp: { then: ['[lab:second] And a second answer, please.'] },
    expect: { steps: { first: 0, second: 0 } },
    prompt: '[lab:first] A first answer, please.',
    scripts: { first: [{ text: 'The first answer.' }], second: [{ text: 'The second answer.' }] },
  },
  'client-tools': {
    about: "ACP: the client offers its file system and terminal (fs/*, terminal/*): the agent's command and file read may go there",
    acp: { clientTools: true },
    expect: { steps: { 'client-tools': 1 } },
    prompt: '[lab:client-tools] List the files here with a shell command.',
    scripts: {
      'client-tools': [
        { text: 'I will list the files.', calls: [{ tool: 'shell', cmd: 'echo lab-tool-output; ls -1' }] },
        { text: 'And read the notes.', calls: [{ tool: 'read', file: 'notes.txt' }] },
        { text: 'The folder holds `notes.txt`.' },
      ],
    },
  },
  'model-error': {
    about: 'ACP: the model server refuses the request (HTTP 400) and the prompt fails',
    acp: {},
    expect: { steps: { 'model-error': 0 } },
    prompt: '[lab:model-error] Say something.',
    scripts: { 'model-error': [{ error: { status: 400, message: 'lab: this request is refused' } }] },
  },
  'second-turn': {
    about: 'a second prompt in the same thread after the first turn ends (app-server clients)',
    only: ['codex-app-server'],
    expect: { steps: { 'second-turn': 0, 'second-turn-2': 1 } },
    prompt: '[lab:second-turn] Say one word.',
    followUps: ['[lab:second-turn-2] Now run a command.'],
    scripts: {
      'second-turn': [{ text: 'One.' }],
      'second-turn-2': [{ text: 'Running it.', calls: [{ tool: 'shell', cmd: 'echo second-turn-output' }] }, { text: 'It printed second-turn-output.' }],
    },
  },
  approval: {
    about: 'a command the agent must ask the client to approve (approval policy untrusted), approved',
    only: ['codex-app-server'],
    approval: true,
    expect: { steps: { approval: 1 } },
    prompt: '[lab:approval] Write a file with a command.',
    scripts: {
      approval: [{ text: 'Writing it.', calls: [{ tool: 'shell', cmd: 'echo approved > approved.txt; cat approved.txt' }] }, { text: 'The file says approved.' }],
    },
  },
  streamed: {
    about: 'a command whose output comes over time (output deltas before the command ends)',
    only: ['codex-app-server'],
    expect: { steps: { streamed: 1 } },
    prompt: '[lab:streamed] Print three lines slowly.',
    scripts: {
      streamed: [
        { text: 'Printing.', calls: [{ tool: 'shell', cmd: 'for i in 1 2 3; do echo line-$i; sleep 0.4; done' }] },
        { text: 'Three lines came.' },
      ],
    },
  },
  'http-500': {
    about: 'the model server answers HTTP 500: the turn fails',
    only: ['codex-app-server'],
    expect: { steps: { 'http-500': 0 } },
    prompt: '[lab:http-500] This request fails.',
    scripts: {
      'http-500': [{ httpStatus: 500 }],
    },
  },
  long: {
    about: 'a 200 KB answer in 1 KB deltas and a command printing about 1 MB',
    expect: { steps: { long: 1 } },
    prompt: '[lab:long] Print a lot.',
    scripts: {
      long: [
        { text: 'Printing many lines.', calls: [{ tool: 'shell', cmd: 'seq 1 150000' }] },
        { text: longText(200_000), chunk: 1024 },
      ],
    },
  },
}
