// Response serialization compiled once per route from its zod schema. zod's own encoder walks the
// schema for every response (about a fifth of a job read's CPU); this walks it once and writes the
// source of one function that appends the JSON of the declared fields only (a stripped object drops
// what the schema does not name, so no field leaks), with no object built on the way and no walk of
// the value by JSON.stringify, and checks what is cheap to check: required fields,
// primitive types, integers, enum and literal members. String refinements (an id's pattern, a
// maximum length) are not re-checked on the way out. A schema with anything else (unions,
// transforms, defaults, strict objects) is left to the zod serializer it came with.
import type { FastifySerializerCompiler } from 'fastify/types/schema.js'
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod'
import type { z } from 'zod'
import { isDeeplyFrozen } from '../projections/frozen.ts'

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

const literal = (text: string) => JSON.stringify(text)

/** The source of the statement that refuses a value at `path` (an expression) for not being `expected`. */
const failure = (path: string, expected: string) => `throw mismatch(${path}, ${literal(expected)});`

/**
 * Writes the source of a function that appends the JSON of one schema node to `out`. `value` is
 * the name of a variable holding the value; `path` is an expression for its path, evaluated only
 * when a mismatch is thrown. Constants (enum members) go to `constants`, read as `k[i]`.
 */
class Writer {
  #names = 0
  readonly constants: unknown[] = []

  name(prefix: string): string {
    return `${prefix}${this.#names++}`
  }

  constant(value: unknown): string {
    this.constants.push(value)
    return `k[${this.constants.length - 1}]`
  }

  node(def: ZodDef, value: string, path: string): string {
    const fail = (expected: string) => failure(path, expected)
    switch (def.type) {
      case 'string':
        return `if (typeof ${value} !== 'string') ${fail('string')}\nout += JSON.stringify(${value});`
      case 'boolean':
        return `if (typeof ${value} !== 'boolean') ${fail('boolean')}\nout += ${value} ? 'true' : 'false';`
      case 'number': {
        const integer = def.format?.includes('int') === true
        const check = integer ? 'Number.isSafeInteger' : 'Number.isFinite'
        return `if (typeof ${value} !== 'number' || !${check}(${value})) ${fail(integer ? 'an integer' : 'a number')}\nout += '' + ${value};`
      }
      case 'enum':
      case 'literal': {
        const members = def.type === 'enum' ? Object.values(def.entries ?? {}) : (def.values ?? [])
        if (!members.every((m) => m === null || ['string', 'number', 'boolean'].includes(typeof m)))
          throw new Unsupported('literal of another type')
        const allowed = this.constant(new Set(members))
        return `if (!${allowed}.has(${value})) ${fail(members.join(' | '))}\nout += JSON.stringify(${value});`
      }
      case 'unknown':
      case 'any':
        return `out += JSON.stringify(${value}) ?? 'null';`
      case 'nullable':
        return `if (${value} === null) out += 'null';\nelse {\n${this.node(def.innerType!._zod.def, value, path)}\n}`
      case 'optional':
        // Outside an object (whose fields skip it), an absent value is written as JSON.stringify
        // writes it in an array: null.
        return `if (${value} === undefined) out += 'null';\nelse {\n${this.node(def.innerType!._zod.def, value, path)}\n}`
      case 'array': {
        const [i, item] = [this.name('i'), this.name('v')]
        return [
          `if (!Array.isArray(${value})) ${fail('an array')}`,
          `out += '[';`,
          `for (let ${i} = 0; ${i} < ${value}.length; ${i}++) {`,
          `if (${i} > 0) out += ',';`,
          `const ${item} = ${value}[${i}];`,
          this.node(def.element!._zod.def, item, `${path} + '[' + ${i} + ']'`),
          '}',
          `out += ']';`,
        ].join('\n')
      }
      case 'record': {
        const [key, item, comma] = [this.name('key'), this.name('v'), this.name('c')]
        const valueDef = def.valueType!._zod.def
        return [
          `if (!isRecord(${value})) ${fail('an object')}`,
          `out += '{';`,
          `let ${comma} = '';`,
          `for (const ${key} of Object.keys(${value})) {`,
          `const ${item} = ${value}[${key}];`,
          this.field(
            valueDef,
            item,
            `${path} + '.' + ${key}`,
            `${comma} + JSON.stringify(${key}) + ':'`,
            comma,
          ),
          '}',
          `out += '}';`,
        ].join('\n')
      }
      case 'object':
        return this.object(def, value, path)
      default:
        throw new Unsupported(def.type)
    }
  }

  /** A member of an object or record: absent and optional, it is left out, as JSON.stringify does. */
  field(def: ZodDef, value: string, path: string, prefix: string, comma: string): string {
    const optional = def.type === 'optional'
    const inner = optional ? def.innerType!._zod.def : def
    // zod lets an unknown member be undefined, and JSON.stringify leaves it out.
    const mayBeAbsent = optional || inner.type === 'unknown' || inner.type === 'any'
    return [
      `if (${value} === undefined) ${mayBeAbsent ? '{}' : failure(path, 'a value')}`,
      'else {',
      `out += ${prefix};`,
      `${comma} = ',';`,
      this.node(inner, value, path),
      '}',
    ].join('\n')
  }

  object(def: ZodDef, value: string, path: string): string {
    const catchall = def.catchall?._zod.def.type
    if (catchall !== undefined && catchall !== 'unknown')
      throw new Unsupported(`object with ${catchall} catchall`)
    const comma = this.name('c')
    const lines = [
      `if (!isRecord(${value})) ${failure(path, 'an object')}`,
      `out += '{';`,
      `let ${comma} = '';`,
    ]
    const fields = Object.entries(def.shape ?? {})
    for (const [key, schema] of fields) {
      const item = this.name('v')
      lines.push(
        `const ${item} = ${value}[${literal(key)}];`,
        this.field(
          schema._zod.def,
          item,
          `${path} + ${literal(`.${key}`)}`,
          `${comma} + ${literal(`${literal(key)}:`)}`,
          comma,
        ),
      )
    }
    if (catchall === 'unknown') {
      // Declared fields come first; anything else is copied as it is, in its own order.
      const [known, key, json] = [
        this.constant(new Set(fields.map(([key]) => key))),
        this.name('key'),
        this.name('j'),
      ]
      lines.push(
        `for (const ${key} of Object.keys(${value})) {`,
        `if (${known}.has(${key})) continue;`,
        `const ${json} = JSON.stringify(${value}[${key}]);`,
        `if (${json} === undefined) continue;`,
        `out += ${comma} + JSON.stringify(${key}) + ':' + ${json};`,
        `${comma} = ',';`,
        '}',
      )
    }
    lines.push(`out += '}';`)
    return lines.join('\n')
  }
}

/** The compiled serializer of a zod schema, or null when the schema has parts it does not handle. */
export function compiledSerializer(schema: unknown): ((data: unknown) => string) | null {
  const def = (schema as { _zod?: { def?: ZodDef } } | null)?._zod?.def
  if (!def) return null
  const writer = new Writer()
  let body: string
  try {
    body = writer.node(def, 'data', "''")
  } catch (error) {
    if (error instanceof Unsupported) return null
    throw error
  }
  // Generated from the schema alone (field names are written as JSON string literals), never from
  // data: the same technique fast-json-stringify uses, and for the same reason (no walk per response).
  const build = new Function(
    'k',
    'mismatch',
    'isRecord',
    `return (data) => {\nlet out = '';\n${body}\nreturn out;\n}`,
  )
  const write = build(writer.constants, mismatch, isRecord) as (data: unknown) => string
  // A value that can never change (projections/frozen.ts: a polled job, an account's Me) is
  // written once per serializer; its JSON is kept as long as the value is.
  const written = new WeakMap<object, string>()
  return (data) => {
    if (!isDeeplyFrozen(data)) return write(data)
    let json = written.get(data)
    if (json === undefined) {
      json = write(data)
      written.set(data, json)
    }
    return json
  }
}

/** Fastify's serializer compiler: the compiled serializer where it applies, zod's otherwise. */
export const serializerCompiler: FastifySerializerCompiler<z.ZodType> = (routeSchema) =>
  compiledSerializer(routeSchema.schema) ?? zodSerializerCompiler(routeSchema as never)
