// The worker thread a WASM build of a binding runs in (see wasm-isolated.ts). It loads the napi-rs
// loader named in workerData and answers each {id, method, args} message with the method's value or
// the error it threw, after saying 'ready' once the binding loaded. Byte arrays arrive as plain Uint8Arrays (structured clone drops Buffer's
// prototype); the binding's Buffer parameters get Buffers over the same memory.
import { createRequire } from 'node:module'
import { parentPort, workerData } from 'node:worker_threads'

interface Request {
  id: number
  method: string
  args: unknown[]
}

const binding = createRequire(import.meta.url)(workerData.loaderPath as string) as Record<
  string,
  (...args: unknown[]) => Promise<unknown>
>
const port = parentPort
if (!port) throw new Error('wasm-host.ts runs as a worker thread')

const asBuffer = (value: unknown) =>
  value instanceof Uint8Array && !Buffer.isBuffer(value)
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    : value

port.postMessage('ready')
port.on('message', async ({ id, method, args }: Request) => {
  try {
    const run = binding[method]
    if (!run) throw new Error(`the binding has no ${method}`)
    port.postMessage({ id, value: await run(...args.map(asBuffer)) })
  } catch (error) {
    port.postMessage({ id, error })
  }
})
