// A catalog tool's MCP arguments: its options at the top level plus the input fields its input kind
// allows. The advertised JSON Schema is exact, but the SDK-side check only asks for an object: the
// options are validated by createJob itself, so a bad option is the same invalid_options tool error,
// with the same message, as over REST.
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server'
import { optionsJsonSchema } from '../../app/jobs/options.ts'
import { uploadIdPattern } from '../../domain/ids.ts'
import type { ToolDefinition } from '../../domain/tools/catalog.ts'

const idempotencyKey = {
  type: 'string',
  maxLength: 100,
  description:
    'Any unique string. Reuse the same key when you retry after an error or timeout: the first job is returned, nothing is charged twice.',
}

const fileFields = (tool: ToolDefinition): Record<string, Record<string, unknown>> => ({
  upload_id: {
    type: 'string',
    pattern: uploadIdPattern.source,
    description:
      'An upload made with create_upload whose file was PUT to its URL. Give exactly one of upload_id, url' +
      (tool.input.sources.includes('job_file') ? ', job_file.' : '.'),
  },
  url: {
    type: 'string',
    format: 'uri',
    description: 'A public https URL of the file; the service downloads it.',
  },
  filename: {
    type: 'string',
    maxLength: 255,
    description: `Names the file type when the URL does not end in it (${tool.input.extensions.map((e) => `.${e}`).join(', ')}).`,
  },
  ...(tool.input.sources.includes('job_file')
    ? {
        job_file: {
          type: 'object',
          description: "An output of one of your earlier jobs, e.g. {job_id, name: 'image.png'}.",
          properties: { job_id: { type: 'string' }, name: { type: 'string' } },
          required: ['job_id', 'name'],
          additionalProperties: false,
        },
      }
    : {}),
})

export const inputFieldNames = new Set(['upload_id', 'url', 'filename', 'job_file', 'idempotency_key'])

/**
 * A catalog tool's arguments as the fields of REST's JSON form: the input fields as they are, every
 * other argument an option. jobRequestFrom then judges both surfaces alike. An input field sent as
 * null counts as not sent, as agents often fill every advertised field.
 */
export function jobFieldsOf(args: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {}
  const options: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(args)) {
    if (!inputFieldNames.has(name)) options[name] = value
    else if (value !== null && value !== undefined) fields[name] = value
  }
  return { ...fields, options }
}

function toolArgumentsSchema(tool: ToolDefinition): Record<string, unknown> {
  const options = optionsJsonSchema(tool) as {
    properties?: Record<string, unknown>
    required?: string[]
  }
  const optionProperties = options.properties ?? {}
  const clash = Object.keys(optionProperties).find((name) => inputFieldNames.has(name))
  if (clash) throw new Error(`${tool.id} has an option named ${clash}, which MCP uses for the input.`)
  const required = [...(options.required ?? []), ...(tool.idempotencyRequired ? ['idempotency_key'] : [])]
  return {
    type: 'object',
    properties: {
      ...optionProperties,
      ...(tool.input.kind === 'file' ? fileFields(tool) : {}),
      idempotency_key: idempotencyKey,
    },
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  }
}

/** A Standard Schema that advertises `jsonSchema` and lets every object through to the handler. */
export function advertisedSchema(
  jsonSchema: Record<string, unknown>,
): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'kiln',
      validate: (value) =>
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? { value: value as Record<string, unknown> }
          : { issues: [{ message: 'arguments must be an object' }] },
      jsonSchema: { input: () => jsonSchema, output: () => jsonSchema },
    },
  }
}

export const catalogToolInput = (tool: ToolDefinition) => advertisedSchema(toolArgumentsSchema(tool))
