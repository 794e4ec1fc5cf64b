// A chat page as an app writes one with the AI SDK: React, `useChat` and its
// `DefaultChatTransport` against `/api/chat`. `?chat=<id>` names the chat; `&resume=1`
// is a page reloaded mid-response: it loads the chat's messages from the server and
// goes on with `resume: true`. A transient `data-message-replaced` chunk (see
// docs/live.md, "Serving useChat") is put in place of its message once the response ends.
// What the test reads: `globalThis.harness`.
import { useChat } from '@ai-sdk/react'
import { DefaultChatTransport } from 'ai'
import { createRoot } from 'react-dom/client'

const params = new URL(location.href).searchParams
const chatId = params.get('chat')
const resume = params.get('resume') === '1'
const harness = (globalThis.harness = { statuses: [], errors: [], finishes: [], replaced: new Map(), renders: 0 })
const transport = new DefaultChatTransport({ api: '/api/chat' })

function Chat({ initial }) {
  const chat = useChat({
    id: chatId,
    messages: initial,
    resume,
    transport,
    onData: (part) => {
      if (part.type === 'data-message-replaced') harness.replaced.set(part.id, part.data)
    },
    onFinish: ({ isAbort, isDisconnect, isError, finishReason }) => {
      harness.finishes.push({ isAbort, isDisconnect, isError, finishReason })
      if (harness.replaced.size === 0) return
      const replaced = harness.replaced
      harness.replaced = new Map()
      // In place of the message it names; a message that holds its id already (put in
      // place before a reconnect replayed the response) goes.
      for (const [id, data] of replaced) {
        harness.chat.setMessages((messages) => messages.filter((m) => m.id === id || m.id !== data.id).map((m) => (m.id === id ? data : m)))
      }
    },
    onError: (error) => harness.errors.push(String(error?.message ?? error)),
  })
  harness.chat = chat
  harness.renders++
  if (harness.statuses.at(-1) !== chat.status) harness.statuses.push(chat.status)
  return (
    <ol>
      {chat.messages.map((message) => (
        <li key={message.id} data-role={message.role}>
          {message.parts.map((part, i) => (
            <span key={i} data-type={part.type}>
              {part.text ?? part.toolCallId ?? ''}
            </span>
          ))}
        </li>
      ))}
    </ol>
  )
}

const initial = resume ? await (await fetch(`/api/chat/${encodeURIComponent(chatId)}/messages`)).json() : []
createRoot(document.getElementById('root')).render(<Chat initial={initial} />)
harness.ready = true
