// Small REST helpers the lifecycle suites share.
import type { TestAccount } from '../../support/service.ts'

export interface JobView {
  id: string
  status: string
  credits_charged: number | null
  result:
    | (Record<string, unknown> & { files: { name: string; bytes: number; sha256: string; url: string }[] })
    | null
  error: { code: string; message: string; hint: string | null } | null
}

export async function startJob(
  account: TestAccount,
  tool: string,
  options: Record<string, unknown>,
  idempotencyKey?: string,
): Promise<JobView> {
  const response = await account.request(`/v1/tools/${tool}/jobs`, {
    method: 'POST',
    json: { options, idempotency_key: idempotencyKey },
  })
  if (response.status !== 202)
    throw new Error(`POST ${tool} answered ${response.status}: ${await response.text()}`)
  return (await response.json()) as JobView
}

export async function balanceOf(account: TestAccount): Promise<number> {
  return ((await (await account.request('/v1/billing')).json()) as { balance: number }).balance
}

export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
