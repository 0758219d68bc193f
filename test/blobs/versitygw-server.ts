// An S3 server for the S3 suites: versitygw (`go install github.com/versity/versitygw/cmd/versitygw@v1.8.0`)
// on its posix backend, started on a free loopback port over a temporary folder, with one bucket.
// The binary comes from VERSITYGW_BIN, PATH, or `$(go env GOPATH)/bin`.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3'
import { findGoTool, freePort } from '../projections/support/mongo-server.ts'

export interface S3Server {
  /** Values for AWS_ENDPOINT_URL_S3, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY. */
  env: Record<string, string>
  endpoint: string
  bucket: string
  stop(): Promise<void>
}

export const findVersitygw = () => findGoTool('versitygw', 'VERSITYGW_BIN')

async function waitUntilServing(client: S3Client, bucket: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 20_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`versitygw exited with ${child.exitCode}:\n${output()}`)
    try {
      await client.send(new CreateBucketCommand({ Bucket: bucket }))
      return
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`versitygw did not answer: ${String(error)}\n${output()}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

/** A running server with an empty bucket, or null when there is no versitygw binary. */
export async function startS3Server(bucket = 'kiln-test'): Promise<S3Server | null> {
  const binary = findVersitygw()
  if (!binary) return null
  const dir = mkdtempSync(join(tmpdir(), 'kiln-versitygw-'))
  mkdirSync(join(dir, 'data'))
  const port = await freePort()
  const env = {
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'kilntestaccess',
    AWS_SECRET_ACCESS_KEY: 'kilntestsecret-0123456789',
  }
  const child = spawn(
    binary,
    [
      '--access',
      env.AWS_ACCESS_KEY_ID,
      '--secret',
      env.AWS_SECRET_ACCESS_KEY,
      '--port',
      `127.0.0.1:${port}`,
      '--quiet',
      'posix',
      join(dir, 'data'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  child.stdout?.on('data', (chunk) => (output += chunk))
  child.stderr?.on('data', (chunk) => (output += chunk))
  const client = new S3Client({
    endpoint: env.AWS_ENDPOINT_URL_S3,
    region: env.AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
  })
  try {
    await waitUntilServing(client, bucket, child, () => output)
  } catch (error) {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
    throw error
  } finally {
    client.destroy()
  }
  return {
    env,
    endpoint: env.AWS_ENDPOINT_URL_S3,
    bucket,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
