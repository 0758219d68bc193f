// Where the bytes of a GLB go: one line per buffer view (stored bytes, after EXT_meshopt_compression
// when present) with the accessors that use it, so two tools' outputs can be compared line by line.
// Images and the JSON chunk are listed as totals. Not a test.
//   node bench/mesh/views.ts a.glb [b.glb ...]
import { readFileSync } from 'node:fs'

interface Accessor {
  bufferView?: number
  componentType: number
  type: string
  count: number
  normalized?: boolean
}

interface View {
  byteLength: number
  byteStride?: number
  extensions?: Record<string, { byteLength: number; filter?: string; mode?: string }>
}

const componentNames: Record<number, string> = {
  5120: 'i8',
  5121: 'u8',
  5122: 'i16',
  5123: 'u16',
  5125: 'u32',
  5126: 'f32',
}

function report(file: string) {
  const data = readFileSync(file)
  const jsonLength = data.readUInt32LE(12)
  const doc = JSON.parse(data.subarray(20, 20 + jsonLength).toString('utf8'))
  const views: View[] = doc.bufferViews ?? []
  const accessors: Accessor[] = doc.accessors ?? []
  const semantics = new Map<number, string[]>()
  for (const mesh of doc.meshes ?? []) {
    for (const p of mesh.primitives) {
      for (const [name, index] of Object.entries<number>(p.attributes))
        semantics.set(index, [...(semantics.get(index) ?? []), name])
      if (p.indices !== undefined) semantics.set(p.indices, [...(semantics.get(p.indices) ?? []), 'indices'])
    }
  }
  const imageViews = new Set<number>((doc.images ?? []).map((i: { bufferView?: number }) => i.bufferView))
  const totals = new Map<string, number>()
  const add = (key: string, bytes: number) => totals.set(key, (totals.get(key) ?? 0) + bytes)
  console.log(`${file}: ${data.length} bytes, JSON ${jsonLength}`)
  for (const [i, view] of views.entries()) {
    const meshopt = view.extensions?.EXT_meshopt_compression
    const stored = meshopt ? meshopt.byteLength : view.byteLength
    if (imageViews.has(i)) {
      add('images', stored)
      continue
    }
    const users = accessors.flatMap((a, k) => (a.bufferView === i ? [k] : []))
    const label = users
      .map((k) => {
        const a = accessors[k] as Accessor
        return `${(semantics.get(k) ?? ['?']).join('/')} ${a.type} ${componentNames[a.componentType]}${a.normalized ? 'n' : ''} x${a.count}`
      })
      .join(', ')
    const kind = (semantics.get(users[0] ?? -1)?.[0] ?? '?').replace(/_\d+$/, '')
    add(kind, stored)
    console.log(
      `  view ${i}: ${stored} bytes (raw ${view.byteLength}, stride ${view.byteStride ?? '-'}${meshopt?.filter ? `, ${meshopt.filter}` : ''}) ${label}`,
    )
  }
  console.log(`  totals: ${[...totals].map(([k, v]) => `${k} ${v}`).join(', ')}, JSON ${jsonLength}`)
}

for (const file of process.argv.slice(2)) report(file)
