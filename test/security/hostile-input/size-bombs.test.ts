// Declared-size bombs for every parser the service accepts (issue 20): small files whose headers
// declare billions of vertices, faces, triangles, bytes or objects (glTF, GLB, OBJ, PLY, STL, PDF),
// and bodies whose Content-Length declares more than the limit. Each ends as a 4xx or as a failed
// job with a tool error code (or, for a PDF a reader may repair, a success), never a 5xx, and no
// message shows a server path, stack or errno. Memory is the parsers' own tests' concern.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectNoInternals } from '../../support/leaks.ts'
import { startTestService, type TestAccount, type TestService, waitForJob } from '../../support/service.ts'
import { rawRequest } from './raw-http.ts'

const mib = 1024 * 1024

function gltfBomb(): string {
  // One zero-filled accessor (no bufferView) of 500 000 vertices, referenced by 150 primitives.
  const primitive = { attributes: { POSITION: 0 }, mode: 4 }
  return JSON.stringify({
    asset: { version: '2.0' },
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0 }],
    meshes: [{ primitives: Array.from({ length: 150 }, () => primitive) }],
    accessors: [{ componentType: 5126, count: 500_000, type: 'VEC3', min: [0, 0, 0], max: [0, 0, 0] }],
  })
}

function gltfCountPastItsBuffer(): string {
  return JSON.stringify({
    asset: { version: '2.0' },
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0 }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
    buffers: [
      { byteLength: 12, uri: `data:application/octet-stream;base64,${Buffer.alloc(12).toString('base64')}` },
    ],
    bufferViews: [{ buffer: 0, byteLength: 12 }],
    accessors: [
      {
        bufferView: 0,
        componentType: 5126,
        count: 4_000_000_000,
        type: 'VEC3',
        min: [0, 0, 0],
        max: [0, 0, 0],
      },
    ],
  })
}

function glbDeclaringHugeChunks(): Buffer {
  const header = Buffer.alloc(20)
  header.write('glTF', 0, 'latin1')
  header.writeUInt32LE(2, 4)
  header.writeUInt32LE(0xfffffff0, 8) // total length
  header.writeUInt32LE(0x7ffffff0, 12) // JSON chunk length
  header.write('JSON', 16, 'latin1')
  return Buffer.concat([header, Buffer.from('{"asset":{"version":"2.0"}}')])
}

const objWithHugeIndex = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4000000000\nf 1 2 -4000000000\n'
const objWithHugeFace = `v 0 0 0\nv 1 0 0\nv 0 1 0\nf ${Array.from({ length: 30_000 }, (_, i) => (i % 3) + 1).join(' ')}\n`

const plyBinaryHugeVertexCount = Buffer.concat([
  Buffer.from(
    'ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n',
  ),
  Buffer.alloc(36),
])
const plyAsciiHugeFaceCount =
  'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 2000000000\nproperty list uint int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n4000000000 0 1 2\n'

function stlDeclaringHugeTriangleCount(): Buffer {
  const stl = Buffer.alloc(84 + 50)
  stl.write('binary stl', 0, 'latin1')
  stl.writeUInt32LE(0xffffffff, 80)
  return stl
}

function pdfObjectStreamBomb(): Buffer {
  const objects = [
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 2000000000 >> endobj',
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >> endobj',
    '4 0 obj << /Type /ObjStm /N 2000000000 /First 4000000000 /Length 10 >> stream\n0 0 0 0 0 \nendstream endobj',
  ]
  let body = '%PDF-1.7\n'
  const offsets: number[] = []
  for (const object of objects) {
    offsets.push(body.length)
    body += `${object}\n`
  }
  const xref = body.length
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`
  body += `trailer << /Size 2147483647 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(body, 'latin1')
}

interface Job {
  id: string
  status: string
  error: { code: string; message: string; hint: string | null } | null
}

const meshErrors = ['invalid_mesh', 'limit_exceeded', 'unsupported_format']

describe('declared-size bombs', () => {
  let service: TestService
  let ann: TestAccount
  beforeAll(async () => {
    service = await startTestService({
      rateLimit: { perSecond: 1000, burst: 1000 },
      maxActiveJobsPerAccount: 20,
      maxJobAttempts: 1,
    })
    ann = await service.account({ login: 'ann', credits: 1000 })
  })
  afterAll(() => service?.close())

  async function runJob(tool: string, filename: string, body: Buffer | string): Promise<Job> {
    const created = await ann.request(`/v1/tools/${tool}/jobs?filename=${encodeURIComponent(filename)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body,
    })
    const text = await created.text()
    expectNoInternals(text, filename)
    expect(created.status, text).toBe(202)
    const job = (await waitForJob(ann, (JSON.parse(text) as { id: string }).id, 150_000)) as unknown as Job
    expectNoInternals(JSON.stringify(job), filename)
    return job
  }

  it.each([
    ['glTF: one zero-filled accessor in 150 primitives', 'bomb.gltf', gltfBomb()],
    ['glTF: an accessor counting past its buffer', 'count.gltf', gltfCountPastItsBuffer()],
    ['GLB: chunks declared at 4 GB', 'huge.glb', glbDeclaringHugeChunks()],
    ['OBJ: face indices of 4 billion', 'index.obj', objWithHugeIndex],
    ['OBJ: one face of 30 000 corners', 'face.obj', objWithHugeFace],
    ['PLY: 4 billion binary vertices declared', 'vertices.ply', plyBinaryHugeVertexCount],
    ['PLY: 2 billion ASCII faces declared', 'faces.ply', plyAsciiHugeFaceCount],
    ['STL: 4 billion triangles declared', 'triangles.stl', stlDeclaringHugeTriangleCount()],
  ])('%s fails as a tool error', { timeout: 180_000 }, async (_name, filename, body) => {
    const job = await runJob('inspect_3d_model', filename, body)
    if (job.status === 'succeeded') return // a reader that clamps to what the file holds is fine too
    expect(job.status).toBe('failed')
    expect(meshErrors, JSON.stringify(job.error)).toContain(job.error?.code)
  })

  it('PDF: an object stream and page tree declaring billions fails as a tool error or reads what is there', {
    timeout: 180_000,
  }, async () => {
    const job = await runJob('extract_pdf', 'objects.pdf', pdfObjectStreamBomb())
    if (job.status === 'succeeded') return
    expect(job.status).toBe('failed')
    expect(['invalid_pdf', 'limit_exceeded'], JSON.stringify(job.error)).toContain(job.error?.code)
  })

  it('refuses a raw body whose Content-Length passes the limit before reading it', async () => {
    const answer = await rawRequest(
      service.baseUrl,
      'POST',
      '/v1/tools/inspect_3d_model/jobs?filename=a.glb',
      {
        authorization: `Bearer ${ann.apiKey}`,
        'content-type': 'application/octet-stream',
        'content-length': String(10 * 1024 * mib),
      },
      'glTF',
    )
    expect(answer.status).toBe(413)
    expect(answer.body).toContain('"code":"too_large"')
    expectNoInternals(answer.body)
  })

  it('refuses an upload PUT whose Content-Length passes the limit before reading it', async () => {
    const created = await ann.request('/v1/uploads', { method: 'POST', json: { filename: 'a.glb' } })
    const url = new URL(((await created.json()) as { url: string }).url)
    const answer = await rawRequest(
      service.baseUrl,
      'PUT',
      `${url.pathname}${url.search}`,
      { 'content-type': 'application/octet-stream', 'content-length': String(10 * 1024 * mib) },
      'glTF',
    )
    expect(answer.status).toBe(413)
    expect(answer.body).toContain('"code":"too_large"')
    expectNoInternals(answer.body)
  })
})
