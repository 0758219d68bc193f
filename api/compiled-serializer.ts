// Response serialization compiled once per route from its zod schema. zod's own encoder walks the
// schema for every response (about a fifth of a job read's CPU); this walks it once and builds a
// function per schema node that copies only the declared fields (a stripped object drops what the
// schema does not name, so no field leaks) and checks what is cheap to check: required fields,
// primitive types, integers, enum and literal members. String refinements (an id's pattern, a
// maximum length) are not re-checked on the way out. A schema with anything else (unions,
// transforms, defaults, strict objects) is left to the zod serializer it came with.
import type { FastifySerializerCompiler } from 'fastify/types/schema.js'
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod'
import type { z } from 'zod'

type Shape = (value: unknown, path: string) => unknown

class Unsupported extends Error {}

interface ZodDef {
  type: string
  format?: string
  shape?: Record<string, { _zod: { def: ZodDef } }>
  catchall?: { _zod: { def: ZodDef } }
  innerType?: { _zod: { def: ZodDef } }
  element?: { _zod: { def: ZodDef } }
  valueType?: { _zod: { def: ZodDef } }
  entries?: Record<string, unknown>
  values?: unknown[]
}

const mismatch = (path: string, expected: string) =>
  new Error(`Response does not match its schema at ${path || '(root)'}: expected ${expected}`)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function compile(def: ZodDef): Shape {
  switch (def.type) {
    case 'string':
    case 'boolean':
      return (value, path) => {
        if (typeof value !== def.type) throw mismatch(path, def.type)
        return value
      }
    case 'number': {
      const integer = def.format?.includes('int') === true
      return (value, path) => {
        if (typeof value !== 'number' || (integer ? !Number.isSafeInteger(value) : !Number.isFinite(value)))
          throw mismatch(path, integer ? 'an integer' : 'a number')
        return value
      }
    }
    case 'enum':
    case 'literal': {
      const allowed = new Set(def.type === 'enum' ? Object.values(def.entries ?? {}) : (def.values ?? []))
      return (value, path) => {
        if (!allowed.has(value)) throw mismatch(path, [...allowed].join(' | '))
        return value
      }
    }
    case 'unknown':
    case 'any':
      return (value) => value
    case 'nullable': {
      const inner = compile(def.innerType!._zod.def)
      return (value, path) => (value === null ? null : inner(value, path))
    }
    case 'optional': {
      const inner = compile(def.innerType!._zod.def)
      return (value, path) => (value === undefined ? undefined : inner(value, path))
    }
    case 'array': {
      const element = compile(def.element!._zod.def)
      return (value, path) => {
        if (!Array.isArray(value)) throw mismatch(path, 'an array')
        return value.map((item, i) => element(item, `${path}[${i}]`))
      }
    }
    case 'record': {
      const entry = compile(def.valueType!._zod.def)
      return (value, path) => {
        if (!isRecord(value)) throw mismatch(path, 'an object')
        const out: Record<string, unknown> = {}
        for (const key of Object.keys(value)) out[key] = entry(value[key], `${path}.${key}`)
        return out
      }
    }
    case 'object':
      return compileObject(def)
    default:
      throw new Unsupported(def.type)
  }
}

function compileObject(def: ZodDef): Shape {
  const catchall = def.catchall?._zod.def.type
  if (catchall !== undefined && catchall !== 'unknown')
    throw new Unsupported(`object with ${catchall} catchall`)
  const fields = Object.entries(def.shape ?? {}).map(([key, schema]) => ({
    key,
    optional: schema._zod.def.type === 'optional',
    shape: compile(schema._zod.def),
  }))
  const known = new Set(fields.map((f) => f.key))
  const keepsUnknown = catchall === 'unknown'
  return (value, path) => {
    if (!isRecord(value)) throw mismatch(path, 'an object')
    const out: Record<string, unknown> = {}
    for (const { key, optional, shape } of fields) {
      const field = value[key]
      if (field === undefined) {
        if (optional) continue
        throw mismatch(`${path}.${key}`, 'a value')
      }
      out[key] = shape(field, `${path}.${key}`)
    }
    if (keepsUnknown) for (const key of Object.keys(value)) if (!known.has(key)) out[key] = value[key]
    return out
  }
}

/** The compiled serializer of a zod schema, or null when the schema has parts it does not handle. */
export function compiledSerializer(schema: unknown): ((data: unknown) => string) | null {
  const def = (schema as { _zod?: { def?: ZodDef } } | null)?._zod?.def
  if (!def) return null
  try {
    const shape = compile(def)
    return (data) => JSON.stringify(shape(data, ''))
  } catch (error) {
    if (error instanceof Unsupported) return null
    throw error
  }
}

/** Fastify's serializer compiler: the compiled serializer where it applies, zod's otherwise. */
export const serializerCompiler: FastifySerializerCompiler<z.ZodType> = (routeSchema) =>
  compiledSerializer(routeSchema.schema) ?? zodSerializerCompiler(routeSchema as never)
