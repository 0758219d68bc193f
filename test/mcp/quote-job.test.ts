// quote_job over MCP: the price an agent is told is the price the job is then charged, asking
// charges nothing, and a refusal carries the code the job would get.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, errorOf, structuredOf } from './clients.ts'
import { type McpTestServer, startMcpTestServer } from './fixture.ts'

let server: McpTestServer

beforeAll(async () => {
  server = await startMcpTestServer({ env: { QUOTES_PER_MINUTE: '1', QUOTE_BURST: '4' } })
})
afterAll(() => server.close())

describe('quote_job', () => {
  it('quotes what the job then costs, and charges nothing for the quote', async () => {
    const account = await server.account(10)
    const client = await connect(`${server.baseUrl}/mcp`, account.key)
    const args = { count: 3, idempotency_key: 'quoted-dice' }
    const quote = structuredOf(
      await client.callTool({
        name: 'quote_job',
        arguments: { tool: 'get_random_numbers', arguments: args },
      }),
    )
    expect(quote).toMatchObject({
      tool: 'get_random_numbers',
      credits: 1,
      balance: 10,
      admitted: true,
      code: null,
    })
    const job = structuredOf(await client.callTool({ name: 'get_random_numbers', arguments: args }))
    expect(job).toMatchObject({ status: 'succeeded', credits_charged: quote.credits })
    const after = structuredOf(
      await client.callTool({ name: 'quote_job', arguments: { tool: 'get_random_numbers', arguments: {} } }),
    )
    expect(after.balance).toBe(9)
    await client.close()
  })

  it('tells an agent without credits the code its job would get, and refuses past the quote budget', async () => {
    const account = await server.account(0)
    const client = await connect(`${server.baseUrl}/mcp`, account.key)
    const ask = () => client.callTool({ name: 'quote_job', arguments: { tool: 'get_random_numbers' } })
    expect(structuredOf(await ask())).toMatchObject({ admitted: false, code: 'insufficient_credits' })
    await ask()
    await ask()
    await ask()
    expect(errorOf(await ask()).code).toBe('rate_limited')
    const unknown = await client.callTool({ name: 'quote_job', arguments: { tool: 'no_such_tool' } })
    expect(errorOf(unknown).code).toBe('rate_limited')
    await client.close()
  })
})
