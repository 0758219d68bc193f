// The MCP Inspector CLI (v2) against a running kiln: strict schema lint of tools/list, a tools/call
// in each protocol era, and a load run on a cheap tool. The Inspector is a separate client stack
// (its own SDK copy, ajv output validation), so it catches what our own SDK client tolerates.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderOptions } from '../../api/signed-paths.ts'
import { listJobs } from '../../projections/jobs/queries.ts'
import { type McpTestServer, startMcpTestServer } from './fixture.ts'

const run = promisify(execFile)

import { configureProviders } from './provider-env.ts'

const inspectorDir = new URL('../../node_modules/@modelcontextprotocol/inspector/', import.meta.url)
let inspectorBin: string
let home: string
let server: McpTestServer
let key: string
let accountId: string

let restoreEnv: () => void

beforeAll(async () => {
  restoreEnv = configureProviders()
  const manifest = JSON.parse(await readFile(new URL('package.json', inspectorDir), 'utf8')) as {
    bin: Record<string, string>
  }
  inspectorBin = new URL(manifest.bin.inspector!, inspectorDir).pathname
  // The Inspector keeps a catalog and OAuth state under $HOME; a private one keeps runs independent.
  home = await mkdtemp(join(tmpdir(), 'kiln-inspector-'))
  server = await startMcpTestServer({ env: { MAX_ACTIVE_JOBS: '1000', MAX_QUEUED_JOBS: '1000' } })
  ;({ key, accountId } = await server.account(1000, { purchased: true }))
})
afterAll(async () => {
  restoreEnv()
  await server.close()
  await rm(home, { recursive: true, force: true })
})

/** Runs the Inspector CLI; resolves with its exit code, its JSON result and its stderr. */
async function inspector(path: string, args: string[]) {
  const argv = [inspectorBin, '--cli', '--transport', 'http', '--server-url', `${server.baseUrl}${path}`]
  argv.push('--header', `Authorization: Bearer ${key}`, '--stored-auth-only', '--format', 'json', ...args)
  try {
    const { stdout, stderr } = await run(process.execPath, argv, {
      env: { ...process.env, HOME: home },
      maxBuffer: 16 << 20,
    })
    return { code: 0, output: JSON.parse(stdout), stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return {
      code: failed.code,
      output: failed.stdout ? JSON.parse(failed.stdout) : null,
      stderr: failed.stderr,
    }
  }
}

describe('MCP Inspector CLI', () => {
  it('finds no schema problem in tools/list --strict', async () => {
    const { code, output, stderr } = await inspector('/mcp', ['--method', 'tools/list', '--strict'])
    expect(stderr).not.toMatch(/Error: tool/)
    expect(code).toBe(0)
    // The ten catalog tools and seven companions (uploads, jobs, file reads, cancel, quote_job).
    expect(output.result.tools).toHaveLength(17)
    // Warnings are not fatal under --strict, but kiln has none either.
    expect(stderr).not.toMatch(/Warning: tool/)
  })

  it.each(['legacy', 'modern'])('calls a tool with --protocol-era %s', async (era) => {
    const args = { count: 3, min: 1, max: 3, idempotency_key: `inspector-${era}` }
    const { code, output } = await inspector('/mcp/random', [
      '--protocol-era',
      era,
      '--method',
      'tools/call',
      '--tool-name',
      'get_random_numbers',
      '--tool-args-json',
      JSON.stringify(args),
    ])
    expect(code).toBe(0)
    expect(output.result.isError).toBeFalsy()
    expect(output.result.structuredContent).toMatchObject({
      status: 'succeeded',
      result: { numbers: expect.any(Array) },
    })
  })

  it('ends a load run of 200 calls, 10 at once, with zero errors', { timeout: 240_000 }, async () => {
    const { code, output } = await inspector('/mcp/random', [
      '--method',
      'tools/call',
      '--tool-name',
      'get_random_bytes',
      '--tool-args-json',
      '{"length":16}',
      '--load',
      '--load-requests',
      '200',
      '--load-concurrency',
      '10',
    ])
    expect(code).toBe(0)
    // A tool error is a failed job or a refusal (each refusal has its own test); failed jobs say why.
    const failed = await listJobs(
      server.services.models,
      accountId,
      { limit: 100, status: 'failed' },
      renderOptions(server.services),
    )
    const { requests, ok, toolErrors, errors, errorMessages } = output.result
    expect({
      requests,
      ok,
      toolErrors,
      errors,
      errorMessages,
      failedJobs: failed.jobs.map((job) => job.error),
    }).toEqual({
      requests: 200,
      ok: 200,
      toolErrors: 0,
      errors: 0,
      errorMessages: [],
      failedJobs: [],
    })
  })
})
