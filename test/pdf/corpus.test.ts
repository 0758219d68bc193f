// Every PDF of the shared corpus through the extract_pdf runner: text, or a refusal with one of
// the tool's error codes — never a crash of the process.
import { basename, dirname } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DomainError } from '../../domain/errors.ts'
import { corpusPdfs, corpusPresent, passwordProtected, wellFormedFolders } from './corpus.ts'
import { runTool } from './run-tool.ts'

const files = [...wellFormedFolders, 'malformed'].flatMap(corpusPdfs)

describe.runIf(corpusPresent)('extract_pdf on the shared corpus', () => {
  it.each(files.map((file) => [`${basename(dirname(file))}/${basename(file)}`, file]))(
    '%s',
    async (_label, file) => {
      const outcome = await runTool(file).then(
        (run) => ({ ok: true as const, run }),
        (error: unknown) => ({ ok: false as const, error }),
      )
      const name = basename(file)
      if (outcome.ok) {
        expect(passwordProtected.has(name), `${name} needs a password`).toBe(false)
        expect(Object.keys(outcome.run.files)).toHaveLength(2)
        return
      }
      expect(outcome.error).toBeInstanceOf(DomainError)
      const code = (outcome.error as DomainError).code
      if (name === 'sicp.pdf') expect(code).toBe('limit_exceeded')
      else if (passwordProtected.has(name)) expect((outcome.error as DomainError).hint).toContain('password')
      else {
        expect(basename(dirname(file)), `${name} is well formed but failed with ${code}`).toBe('malformed')
        expect(code).toBe('invalid_pdf')
      }
    },
  )
})
