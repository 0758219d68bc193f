/** A command to a decider: its kind and data, with the time it is decided at (never the wall clock). */
export type Command<T extends string, D> = { type: T; data: D & { now: number } }
