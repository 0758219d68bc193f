// The WASM fallback of the PDF core (native/build-wasm.ts) against the native addon: the same
// pages, text and flags in both modes, and the same failures, on the corpus. In CI the WASM build
// must exist when KILN_EXPECT_WASM is set (.ci/run sets it once it built the fallback); otherwise
// the suite says it skipped.
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { loadNativeAddon } from '../../native/load.ts'
import { type PdfBinding, wasmLoaderPath } from '../../native/pdf.ts'
import { corpusPdfs, corpusPresent } from './corpus.ts'

const native = loadNativeAddon<PdfBinding>('pdf-node', 'pdf')
const wasm = existsSync(wasmLoaderPath)
  ? (createRequire(import.meta.url)(wasmLoaderPath) as PdfBinding)
  : null
if (!wasm) {
  if (process.env.KILN_EXPECT_WASM)
    throw new Error('KILN_EXPECT_WASM is set but the WASM fallback is missing: node native/build-wasm.ts')
  console.log('SKIPPED PDF WASM parity: no WASM build (node native/build-wasm.ts pdf-node)')
}

describe.runIf(Boolean(native && wasm && corpusPresent))(
  'PDF core: the WASM build gives the native results',
  () => {
    const files = [...corpusPdfs('pdfjs'), ...corpusPdfs('pypdf'), ...corpusPdfs('malformed')]

    it('extracts the same text from every short corpus PDF, in both modes', {
      timeout: 120_000,
    }, async () => {
      expect(files.length).toBeGreaterThan(10)
      for (const file of files) {
        const bytes = await readFile(file)
        for (const mode of ['plain', 'layout']) {
          const a = await (native as PdfBinding).extractText(bytes, { mode })
          const b = await (wasm as PdfBinding).extractText(bytes, { mode })
          expect(b, `${file} ${mode}`).toEqual(a)
        }
        expect(await (wasm as PdfBinding).countPages(bytes), file).toEqual(
          await (native as PdfBinding).countPages(bytes),
        )
      }
    })
  },
)
