// Command-line entry to the mesh core for the bench, so kiln is timed as a process like its peers:
//   node bench/mesh/kiln.ts <inspect|simplify|optimize> <input> <output-dir> [options-json]
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { basename, dirname, extname, join } from 'node:path'
import { type MeshTool, runMeshTool } from '../../native/mesh.ts'

const [tool = '', input = '', outDir = '', optionsJson = '{}'] = process.argv.slice(2)
const name = basename(input)
const result = await runMeshTool(
  tool as MeshTool,
  { data: await readFile(input), name, extension: extname(name).slice(1) },
  JSON.parse(optionsJson),
)
for (const file of result.files) {
  await mkdir(dirname(join(outDir, file.name)), { recursive: true })
  await writeFile(join(outDir, file.name), file.data)
}
process.stdout.write(JSON.stringify(result.summary))
