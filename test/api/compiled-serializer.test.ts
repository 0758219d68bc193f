// The compiled response serializer must write what zod's encoder writes for every valid response,
// drop what the schema does not name, and refuse what zod would refuse in the cases it checks.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { compiledSerializer } from '../../api/compiled-serializer.ts'
import { billing, errorBody, job, jobList, me } from '../../api/schemas.ts'

const zodJson = (schema: z.ZodType, data: unknown) => JSON.stringify(z.encode(schema, data as never))

const queued = {
  id: 'j_0123456789abcdefghijklmnop',
  tool: 'get_random_bytes',
  status: 'queued',
  input: { name: '', bytes: 0, source: 'body' },
  options: { bytes: 32, nested: { deep: [1, 'two', null] } },
  error: null,
  result: null,
  compute_ms: null,
  credits_charged: null,
  created_at: '2026-11-24T17:00:00.000Z',
  started_at: null,
  finished_at: null,
  outputs_expire_at: '2026-11-25T17:00:00.000Z',
}
const succeeded = {
  ...queued,
  status: 'succeeded',
  result: {
    bytes: 'q83vEjRWeJA=',
    stats: { faces: 12 },
    files: [{ name: 'out/part_1.stl', bytes: 684, sha256: 'a'.repeat(64), url: 'http://h/f?sig=x' }],
  },
  compute_ms: 3,
  credits_charged: 0,
  started_at: '2026-11-24T17:00:00.100Z',
  finished_at: '2026-11-24T17:00:00.200Z',
}
const failed = {
  ...queued,
  status: 'failed',
  error: { code: 'invalid_mesh', message: 'No faces.', hint: null },
  credits_charged: 0,
}
const meDoc = {
  id: 'acc_1',
  login: 'ada',
  email: null,
  plan: 'free',
  limits: { jobs_per_day: 100 },
  auth: 'key',
  usage: { jobs_last_24h: 3, active_jobs: 1, jobs_last_24h_by_tool: { get_random_bytes: 3 } },
  credits: { balance: 50, next_expiry: { credits: 50, at: '2026-12-24T17:00:00.000Z' } },
}

describe('compiled response serializer', () => {
  it('compiles the hot read schemas', () => {
    for (const schema of [job, jobList, me, billing, errorBody])
      expect(compiledSerializer(schema)).not.toBeNull()
    expect(compiledSerializer(z.union([z.string(), z.int()]))).toBeNull()
    expect(compiledSerializer({ type: 'object' })).toBeNull()
  })

  it('writes exactly what zod writes for valid jobs, pages and accounts', () => {
    const serializeJob = compiledSerializer(job)!
    for (const sample of [queued, succeeded, failed]) expect(serializeJob(sample)).toBe(zodJson(job, sample))
    const page = { jobs: [succeeded, queued], next_before: 17 }
    expect(compiledSerializer(jobList)!(page)).toBe(zodJson(jobList, page))
    const meFull = { ...meDoc, usage: { ...meDoc.usage, pending_uploads: 0, stored_bytes: 1024 } }
    const serializeMe = compiledSerializer(me)!
    for (const sample of [meDoc, meFull]) expect(serializeMe(sample)).toBe(zodJson(me, sample))
  })

  it('drops fields the schema does not name, as zod does', () => {
    const leaky = {
      ...succeeded,
      accountId: 'acc_secret',
      idempotencyKey: 'k',
      input: { ...succeeded.input, blobKey: 'jobs/x/in/a.stl' },
      result: { ...succeeded.result, files: [{ ...succeeded.result.files[0]!, blobKey: 'jobs/x/out' }] },
    }
    const written = compiledSerializer(job)!(leaky)
    expect(written).toBe(zodJson(job, leaky))
    expect(written).not.toMatch(/acc_secret|idempotencyKey|blobKey/)
  })

  it('refuses a missing field, a wrong type, a fraction for an integer and an unknown status', () => {
    const serializeJob = compiledSerializer(job)!
    const { tool: _, ...noTool } = queued
    for (const broken of [
      noTool,
      { ...queued, compute_ms: '3' },
      { ...queued, compute_ms: 1.5 },
      { ...queued, status: 'lost' },
      { ...queued, result: { files: 'none' } },
    ]) {
      expect(() => serializeJob(broken)).toThrow(/does not match its schema/)
      expect(() => zodJson(job, broken)).toThrow()
    }
  })

  it('escapes hostile names and values as JSON.stringify does', () => {
    const hostile = {
      ...succeeded,
      tool: 'a"b\\c\n\u2028</script>',
      options: { 'k"ey\n': 'v\u0000', __proto__x: [undefined, () => 1, 'ok'], skipped: undefined },
      result: {
        ...succeeded.result,
        'x"y': { 'z\u2029': '\ud800' },
        files: [{ ...succeeded.result.files[0]!, name: 'a\\"b.stl' }],
      },
    }
    expect(compiledSerializer(job)!(hostile)).toBe(zodJson(job, hostile))
    expect(JSON.parse(compiledSerializer(job)!(hostile)).options).toEqual({
      'k"ey\n': 'v\u0000',
      __proto__x: [null, null, 'ok'],
    })
  })

  it('writes the same as zod for records, optional fields and nested arrays', () => {
    const schema = z.object({
      counts: z.record(z.string(), z.int()),
      tags: z.array(z.array(z.enum(['a', 'b']))),
      note: z.string().optional(),
      flag: z.boolean(),
      ratio: z.number().nullable(),
    })
    const serialize = compiledSerializer(schema)!
    for (const sample of [
      { counts: { '2': 1, b: 3, '1': 2 }, tags: [['a'], [], ['b', 'a']], flag: true, ratio: 0.5 },
      { counts: {}, tags: [], note: 'n', flag: false, ratio: null, extra: 'dropped' },
    ])
      expect(serialize(sample)).toBe(zodJson(schema, sample))
    expect(() => serialize({ counts: { a: 1.5 }, tags: [], flag: true, ratio: 1 })).toThrow(
      /at \.counts\.a: expected an integer/,
    )
    expect(() => serialize({ counts: {}, tags: [['c']], flag: true, ratio: 1 })).toThrow(
      /at \.tags\[0\]\[0\]/,
    )
  })
})
