// Runs a WASM build of a napi-rs binding (native/build-wasm.ts) in a worker thread of its own
// (isolated.ts). wasm32 cannot unwind, so a Rust panic there (a bug met on a hostile file, which
// the native build catches and answers as a failure value) aborts the instance, and
// @napi-rs/wasm-runtime rethrows the abort on the thread that loaded the binding: loaded on the
// main thread, it ends the process. Here it ends the host worker.
import { Worker } from 'node:worker_threads'
import { type HostKind, hostExecArgv } from './isolated.ts'

/** Host workers of the binding at `loaderPath` (a napi-rs `*.wasi.cjs`), for `isolatedBinding`. */
export function wasmWorkerHost(loaderPath: string): HostKind {
  return {
    open: (events) => {
      const worker = new Worker(new URL('./wasm-host.ts', import.meta.url), {
        workerData: { loaderPath },
        execArgv: hostExecArgv(),
      })
      worker.on('message', events.message)
      // An abort arrives as an uncaught error, then the exit. The host ends at the exit, which Node
      // emits only once the worker's last messages are delivered: the error can come first, and a
      // host that loaded and then died at once (its 'ready' still on the way) would otherwise look
      // like one that never loaded (seen under load in CI, and in 12 of 600 tries beside busy cores).
      let failure: unknown
      worker.on('error', (error) => {
        failure ??= error
      })
      worker.on('exit', () => events.end(failure))
      return {
        post: (request) => worker.postMessage(request),
        hold: (held) => (held ? worker.ref() : worker.unref()),
        close: () => void worker.terminate(),
      }
    },
    describe: `The WASM build ${loaderPath}`,
  }
}
