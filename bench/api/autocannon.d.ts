// The part of autocannon's API the REST bench uses; the package ships no types.
declare module 'autocannon' {
  interface Histogram {
    total: number
    average: number
    p50: number
    p99: number
  }
  interface RawRequest {
    headers: Record<string, string>
    [field: string]: unknown
  }
  interface Options {
    url: string
    method?: 'GET' | 'POST'
    headers?: Record<string, string>
    body?: string
    connections?: number
    duration?: number
    amount?: number
    /** Milliseconds between samples; a run ends at the first sample after its last answer. */
    sampleInt?: number
    requests?: { setupRequest?: (request: RawRequest) => RawRequest }[]
  }
  interface Result {
    requests: Histogram
    latency: Histogram
    duration: number
    errors: number
    non2xx: number
    statusCodeStats: Record<string, { count: number }>
  }
  export default function autocannon(options: Options): Promise<Result>
}
