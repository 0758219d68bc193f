import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DomainError } from '../../domain/errors.ts'
import { extractPdfOptions } from '../../domain/tools/options/extract_pdf.ts'
import { runner } from '../../workers/tools/extract_pdf.ts'
import { corpusPresent, fixturesDir, pdfCorpusDir } from './corpus.ts'
import { inputFile, runTool } from './run-tool.ts'

const fixture = (name: string) => join(fixturesDir, name)
const corpus = (path: string) => join(pdfCorpusDir, path)

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(DomainError)
  return error as DomainError
}

describe('extract_pdf', () => {
  it('writes <stem>.txt with page markers and <stem>.pages.json, and reports the summary', async () => {
    const { units, summary, files } = await runTool(fixture('plain.pdf'))
    expect(units).toBe(2)
    expect(Object.keys(files).sort()).toEqual(['plain.pages.json', 'plain.txt'])
    expect(files['plain.txt']).toBe(
      '--- page 1 ---\nKiln fixture: Grüße, café — naïve\nKerned words\nΩß\n\f--- page 2 ---\nSecond page\n',
    )
    const json = JSON.parse(files['plain.pages.json'] ?? '')
    expect(json.pages.map((page: { page: number; chars: number }) => [page.page, page.chars])).toEqual([
      [1, 49],
      [2, 11],
    ])
    expect(summary).toEqual({
      pages: 2,
      first_page: 1,
      last_page: 2,
      empty_pages: 0,
      chars: 60,
      ocr_pages: 0,
      notes: [],
    })
  })

  it('extracts a range, and clamps a last_page past the end with a note', async () => {
    const second = await runTool(fixture('plain.pdf'), { first_page: 2 })
    expect(second.units).toBe(1)
    expect(second.files['plain.txt']).toBe('--- page 2 ---\nSecond page\n')
    const clamped = await runTool(fixture('plain.pdf'), { first_page: 1, last_page: 9 })
    expect(clamped.units).toBe(2)
    expect(clamped.summary.last_page).toBe(2)
    expect(clamped.summary.notes).toEqual([expect.stringContaining('last_page 9 is past the end')])
  })

  it('refuses a first_page past the end, since nothing would be extracted', async () => {
    const options = extractPdfOptions.parse({ first_page: 3 })
    const error = await failure(runner.measure(inputFile(fixture('plain.pdf')), options))
    expect(error.code).toBe('invalid_options')
    expect(error.hint).toContain('between 1 and 2')
  })

  it('reads encrypted files with an empty user password and refuses a user password with a hint', async () => {
    for (const name of ['rc4-40.pdf', 'rc4-128.pdf', 'aes-128.pdf', 'aes-256.pdf']) {
      const { summary } = await runTool(fixture(name))
      expect(summary.chars, name).toBe(60)
    }
    const error = await failure(runTool(fixture('user-password.pdf')))
    expect(error.code).toBe('invalid_pdf')
    expect(error.message).toContain('password')
    expect(error.hint).toContain('password')
  })

  it('answers unsupported_format for a file that is not a PDF, whatever its name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kiln-pdf-'))
    const fake = join(dir, 'picture.pdf')
    writeFileSync(fake, Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))
    expect((await failure(runTool(fake))).code).toBe('unsupported_format')
    expect((await failure(runner.measure(null, extractPdfOptions.parse({})))).code).toBe('unsupported_format')
  })

  it('answers limit_exceeded for a file over 20 MB before reading it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kiln-pdf-'))
    const big = join(dir, 'big.pdf')
    copyFileSync(fixture('plain.pdf'), big)
    writeFileSync(big, Buffer.alloc(20 * 1024 * 1024 + 1, 0x20), { flag: 'a' })
    const error = await failure(runner.measure(inputFile(big), extractPdfOptions.parse({})))
    expect(error.code).toBe('limit_exceeded')
  })

  it.runIf(corpusPresent)(
    'answers limit_exceeded past 500 pages, and extracts a range of a long book',
    async () => {
      const sicp = corpus('long/sicp.pdf')
      const error = await failure(runner.measure(inputFile(sicp), extractPdfOptions.parse({})))
      expect(error.code).toBe('limit_exceeded')
      expect(error.hint).toContain('894 pages')
      const { units, summary } = await runTool(sicp, { first_page: 101, last_page: 110 })
      expect(units).toBe(10)
      expect(summary.pages).toBe(10)
      expect(summary.chars as number).toBeGreaterThan(10_000)
    },
  )

  it.runIf(corpusPresent)(
    'flags empty and image-only pages so an agent knows where OCR is needed',
    async () => {
      const images = await runTool(corpus('pypdf/imagemagick-images.pdf'))
      const pages = JSON.parse(images.files['imagemagick-images.pages.json'] ?? '').pages
      expect(
        pages.every(
          (page: { image_only: boolean; needs_ocr: boolean; chars: number }) =>
            page.image_only && page.needs_ocr && page.chars === 0,
        ),
      ).toBe(true)
      expect(images.summary.empty_pages).toBe(6)
      expect(images.summary.notes).toEqual([expect.stringContaining('OCR')])
      const blank = await runTool(corpus('pypdf/blank.pdf'))
      const blankPage = JSON.parse(blank.files['blank.pages.json'] ?? '').pages[0]
      expect(blankPage).toMatchObject({ empty: true, image_only: false, needs_ocr: false, chars: 0 })
    },
  )

  it.runIf(corpusPresent)(
    'includes the visible text of form fields, drawn by their appearance streams',
    async () => {
      const { files } = await runTool(corpus('pypdf/pdflatex-forms.pdf'))
      expect(files['pdflatex-forms.txt']).toBe('--- page 1 ---\nName\nCheck\nSubmit\n1\nSubmit\n')
    },
  )

  it.runIf(corpusPresent)('keeps right-to-left text in logical order and reads a Type 3 font', async () => {
    const habibi = await runTool(corpus('pypdf/habibi.pdf'))
    expect(habibi.files['habibi.txt']).toContain('حَبيبي habibi')
    const type3 = await runTool(corpus('pdfjs/simpletype3font.pdf'))
    expect(type3.files['simpletype3font.txt']).toContain('□△□△□△')
  })

  it.runIf(corpusPresent)(
    'reads a two-column page column by column, and layout mode keeps the columns side by side',
    async () => {
      const file = corpus('pypdf/multicolumn.pdf')
      const plain = (await runTool(file, { last_page: 1 })).files['multicolumn.txt'] ?? ''
      const layout = (await runTool(file, { last_page: 1, mode: 'layout' })).files['multicolumn.txt'] ?? ''
      const twoColumnRows = layout
        .split('\n')
        .map((row) => row.trim().split(/ {2,}/))
        .filter((parts) => parts.length === 2)
      expect(twoColumnRows.length).toBeGreaterThan(20)
      const firstRight = twoColumnRows[0]?.[1] ?? ''
      const lastLeft = twoColumnRows.at(-1)?.[0] ?? ''
      expect(plain.indexOf(lastLeft)).toBeGreaterThan(0)
      expect(plain.indexOf(firstRight)).toBeGreaterThan(plain.indexOf(lastLeft))
    },
  )
})
