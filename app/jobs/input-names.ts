// Client file names never become paths on disk: a stored input is `input.<ext>` under the job's own
// folder, and the name the tools derive their output names from is capped. The client's name stays
// the job's `input.name`, as it was sent. (A 255-byte name plus our own folder is ENAMETOOLONG.)
import { extname } from 'node:path'

/** The file's extension when it is a plain one (`.glb`, `.pdf`), lowercased; '' otherwise. */
export function plainExtension(name: string): string {
  const extension = extname(name).toLowerCase()
  return /^\.[a-z0-9]{1,10}$/.test(extension) ? extension : ''
}

/** The name an input is stored under, whatever the client called it. */
export const storedInputName = (name: string) => `input${plainExtension(name)}`

const maxToolNameLength = 100

/** The name the tools see: the client's, with its stem cut so outputs named after it stay short. */
export function toolInputName(name: string): string {
  if ([...name].length <= maxToolNameLength) return name
  const extension = plainExtension(name)
  const stem = [...name.slice(0, name.length - extension.length)].slice(
    0,
    maxToolNameLength - extension.length,
  )
  return `${stem.join('')}${extension}`
}
