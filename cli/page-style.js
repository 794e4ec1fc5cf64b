'use strict'
// The page's style: the webui's timeline (the dot's centre is 19px below a row's top; the
// connector runs through it), cards, and markdown sized for a chat column; light and dark.

const STYLE = `
:root {
  --bg: #f7f7f8; --fg: #1f2328; --muted: #6a737d; --line: #d0d7de; --card: #fff;
  --user: #e8f0fe; --user-border: #c6d8fb; --green: #1a7f37; --red: #cf222e; --amber: #9a6700;
  --purple: #8250df; --link: #0969da;
  --term-bg: #1f2328; --term-fg: #f0f3f6; --term-muted: #d0d7de; --green-on-dark: #56d364; --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --card: #161b22;
    --user: #1c2a44; --user-border: #2d4a7a; --green: #3fb950; --red: #f85149; --amber: #d29922; --purple: #a371f7; --link: #4493f8;
    --term-bg: #010409; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
header { max-width: 860px; margin: 0 auto; padding: 28px 24px 8px; }
h1 { font-size: 18px; margin: 0; word-break: break-all; }
.facts { color: var(--muted); margin: 4px 0 0; font-size: 13px; }
.tools { margin: 10px 0 0; }
button { font: inherit; font-size: 12px; color: var(--muted); background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 2px 10px; margin-right: 6px; cursor: pointer; }
.timeline { max-width: 860px; margin: 0 auto; padding: 8px 24px 48px; }
.row { position: relative; padding: 6px 0 6px 30px; }
.row-user { padding: 18px 0 14px; display: flex; justify-content: flex-end; }
.bubble { max-width: 80%; min-width: 0; background: var(--user); border: 1px solid var(--user-border); border-radius: 14px 14px 4px 14px; padding: 8px 14px; white-space: pre-wrap; overflow-wrap: anywhere; }
.line { position: absolute; left: 9px; width: 2px; top: 0; bottom: 0; background: var(--line); }
.row[data-first] .line { top: 19px; }
.row[data-last] .line { bottom: auto; height: 19px; }
.row[data-first][data-last] .line { display: none; }
.dot { position: absolute; left: 5px; top: 14px; width: 10px; height: 10px; border-radius: 50%; background: var(--muted); box-shadow: 0 0 0 3px var(--bg); }
.row-thinking .dot { background: var(--purple); }
.row-tool-call .dot { background: var(--amber); }
.row-tool-call[data-status="completed"] .dot { background: var(--green); }
.row-tool-call[data-status="failed"] .dot, .row-error .dot { background: var(--red); }
.row-system .dot { background: var(--bg); border: 2px solid var(--amber); }
code { font-family: var(--mono); font-size: 0.88em; background: rgba(127,127,127,.14); border-radius: 4px; padding: 1px 4px; }
pre { font-family: var(--mono); font-size: 12.5px; line-height: 1.45; margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
details.thinking summary { color: var(--purple); cursor: pointer; font-size: 13px; list-style-position: inside; }
details.thinking .text { color: var(--muted); font-style: italic; border-left: 2px solid var(--line); padding: 2px 0 2px 10px; margin: 4px 0 2px; }
.tag { font-size: 11px; font-style: normal; color: var(--muted); border: 1px solid var(--line); border-radius: 10px; padding: 0 6px; margin-left: 4px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
.card-head { display: flex; gap: 8px; align-items: baseline; }
.tool-name { font-weight: 600; font-family: var(--mono); font-size: 13px; }
.subject { color: var(--muted); font-family: var(--mono); font-size: 12.5px; flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.status { font-size: 12px; font-weight: 600; border-radius: 10px; padding: 0 8px; color: var(--amber); background: rgba(154,103,0,.12); }
.tool[data-status="completed"] .status { color: var(--green); background: rgba(26,127,55,.12); }
.tool[data-status="failed"] { border-color: rgba(207,34,46,.45); }
.tool[data-status="failed"] .status { color: var(--red); background: rgba(207,34,46,.12); }
details.args summary { color: var(--muted); font-size: 12px; cursor: pointer; margin-top: 4px; }
details.args pre { color: var(--muted); padding: 4px 0; }
.label { color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .04em; margin-top: 6px; }
pre.output { max-height: 320px; overflow: auto; padding: 6px 8px; border-radius: 6px; background: rgba(127,127,127,.08); margin-top: 2px; }
.tool[data-status="failed"] pre.result, pre.stderr { color: var(--red); }
.diff { margin-top: 6px; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.diff-path { font-family: var(--mono); font-size: 12px; padding: 3px 8px; background: rgba(127,127,127,.1); border-bottom: 1px solid var(--line); }
.diff pre { padding: 4px 0; white-space: pre; overflow-x: auto; }
.diff span { display: block; padding: 0 8px; }
.diff .del { background: rgba(207,34,46,.12); color: var(--red); }
.diff .ins { background: rgba(26,127,55,.12); color: var(--green); }
.diff .hunk { color: var(--purple); }
.diff .file { font-weight: 600; }
/* Markdown, sized for a chat column. */
.md { overflow-wrap: anywhere; }
.md > :first-child { margin-top: 0; }
.md > :last-child { margin-bottom: 0; }
.md p, .md ul, .md ol, .md blockquote, .md table, .md pre.code { margin: 0 0 10px; }
.md h1, .md h2, .md h3, .md h4, .md h5, .md h6 { margin: 16px 0 6px; line-height: 1.3; font-weight: 600; }
.md h1 { font-size: 1.3em; } .md h2 { font-size: 1.18em; } .md h3 { font-size: 1.06em; } .md h4, .md h5, .md h6 { font-size: 1em; }
.md h1, .md h2 { padding-bottom: 3px; border-bottom: 1px solid var(--line); }
.md ul, .md ol { padding-left: 24px; }
.md li > p { margin: 0 0 4px; }
.md li + li { margin-top: 2px; }
.md blockquote { color: var(--muted); border-left: 3px solid var(--line); padding: 0 0 0 12px; }
.md hr { border: 0; border-top: 1px solid var(--line); margin: 14px 0; }
.md table { border-collapse: collapse; display: block; max-width: 100%; overflow-x: auto; font-size: 14px; }
.md th, .md td { border: 1px solid var(--line); padding: 4px 10px; }
.md th { background: rgba(127,127,127,.08); font-weight: 600; }
a { color: var(--link); }
pre.code { position: relative; background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; white-space: pre; overflow-x: auto; }
pre.code code { background: none; padding: 0; border-radius: 0; font-size: inherit; }
pre.code[data-lang]::before { content: attr(data-lang); float: right; margin: -4px -4px 0 8px; color: var(--muted); font-family: system-ui, sans-serif; font-size: 11px; }
.bubble-text { white-space: pre-wrap; }
details.thinking .md { font-style: italic; }
details.thinking .md pre, details.thinking .md code { font-style: normal; }
/* The user's own shell commands and shell results. */
.terminal pre.term { margin-top: 6px; padding: 8px 10px; border-radius: 6px; background: var(--term-bg); color: var(--term-fg); max-height: 360px; overflow: auto; }
.term .prompt { color: var(--green-on-dark); user-select: none; }
.term .command { font-weight: 600; }
.term .term-output { color: var(--term-muted); }
.marks { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; }
.mark { font-size: 11.5px; border-radius: 10px; padding: 0 8px; color: var(--muted); background: rgba(127,127,127,.12); }
.mark[data-mark="exit"] { color: var(--green); background: rgba(26,127,55,.12); }
.mark[data-mark="exit failed"], .mark[data-mark="cancelled"] { color: var(--red); background: rgba(207,34,46,.12); }
.mark[data-mark="truncated"] { color: var(--amber); background: rgba(154,103,0,.12); }
pre.result-more { color: var(--muted); }
/* Files: an image stored in the session, or what a file is. */
.file { font-size: 13px; color: var(--muted); margin: 6px 0 2px; overflow-wrap: anywhere; }
.file-kind { font-size: 11px; border: 1px solid var(--line); border-radius: 10px; padding: 0 6px; margin-right: 2px; }
.file-note { color: var(--amber); }
figure.file { margin: 8px 0 2px; }
figure.file img { display: block; max-width: 100%; max-height: 420px; border: 1px solid var(--line); border-radius: 6px; background: var(--card); }
figure.file img { cursor: zoom-in; }
figure.file img.full { max-height: none; cursor: zoom-out; }
figure.file figcaption { font-size: 12px; margin-top: 2px; }
.bubble figure.file img { max-height: 320px; }
/* Errors and notices. */
.card.error { border-color: rgba(207,34,46,.45); border-left: 4px solid var(--red); background: rgba(207,34,46,.06); }
.error-title { font-weight: 600; color: var(--red); font-size: 13px; }
.error-message { white-space: pre-wrap; overflow-wrap: anywhere; font-family: var(--mono); font-size: 12.5px; margin-top: 2px; }
.notice { color: var(--amber); font-size: 13px; }
.notice .kind { font-size: 11px; border: 1px solid currentColor; border-radius: 10px; padding: 0 6px; margin-right: 4px; }
details.notice summary { cursor: pointer; }
details.notice .md h1, details.notice .md h2, details.notice .md h3 { font-size: 1.02em; border: 0; padding: 0; margin-top: 10px; }
details.notice .md { color: var(--fg); font-size: 14px; border-left: 2px solid var(--line); padding: 2px 0 2px 10px; margin: 6px 0 2px; }
`

module.exports = { STYLE }
