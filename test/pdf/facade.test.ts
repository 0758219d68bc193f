import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type PdfBinding, pdfBinding, selectPdfBinding } from '../../native/pdf.ts'

describe('PDF core facade', () => {
  it('uses the native addon when it is built', () => {
    expect(pdfBinding().kind).toBe('native')
  })

  it('falls back to the WASM loader when the native addon is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kiln-wasm-'))
    const loader = join(dir, 'pdf.wasi.cjs')
    writeFileSync(
      loader,
      'exports.countPages = async () => ({ pageCount: 7 }); exports.extractText = async () => ({});\n',
    )
    const loaded = selectPdfBinding(null, loader)
    expect(loaded.kind).toBe('wasm')
    expect(await loaded.binding.countPages(Buffer.alloc(0))).toEqual({ pageCount: 7 })
  })

  it('says how to build the core when neither build exists', () => {
    expect(() => selectPdfBinding(null, '/nonexistent/pdf.wasi.cjs')).toThrow(
      /native\/build\.ts pdf-node.*build-wasm\.ts/,
    )
  })

  it('prefers the native addon over a present WASM build, its renderer in a child process', () => {
    const addon = { countPages: async () => ({ pageCount: 1 }) } as unknown as PdfBinding
    const { binding, kind } = selectPdfBinding({ addon, path: '/nonexistent/pdf.node' }, '/nonexistent')
    expect(kind).toBe('native')
    expect(binding.countPages).toBe(addon.countPages)
    expect(binding.renderPage).not.toBe(addon.renderPage)
  })
})
