// The serving side of a host (isolated.ts): each request runs the binding's method, and the reply
// carries its value or the error it threw. Byte arrays arrive as plain Uint8Arrays (structured
// clone drops Buffer's prototype); the binding's Buffer parameters get Buffers over the same memory.
import type { HostMessage, Request } from './isolated.ts'

type Binding = Record<string, (...args: unknown[]) => Promise<unknown>>

const asBuffer = (value: unknown) =>
  value instanceof Uint8Array && !Buffer.isBuffer(value)
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    : value

/** Says the binding is ready through `reply`, and returns what answers each request. */
export function serveBinding(binding: Binding, reply: (message: HostMessage) => void) {
  reply('ready')
  return async ({ id, method, args }: Request): Promise<void> => {
    try {
      const run = binding[method]
      if (!run) throw new Error(`the binding has no ${method}`)
      reply({ id, value: await run(...args.map(asBuffer)) })
    } catch (error) {
      reply({ id, error })
    }
  }
}
