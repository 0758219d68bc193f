// What a client may read of an error: never a server path, a stack or an errno. Messages of domain
// errors are ours and usually plain, but some quote a parser's or the OS's text (a native loader's
// error, a file the tool could not open), so every client-facing message passes through here.
import { constants } from 'node:os'

const errnoNames = new Set(Object.keys(constants.errno))
/** An absolute path after a start, a space, a quote, a bracket, '=' or ','; URLs are left alone. */
const absolutePath = /(^|[\s'"`([=,])(?:\/[\w.@+~-]+)+\/?/g
const windowsPath = /(^|[\s'"`([=,])[A-Za-z]:\\[^\s'"`)\]]*/g
const stackFrame = /\n\s+at\s[\s\S]*$/
const errnoWord = /\b(?:errno|syscall)\s*[:=]?\s*-?\w+/gi

export const genericInternalMessage = 'Internal error.'

/** The message with paths, stack frames and errno names taken out; never empty. */
export function clientSafeText(message: string): string {
  const cleaned = message
    .replace(stackFrame, '')
    .replace(absolutePath, '$1<path>')
    .replace(windowsPath, '$1<path>')
    .replace(errnoWord, '')
    .replace(/\b[A-Z][A-Z0-9_]{2,}\b/g, (word) => (errnoNames.has(word) ? 'file error' : word))
    .trim()
  return cleaned.length > 0 ? cleaned : genericInternalMessage
}
