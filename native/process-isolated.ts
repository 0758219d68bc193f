// Runs methods of a native addon in a child process of its own (isolated.ts). A Rust panic in an
// addon is caught and answered as a failure value, but a stack overflow or an abort is not: it
// ends the process, which for a tool is the job's (workers/runtime/isolated-run.ts), so the whole
// job failed as an internal error over one bad page. Code that has met such files and is not ours
// to bound (the OCR renderer, hayro) runs here instead, where such a file ends only this child
// and the caller goes on without that call's result.
import { fork } from 'node:child_process'
import type { Socket } from 'node:net'
import { type HostKind, hostExecArgv } from './isolated.ts'

/** What a child wrote to stderr last, for the error when it never loaded the binding. */
const STDERR_KEPT = 2048

/** Child processes hosting the addon (or CommonJS module) at `path`, for `isolatedBinding`. */
export function childProcessHost(path: string): HostKind {
  return {
    open: (events) => {
      const child = fork(new URL('./process-host.ts', import.meta.url), [path], {
        execArgv: hostExecArgv(),
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      })
      let stderr = ''
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-STDERR_KEPT)
      })
      child.on('message', events.message)
      child.on('error', events.end)
      child.on('exit', (code, signal) =>
        events.end(
          new Error(`the host exited (${signal ?? `code ${code}`})${stderr ? `: ${stderr.trim()}` : ''}`),
        ),
      )
      // The stderr pipe is a socket, which can be unreferenced like the child and its channel.
      const handles: ({ ref(): void; unref(): void } | null | undefined)[] = [
        child,
        child.channel,
        child.stderr as unknown as Socket | null,
      ]
      return {
        // A send that fails because the child is gone is answered by its exit.
        post: (request) => void child.send(request, () => {}),
        hold: (held) => {
          for (const handle of handles) held ? handle?.ref() : handle?.unref()
        },
        close: () => void child.kill('SIGKILL'),
      }
    },
    describe: `The addon ${path}`,
  }
}
