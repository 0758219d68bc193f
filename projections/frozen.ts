// Values shared between readers instead of copied for each: frozen all the way down, so a reader
// that tried to change one would throw (modules are strict) rather than change it for the others.
// What was frozen here is remembered, so the response serializer can tell a value that can never
// change (and keep its JSON) from one that merely looks frozen at the top.

const deeplyFrozen = new WeakSet<object>()

/** Freezes the value and everything it holds; returns it. */
export function deepFreeze<T>(value: T): Readonly<T> {
  if (typeof value !== 'object' || value === null || deeplyFrozen.has(value)) return value
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  Object.freeze(value)
  deeplyFrozen.add(value)
  return value
}

/** Whether deepFreeze() froze this value, so that nothing in it can change. */
export const isDeeplyFrozen = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && deeplyFrozen.has(value)
