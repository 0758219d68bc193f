// A secret generated once into the data folder and shared by every process using that folder. It is
// written to a private temporary file and hard-linked into place: the link is atomic and fails when
// the name exists, so processes starting together all read the first one's complete secret, never a
// half-written file and never two different secrets.
import { randomBytes } from 'node:crypto'
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs'

export function secretFile(path: string, make: () => string): string {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  writeFileSync(temporary, make(), { mode: 0o600 })
  try {
    linkSync(temporary, path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    rmSync(temporary, { force: true })
  }
  return readFileSync(path, 'utf8').trim()
}
