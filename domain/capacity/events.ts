// The operator's daily generation capacity across all accounts, one stream per UTC day: each
// admitted generation job reserves one unit; a reservation whose admission then failed is released.

export type CapacityEvent =
  | { type: 'CapacityReserved'; data: { jobId: string; tool: string; at: string } }
  | { type: 'CapacityReleased'; data: { jobId: string; at: string } }

export type CapacityCommand =
  | { type: 'ReserveCapacity'; data: { jobId: string; tool: string; dailyLimit: number | null; now: number } }
  | { type: 'ReleaseCapacity'; data: { jobId: string; now: number } }

/** capacity-YYYY-MM-DD (UTC). */
export const capacityStream = (now: number) => `capacity-${new Date(now).toISOString().slice(0, 10)}`
