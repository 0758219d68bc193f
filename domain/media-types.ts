// The one table of media types, by file extension: the Content-Type of downloads and of the console's
// files, and the mimeType of MCP resource links, all come from here.
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
  // The console page's own files.
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
}

/** The media type of a file by its extension; undefined when it is not one the tools read or write. */
export const mediaTypeOf = (name: string): string | undefined => byExtension[extname(name).toLowerCase()]

/** A Content-Type header for the file: text says it is UTF-8; an unknown type is plain bytes. */
export function contentTypeOf(name: string): string {
  const type = mediaTypeOf(name)
  if (type === undefined) return 'application/octet-stream'
  return type.startsWith('text/') ? `${type}; charset=utf-8` : type
}
