// Every error code the service speaks, with the HTTP status it maps to and the default text.
// Codes are the spec's stable contract; messages may change and usually carry specifics.

export const errorCatalog = {
  invalid_request: { status: 400, message: 'The request is invalid.', hint: null },
  invalid_json: {
    status: 400,
    message: 'The body is not valid JSON.',
    hint: 'Send a well-formed JSON object.',
  },
  invalid_options: {
    status: 400,
    message: 'The options are invalid.',
    hint: 'See the tool options schema in GET /v1/tools.',
  },
  url_not_allowed: {
    status: 400,
    message: 'The URL is not allowed.',
    hint: 'Give a public https URL; private, loopback and metadata addresses are refused.',
  },
  not_text: {
    status: 400,
    message: 'The file is not a text output.',
    hint: 'Download it from its signed URL instead.',
  },
  unauthorized: {
    status: 401,
    message: 'Missing, invalid or revoked credentials.',
    hint: 'Send Authorization: Bearer <API key>.',
  },
  insufficient_credits: {
    status: 402,
    message: 'Not enough credits.',
    hint: 'Buy credits in the console, then retry.',
  },
  invalid_token: {
    status: 403,
    message: 'The signed URL is invalid or expired.',
    hint: 'Create a new upload, or get the job again for fresh download URLs.',
  },
  account_disabled: { status: 403, message: 'The account is disabled.', hint: 'Contact support.' },
  account_frozen: {
    status: 403,
    message: 'The account is frozen while a disputed payment is open.',
    hint: 'The hold lifts when the dispute is resolved.',
  },
  forbidden: {
    status: 403,
    message: 'This endpoint is for console sessions only.',
    hint: 'Use the console.',
  },
  not_found: { status: 404, message: 'Not found.', hint: null },
  upload_not_found: {
    status: 404,
    message: 'The upload is missing or no longer available.',
    hint: 'Create a new upload and PUT the file before starting the job.',
  },
  job_running: {
    status: 409,
    message: 'The job cannot be canceled or deleted in its current state.',
    hint: null,
  },
  idempotency_conflict: {
    status: 409,
    message: 'The idempotency key was used for another tool or a different request.',
    hint: 'Use a new idempotency key for a new request.',
  },
  already_uploaded: {
    status: 409,
    message: 'This upload URL already received its file.',
    hint: 'Create a new upload.',
  },
  key_limit: { status: 409, message: 'API key limit reached.', hint: 'Revoke an unused key, or wait.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.', hint: null },
  job_deleted: {
    status: 410,
    message: 'The job this idempotency key created was deleted.',
    hint: 'Use a new key.',
  },
  length_required: { status: 411, message: 'A Content-Length header is required.', hint: null },
  request_timeout: {
    status: 408,
    message: 'The request body arrived too slowly.',
    hint: 'Send the body at a steady rate, or from a faster connection.',
  },
  too_large: { status: 413, message: 'The file is larger than the upload limit.', hint: null },
  unsupported_media_type: { status: 415, message: 'Unsupported content type.', hint: null },
  fetch_failed: {
    status: 422,
    message: 'The URL could not be downloaded.',
    hint: 'Check that the URL is public and reachable.',
  },
  quota_exceeded: {
    status: 429,
    message: 'Daily job quota for this tool reached.',
    hint: 'Wait for Retry-After.',
  },
  too_many_active_jobs: {
    status: 429,
    message: 'Too many active jobs.',
    hint: 'Wait for the running job to finish, then retry.',
  },
  rate_limited: { status: 429, message: 'Too many requests.', hint: 'Wait for Retry-After.' },
  busy: {
    status: 503,
    message: 'The service is at capacity.',
    hint: 'Wait for Retry-After, then retry once.',
  },
  capacity_exhausted: {
    status: 503,
    message: "The day's generation capacity is used up.",
    hint: 'Try again tomorrow.',
  },
  payments_unavailable: { status: 503, message: 'No payment processor is configured.', hint: null },
  // Job errors: a failed job carries one of these in `error`.
  unsupported_format: { status: 422, message: 'The tool does not take this file type.', hint: null },
  invalid_mesh: {
    status: 422,
    message: 'The model could not be read.',
    hint: 'Check that the file is a valid model.',
  },
  invalid_pdf: {
    status: 422,
    message: 'The PDF could not be read.',
    hint: 'Check that the file is a valid PDF.',
  },
  limit_exceeded: {
    status: 422,
    message: 'The input exceeds the tool limit.',
    hint: 'See the tool limits in GET /v1/tools.',
  },
  timeout: {
    status: 504,
    message: 'The job did not finish within its time limit.',
    hint: 'Try a smaller input.',
  },
  out_of_memory: {
    status: 507,
    message: 'The file needs more memory than a job has.',
    hint: 'Try a smaller input.',
  },
  upstream_failed: {
    status: 502,
    message: 'The generation provider failed.',
    hint: 'Retry with a new idempotency key.',
  },
  upstream_refused: {
    status: 422,
    message: 'The generation provider refused the request.',
    hint: 'Rephrase the prompt; refused requests cost nothing.',
  },
  internal: { status: 500, message: 'Internal error.', hint: 'Retry later; failed jobs cost nothing.' },
} as const satisfies Record<string, { status: number; message: string; hint: string | null }>

export type ErrorCode = keyof typeof errorCatalog

/** A broken business rule or a failed job. `retryAfterSeconds` feeds the Retry-After header. */
export class DomainError extends Error {
  readonly code: ErrorCode
  readonly hint: string | null
  readonly retryAfterSeconds: number | undefined
  readonly details: Record<string, unknown> | undefined

  constructor(
    code: ErrorCode,
    message?: string,
    extra: { hint?: string | null; retryAfterSeconds?: number; details?: Record<string, unknown> } = {},
  ) {
    super(message ?? errorCatalog[code].message)
    this.name = 'DomainError'
    this.code = code
    this.hint = extra.hint === undefined ? errorCatalog[code].hint : extra.hint
    this.retryAfterSeconds = extra.retryAfterSeconds
    this.details = extra.details
  }

  get status(): number {
    return errorCatalog[this.code].status
  }
}

export const isDomainError = (error: unknown): error is DomainError => error instanceof DomainError

export interface JobError {
  code: string
  message: string
  hint: string | null
}

export const toJobError = (error: DomainError): JobError => ({
  code: error.code,
  message: error.message,
  hint: error.hint,
})
