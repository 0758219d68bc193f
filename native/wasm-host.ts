// The worker thread a WASM build of a binding runs in (wasm-isolated.ts): it loads the napi-rs
// loader named in workerData and serves it (serve-binding.ts).
import { createRequire } from 'node:module'
import { parentPort, workerData } from 'node:worker_threads'
import { serveBinding } from './serve-binding.ts'

const port = parentPort
if (!port) throw new Error('wasm-host.ts runs as a worker thread')
// A wasm thread that dies ends this host, so the calls in flight here are answered (isolated.ts
// reruns them). emnapi rethrows such a death here only when the thread had said it loaded: one that
// traps first, on work it already took, counts as a failed load, and that work never settles.
process.on('worker', (pooled) => pooled.on('error', () => process.exit(1)))
const binding = createRequire(import.meta.url)(workerData.loaderPath as string)
port.on(
  'message',
  serveBinding(binding, (message) => port.postMessage(message)),
)
