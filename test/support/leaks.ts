// What no client-visible text may show (issue 20 item 18), checked independently of the service's
// own scrubber: a server path, a stack frame, an errno name or a Node internal.
import { constants } from 'node:os'
import { expect } from 'vitest'

const errnoNames = Object.keys(constants.errno)
const serverPath =
  /(?:^|[\s'"`(=:,[])\/(?:tmp|work|home|root|usr|var|etc|proc|opt|srv|data|mnt|run|app|private)(?:\/|\b)/
const sourceLocation = /\.(?:ts|js|mjs|cjs|rs):\d+/
const stackFrame = /\n\s+at\s|\bat\s[\w.<>]+\s\(|node:internal|node_modules/
const errnoWord = new RegExp(`\\b(?:${errnoNames.join('|')}|errno|syscall)\\b`)

/** The first internal the text shows, or null. */
export function internalsIn(text: string): string | null {
  for (const pattern of [serverPath, sourceLocation, stackFrame, errnoWord]) {
    const found = pattern.exec(text)
    if (found) return found[0]
  }
  return null
}

export function expectNoInternals(text: string, context = ''): void {
  expect(internalsIn(text), `${context} shows a server internal in: ${text.slice(0, 400)}`).toBeNull()
}
