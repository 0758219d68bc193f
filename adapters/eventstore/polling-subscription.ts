// Catch-up then live: read pages after the last delivered position until none are left, then wait
// for a local append signal or the poll interval (appends from other processes), and read again.
import type { EventEmitter } from 'node:events'
import type { EventStore, SubscribeOptions, Subscription } from '../../domain/ports/event-store.ts'

const pageSize = 1000

export function startPollingSubscription(
  store: Pick<EventStore, 'readAll'>,
  appended: EventEmitter,
  pollIntervalMs: number,
  options: SubscribeOptions,
): Subscription {
  let position = options.fromPosition
  let stopped = false
  let wake: (() => void) | null = null
  const onAppend = () => wake?.()
  appended.on('append', onAppend)

  const sleep = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, pollIntervalMs)
      function done() {
        clearTimeout(timer)
        wake = null
        resolve()
      }
      wake = done
    })

  const loop = (async () => {
    while (!stopped) {
      try {
        const page = await store.readAll(position, pageSize)
        for (const event of page) {
          if (stopped) return
          await options.onEvent(event)
          position = event.position
        }
        if (page.length < pageSize && !stopped) await sleep()
      } catch (error) {
        if (stopped) return
        options.onError?.(error)
        await sleep()
      }
    }
  })()

  return {
    async stop() {
      stopped = true
      appended.off('append', onAppend)
      wake?.()
      await loop
    },
  }
}
