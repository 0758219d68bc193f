// The result shapes on their own, for outputs no runner in this tree produces yet: resource links
// per output file, failed jobs as tool errors, refusals with their retry time.
import { expect, it } from 'vitest'
import { errorResult, jobResult } from '../../api/mcp/results.ts'
import { DomainError } from '../../domain/errors.ts'
import type { JobResource } from '../../projections/jobs/render.ts'

const job = (over: Partial<JobResource>): JobResource => ({
  id: `j_${'a'.repeat(26)}`,
  tool: 'split_3d_model',
  status: 'succeeded',
  input: { name: 'chair.glb', bytes: 10, source: 'upload' },
  options: {},
  error: null,
  result: null,
  compute_ms: 5,
  credits_charged: 2,
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: '2026-01-01T00:00:01.000Z',
  outputs_expire_at: '2026-01-02T00:00:01.000Z',
  ...over,
})

it('links every output file as a resource link with its media type where known', () => {
  const files = [
    {
      name: 'meshes/leg.glb',
      bytes: 100,
      sha256: 'x',
      url: 'https://kiln.test/v1/downloads/j/meshes/leg.glb?sig=1',
    },
    { name: 'summary.txt', bytes: 5, sha256: 'y', url: 'https://kiln.test/v1/downloads/j/summary.txt?sig=2' },
    { name: 'notes.xyz', bytes: 1, sha256: 'z', url: 'https://kiln.test/v1/downloads/j/notes.xyz?sig=3' },
  ]
  const result = jobResult(job({ result: { part_count: 1, files } }), 1)
  expect(result.isError).toBeUndefined()
  expect(result.structuredContent).toMatchObject({ status: 'succeeded', result: { part_count: 1 } })
  expect(result.content.filter((item) => item.type === 'resource_link')).toEqual([
    {
      type: 'resource_link',
      uri: files[0]!.url,
      name: 'meshes/leg.glb',
      mimeType: 'model/gltf-binary',
      size: 100,
    },
    { type: 'resource_link', uri: files[1]!.url, name: 'summary.txt', mimeType: 'text/plain', size: 5 },
    { type: 'resource_link', uri: files[2]!.url, name: 'notes.xyz', size: 1 },
  ])
})

it('makes a failed job a tool error whose structured content is the job with its error', () => {
  const error = { code: 'invalid_mesh', message: 'The model could not be read.', hint: 'Check the file.' }
  const result = jobResult(job({ status: 'failed', error, credits_charged: 0 }), 2)
  expect(result.isError).toBe(true)
  expect(result.structuredContent).toMatchObject({ status: 'failed', error })
  expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('invalid_mesh') })
})

it('carries the retry time of a refusal, and hides the text of unexpected failures', () => {
  const busy = errorResult(new DomainError('busy', 'The service is at capacity.', { retryAfterSeconds: 10 }))
  expect(busy.structuredContent).toEqual({
    error: {
      code: 'busy',
      message: 'The service is at capacity.',
      hint: expect.any(String),
      retry_after_seconds: 10,
    },
  })
  expect(busy.content[0]).toMatchObject({ text: expect.stringContaining('Retry after 10 s.') })
  const internal = errorResult(new Error('ENOENT /var/secret/path'))
  expect(internal.structuredContent).toEqual({
    error: { code: 'internal', message: 'Internal error.', hint: expect.any(String) },
  })
})
