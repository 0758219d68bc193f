// The worker thread a WASM build of a binding runs in (wasm-isolated.ts): it loads the napi-rs
// loader named in workerData and serves it (serve-binding.ts).
import { createRequire } from 'node:module'
import { parentPort, workerData } from 'node:worker_threads'
import { serveBinding } from './serve-binding.ts'

const port = parentPort
if (!port) throw new Error('wasm-host.ts runs as a worker thread')
const binding = createRequire(import.meta.url)(workerData.loaderPath as string)
port.on(
  'message',
  serveBinding(binding, (message) => port.postMessage(message)),
)
