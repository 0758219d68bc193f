// Accounts for the REST bench, written to the data folder before the server starts (as the admin
// CLI does). Job creation needs many: each account may start only 100 free jobs a day.
import { createApiKey, openAccount } from '../../app/accounts.ts'
import { loadConfig } from '../../app/config.ts'
import { startServices } from '../../app/services.ts'

export async function createBenchAccounts(dataDir: string, count: number): Promise<string[]> {
  const services = await startServices(loadConfig({ ...process.env, DATA_DIR: dataDir }), {
    consumeJobs: false,
    project: false,
  })
  try {
    const keys: string[] = []
    for (let i = 0; i < count; i++) {
      const { accountId } = await openAccount(services.ctx, {
        login: `bench${i}`,
        email: `bench${i}@example.com`,
        credits: 0,
      })
      keys.push((await createApiKey(services.ctx, accountId, 'bench')).key)
    }
    return keys
  } finally {
    await services.close()
  }
}
