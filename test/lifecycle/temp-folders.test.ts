// executeJob removes its temporary folders on every path: a finished job, a job whose input is gone
// (an early return), and a job whose tool fails.
import { readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jobBlobPrefix } from '../../app/context.ts'
import type { Delivery } from '../../domain/ports/dispatcher.ts'
import { executeJob } from '../../workers/job-executor.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../support/service.ts'

const delivery: Delivery = { attempt: 1, working: () => {} }
const leftovers = async (jobId: string) =>
  (await readdir(tmpdir())).filter((name) => name.startsWith(`kiln-${jobId}-`))

describe("executeJob's temporary folders", () => {
  let service: TestService
  let ann: TestAccount
  beforeAll(async () => {
    service = await startTestService({ rateLimit: { perSecond: 1000, burst: 1000 } }, { consumeJobs: false })
    ann = await service.account({ credits: 100, login: 'ann' })
  })
  afterAll(() => service?.close())

  async function queued(body: string, filename: string) {
    const created = await ann.request(`/v1/tools/inspect_3d_model/jobs?filename=${filename}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body,
    })
    expect(created.status).toBe(202)
    return ((await created.json()) as { id: string }).id
  }

  const run = (jobId: string) =>
    executeJob(service.services.ctx, { jobId, tool: 'inspect_3d_model' }, delivery, 'temp-folder-test')

  it('after a job that succeeds', async () => {
    const jobId = await queued('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n', 'tri.obj')
    await run(jobId)
    expect(await waitForJob(ann, jobId)).toMatchObject({ status: 'succeeded' })
    expect(await leftovers(jobId)).toEqual([])
  })

  it('after a job whose input is gone (an early return)', async () => {
    const jobId = await queued('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n', 'tri.obj')
    await service.services.ctx.blobs.deletePrefix(`${jobBlobPrefix(jobId)}/input`)
    await run(jobId)
    expect(await waitForJob(ann, jobId)).toMatchObject({
      status: 'failed',
      error: { code: 'upload_not_found' },
    })
    expect(await leftovers(jobId)).toEqual([])
  })

  it('after a job whose tool fails', async () => {
    const jobId = await queued('this is not a mesh', 'broken.obj')
    await run(jobId)
    expect(await waitForJob(ann, jobId)).toMatchObject({ status: 'failed' })
    expect(await leftovers(jobId)).toEqual([])
  })
})
