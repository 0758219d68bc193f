// Damaged PDFs through the Node binding: every mutant ends in text or an invalid_pdf /
// unsupported_format refusal, and afterwards the same process still extracts a good file.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DomainError } from '../../domain/errors.ts'
import { extractPdfText } from '../../native/pdf.ts'
import { corpusPdfs, corpusPresent, fixturesDir } from './corpus.ts'

const seeds = [
  join(fixturesDir, 'plain.pdf'),
  join(fixturesDir, 'aes-128.pdf'),
  ...(corpusPresent ? [...corpusPdfs('pdfjs'), ...corpusPdfs('pypdf'), ...corpusPdfs('malformed')] : []),
].map((file) => readFileSync(file))

const mutation = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({
    kind: fc.constant('flip' as const),
    edits: fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 })), {
      minLength: 1,
      maxLength: 24,
    }),
  }),
  fc.record({
    kind: fc.constant('cut' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    length: fc.integer({ min: 1, max: 2048 }),
  }),
)

type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never

function mutate(original: Buffer, change: Mutation): Buffer {
  const bytes = Buffer.from(original)
  if (change.kind === 'truncate') return bytes.subarray(0, Math.floor(change.at * bytes.length))
  if (change.kind === 'flip') {
    for (const [at, value] of change.edits)
      bytes[Math.min(bytes.length - 1, Math.floor(at * bytes.length))] = value
    return bytes
  }
  const start = Math.floor(change.at * bytes.length)
  return Buffer.concat([bytes.subarray(0, start), bytes.subarray(start + change.length)])
}

describe('damaged PDFs', () => {
  it('end in text or a refusal with a code, and the process keeps serving', async () => {
    let outcomes = 0
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: seeds.length - 1 }), mutation, async (index, change) => {
        const mutant = mutate(seeds[index] as Buffer, change)
        try {
          const extraction = await extractPdfText(mutant, { firstPage: 1, lastPage: 20, mode: 'plain' })
          expect(extraction.pages.length).toBeLessThanOrEqual(20)
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError)
          expect(['invalid_pdf', 'unsupported_format']).toContain((error as DomainError).code)
        }
        outcomes++
      }),
      { numRuns: 150, seed: 20260701 },
    )
    expect(outcomes).toBe(150)
    const healthy = await extractPdfText(seeds[0] as Buffer, { firstPage: 1, mode: 'plain' })
    expect(healthy.pages[1]?.text).toBe('Second page')
  }, 120_000)
})
