// When a failed delivery is tried again: exponential steps that add up to about a day (23 h 37 min
// after the first attempt), then the delivery is given up. `scale` shrinks the schedule for tests.
const delaysMs = [5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800].map((seconds) => seconds * 1000)

/** How many attempts a delivery gets in all. */
export const maxDeliveryAttempts = delaysMs.length + 1

/** The wait after the given failed attempt (1-based); null once no attempt is left. */
export function retryDelayMs(failedAttempts: number, scale = 1): number | null {
  const delay = delaysMs[failedAttempts - 1]
  return delay === undefined ? null : Math.max(1, Math.round(delay * scale))
}
