// A read store writer thread that dies at its first message, committing and answering nothing.
import { parentPort } from 'node:worker_threads'

parentPort!.on('message', () => {
  throw new Error('the writer thread died')
})
