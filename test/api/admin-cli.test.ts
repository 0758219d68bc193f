// The operators' CLI against the same store as the service: create-account, grant, disable, enable.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../app/config.ts'
import { accountDecider, invitationDecider } from '../../app/deciders.ts'
import { readState } from '../../app/handle-command.ts'
import { hashSecret } from '../../app/security/secrets.ts'
import { openEventStore } from '../../app/stores.ts'
import { accountStream } from '../../domain/account/events.ts'
import { invitationProblem, invitationStream } from '../../domain/account/invitation.ts'
import { balanceAt } from '../../domain/account/state.ts'

const run = promisify(execFile)
const cli = join(import.meta.dirname, '..', '..', 'api', 'admin-cli.ts')
const dataDir = mkdtempSync(join(tmpdir(), 'kiln-admin-'))
const admin = async (...args: string[]) =>
  (await run(process.execPath, [cli, ...args], { env: { ...process.env, DATA_DIR: dataDir } })).stdout

describe('admin CLI', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it('creates an account with credits and prints its credentials as JSON; grants; disables and enables', async () => {
    const created = JSON.parse(
      await admin('create-account', '--email', 'ops@example.com', '--credits', '40', '--json'),
    ) as Record<string, string>
    expect(created.account_id).toMatch(/^acct_/)
    expect(created.api_key).toMatch(/^kiln_sk_[0-9A-Za-z]{43}$/)
    expect(created.console_token).toMatch(/^kiln_cs_[0-9A-Za-z]{43}$/)
    await admin('grant', '--account', created.account_id!, '--credits', '60', '--json')
    await admin('disable', '--account', created.account_id!)

    const store = await openEventStore(loadConfig({ DATA_DIR: dataDir }))
    try {
      const disabled = (await readState(store, accountStream(created.account_id!), accountDecider)).state
      expect(balanceAt(disabled, Date.now())).toBe(100)
      expect(disabled.disabled).toBe(true)
      await admin('enable', '--account', created.account_id!)
      expect(
        (await readState(store, accountStream(created.account_id!), accountDecider)).state.disabled,
      ).toBe(false)
    } finally {
      await store.close()
    }
  })

  it('issues and revokes console tokens', async () => {
    const created = JSON.parse(
      await admin('create-account', '--email', 'tok@example.com', '--json'),
    ) as Record<string, string>
    const issued = JSON.parse(
      await admin('console-token', '--account', created.account_id!, '--json'),
    ) as Record<string, string>
    expect(issued.console_token).toMatch(/^kiln_cs_[0-9A-Za-z]{43}$/)
    const revoked = JSON.parse(
      await admin('revoke-console-token', '--account', created.account_id!, '--token', issued.id!, '--json'),
    ) as Record<string, string>
    expect(revoked.status).toBe('revoked')
    const store = await openEventStore(loadConfig({ DATA_DIR: dataDir }))
    try {
      const { state } = await readState(store, accountStream(created.account_id!), accountDecider)
      expect(state.consoleTokens.get(issued.id!)).toBe(true)
    } finally {
      await store.close()
    }
    await expect(
      admin('revoke-console-token', '--account', created.account_id!, '--token', 'key_none'),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/not_found/) })
  })

  it('fails with a message and a non-zero exit for a bad command or a missing account', async () => {
    await expect(admin('grant', '--credits', '5')).rejects.toMatchObject({ code: 1 })
    await expect(admin('grant', '--account', 'acct_missing', '--credits', '5')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/not_found/),
    })
    await expect(admin('explode')).rejects.toMatchObject({ code: 2 })
  })

  it('creates single-use invitation codes as events', async () => {
    const invitations = JSON.parse(await admin('invite', '--count', '2', '--json')) as {
      code: string
      expires_at: string
    }[]
    expect(invitations).toHaveLength(2)
    expect(invitations[0]!.code).toMatch(/^kiln_iv_[0-9A-Za-z]{43}$/)
    expect(invitations[0]!.code).not.toBe(invitations[1]!.code)
    const store = await openEventStore(loadConfig({ DATA_DIR: dataDir }))
    try {
      const stream = invitationStream(hashSecret(invitations[0]!.code))
      const { state } = await readState(store, stream, invitationDecider)
      expect(invitationProblem(state, Date.now())).toBeNull()
      expect(state.expiresAt).toBe(Date.parse(invitations[0]!.expires_at))
    } finally {
      await store.close()
    }
  })
})
