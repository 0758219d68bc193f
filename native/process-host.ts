// The child process a native binding runs in (process-isolated.ts): it loads the addon (or any
// CommonJS module) named by its first argument and serves it (serve-binding.ts) over the IPC
// channel, until its parent goes.
import { createRequire } from 'node:module'
import { serveBinding } from './serve-binding.ts'

const send = process.send?.bind(process)
const path = process.argv[2]
if (!send || !path) throw new Error('process-host.ts runs as a forked child, given the binding to load')
const binding = createRequire(import.meta.url)(path)
process.on(
  'message',
  serveBinding(binding, (message) => send(message)),
)
process.on('disconnect', () => process.exit(0))
