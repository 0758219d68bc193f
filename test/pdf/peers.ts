// Runs the reference extractors (poppler's pdftotext, MuPDF's mutool) and splits their output into pages.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export type Peer = 'pdftotext' | 'mutool'

export function peerInstalled(peer: Peer): boolean {
  return spawnSync('which', [peer]).status === 0
}

/** Both tools end every page with a form feed; the text after the last one is not a page. */
function splitPages(text: string): string[] {
  const pages = text.split('\f')
  if (pages.length > 1) pages.pop()
  return pages
}

/** Page texts of `file` by `peer`, or null when the tool fails on it. */
export function peerPages(peer: Peer, file: string, firstPage?: number, lastPage?: number): string[] | null {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-peer-'))
  const out = join(dir, 'out.txt')
  try {
    const range = (flagFirst: string, flagLast: string): string[] => [
      ...(firstPage ? [flagFirst, String(firstPage)] : []),
      ...(lastPage ? [flagLast, String(lastPage)] : []),
    ]
    const result =
      peer === 'pdftotext'
        ? spawnSync('pdftotext', ['-q', '-enc', 'UTF-8', ...range('-f', '-l'), file, out])
        : spawnSync('mutool', [
            'draw',
            '-q',
            '-F',
            'txt',
            '-o',
            out,
            file,
            ...(firstPage || lastPage ? [`${firstPage ?? 1}-${lastPage ?? 'N'}`] : []),
          ])
    if (result.status !== 0) return null
    return splitPages(readFileSync(out, 'utf8'))
  } catch {
    return null
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
