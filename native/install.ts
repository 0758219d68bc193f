// `npm install` runs this (postinstall): the Rust cores are part of what `npm start` needs, so they
// are built here, once, in release mode. Without cargo or a C++ compiler it stops with what to
// install, rather than leaving a service whose mesh and PDF jobs would all fail.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'

// rustup puts cargo in ~/.cargo/bin, which a non-login shell's PATH may lack.
const rustupBin = join(homedir(), '.cargo', 'bin')
if (existsSync(join(rustupBin, 'cargo')) && !(process.env.PATH ?? '').split(delimiter).includes(rustupBin))
  process.env.PATH = `${rustupBin}${delimiter}${process.env.PATH ?? ''}`

const missing = [
  ['cargo', ['--version'], "Rust (https://rustup.rs, or your distribution's cargo package)"],
  ['c++', ['--version'], 'a C++ compiler (Debian: apt-get install g++)'],
].filter(
  ([command, args]) => spawnSync(command as string, args as string[], { stdio: 'ignore' }).status !== 0,
)

if (missing.length > 0) {
  console.error(
    `kiln: the mesh and PDF cores are Rust addons, and building them needs:\n${missing
      .map(([command, , what]) => `  - ${command}: ${what}`)
      .join('\n')}\nInstall it, then run \`npm install\` again (or \`npm run build\`).`,
  )
  process.exit(1)
}

const build = spawnSync(process.execPath, [`${import.meta.dirname}/build.ts`], { stdio: 'inherit' })
process.exit(build.status ?? 1)
