import { z } from 'zod'

// The spec says inspect has no tool-specific options.
export const inspectOptions = z.strictObject({})
export type InspectOptions = z.infer<typeof inspectOptions>
