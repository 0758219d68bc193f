// Media types of the outputs the tools write, for the mimeType of resource links.
import { extname } from 'node:path'

const byExtension: Record<string, string> = {
  '.glb': 'model/gltf-binary',
  '.gltf': 'model/gltf+json',
  '.obj': 'model/obj',
  '.ply': 'application/x-ply',
  '.stl': 'model/stl',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.zip': 'application/zip',
}

export const mimeTypeOf = (name: string): string | undefined => byExtension[extname(name).toLowerCase()]
