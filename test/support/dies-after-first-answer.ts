// Makes this worker thread die just after its first message, with 2,000 messages and then that one
// still on their way to the parent: Node can then report the thread's error before it delivers
// them (in about half the tries on two cores). For the SQLite stores' writer threads, whose
// stand-ins call this and then load the real writer.
import { parentPort } from 'node:worker_threads'

export function dieAfterFirstAnswer(): void {
  const port = parentPort!
  const post = port.postMessage.bind(port)
  let answered = false
  port.postMessage = (message: unknown) => {
    if (answered) return post(message)
    answered = true
    // Answers for no batch, ahead of the real one: they settle nothing, and keep it in flight.
    for (let i = 0; i < 2000; i++) post({ replies: [], note: 'x'.repeat(1000) })
    post(message)
    // After the writer's own code returns, so nothing it catches sees this.
    queueMicrotask(() => {
      throw new Error('the writer thread died')
    })
  }
}
