// Job creation answers from the decided events, before the read models have them (one commit, no
// wait for projection). Reads right after it must still see the job: on the process that created
// it (own-writes.ts), and on another process (a miss waits for the models to reach the store's head).
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../api/app.ts'
import { startTestService, type TestService } from '../support/service.ts'

let service: TestService
let other: FastifyInstance

beforeAll(async () => {
  service = await startTestService({ maxActiveJobsPerAccount: 1000 }, { consumeJobs: false })
  // A second API process in all but the process: its own app and so its own memory of writes.
  other = await buildApp({ services: service.services })
})

afterAll(async () => {
  await other?.close()
  await service?.close()
})

describe('reads right after a job is created', () => {
  it('GET of the job, the job list and /v1/me see each new job at once, and match the 202', async () => {
    const account = await service.account({ credits: 0, login: 'ryw-same' })
    const headers = { authorization: `Bearer ${account.apiKey}` }
    // In process (no socket), so the reads follow the answer as closely as they can.
    const get = (url: string) => service.app.inject({ method: 'GET', url, headers })
    const rounds = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const created = await service.app.inject({
          method: 'POST',
          url: '/v1/tools/get_random_bytes/jobs',
          headers,
          payload: {},
        })
        const answer = created.json() as Record<string, unknown>
        const [list, read] = [await get('/v1/jobs?limit=100'), await get(`/v1/jobs/${String(answer.id)}`)]
        return { status: created.statusCode, answer, read, listed: list.json() as { jobs: { id: string }[] } }
      }),
    )
    for (const { status, answer, read, listed } of rounds) {
      expect(status).toBe(202)
      expect(answer).toMatchObject({ tool: 'get_random_bytes', status: 'queued', credits_charged: null })
      expect(listed.jobs.map((j) => j.id)).toContain(answer.id)
      expect(read.statusCode).toBe(200)
      expect(read.json()).toEqual(answer)
    }
    const me = (await get('/v1/me')).json() as { usage: { active_jobs: number; jobs_last_24h: number } }
    expect(me.usage).toMatchObject({ active_jobs: 12, jobs_last_24h: 12 })
  })

  it('another API process finds a job created a moment ago elsewhere', async () => {
    const account = await service.account({ credits: 0, login: 'ryw-other' })
    const headers = { authorization: `Bearer ${account.apiKey}` }
    for (let i = 0; i < 10; i++) {
      const created = await service.app.inject({
        method: 'POST',
        url: '/v1/tools/get_random_bytes/jobs',
        headers,
        payload: {},
      })
      expect(created.statusCode).toBe(202)
      const { id } = created.json() as { id: string }
      const read = await other.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers })
      expect(read.statusCode).toBe(200)
      expect(read.json()).toMatchObject({ id, status: 'queued' })
    }
  })

  it('an unknown job is still 404', async () => {
    const account = await service.account({ credits: 0, login: 'ryw-unknown' })
    const read = await account.request('/v1/jobs/j_00000000000000000000000000')
    expect(read.status).toBe(404)
  })
})
