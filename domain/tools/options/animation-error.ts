import { z } from 'zod'

/** animation_error's range, a fraction of the scene: finer than 16-bit positions' half step, up to a hundredth. */
export const animationErrorRange = { min: 1e-6, max: 0.01 }

/** What a number means, the same for every mesh tool that takes the option. */
const meaning =
  "how far animated geometry may drift from its source motion, as a fraction of the scene's extent (the largest side of the box it moves through). Keys the motion can do without go, within it. 0.001 keeps every animated point within about a pixel of its path when the scene fills a 1000-pixel view."

/** The animation_error option of a mesh tool, whose null default `whenNull` describes. */
export const animationError = (whenNull: string) =>
  z
    .number()
    .min(animationErrorRange.min)
    .max(animationErrorRange.max)
    .nullable()
    .default(null)
    .describe(`Animation precision: ${meaning} ${whenNull}`)
