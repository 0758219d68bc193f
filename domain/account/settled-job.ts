// Which job an account event settles: the one whose slot it releases (JobReleased), or the one whose
// charge it declines because the admission was already released (that job's release was recorded
// before the job itself). A job reads final only once its account has settled it.
import { type AccountEvent, accountStream } from './events.ts'

export function jobSettledBy(event: { streamId: string; type: string; data: unknown }): string | null {
  if (!event.streamId.startsWith(accountStream(''))) return null
  const accountEvent = { type: event.type, data: event.data } as AccountEvent
  if (accountEvent.type === 'JobReleased') return accountEvent.data.jobId
  if (accountEvent.type === 'JobChargeDeclined' && accountEvent.data.reason === 'admission_released')
    return accountEvent.data.jobId
  return null
}
