import { mapMetaError } from "@gw/errors";
import type { ErrorCode } from "@gw/errors";

/**
 * A CONFIRMED refusal: Meta answered 4xx with its error envelope, so the message was not sent
 * and the idempotency key can be released.
 */
export class MetaApiError extends Error {
  readonly httpStatus: number;
  readonly code: number;
  readonly subcode: number | undefined;
  readonly type: string;
  readonly details: string | null;
  readonly fbtraceId: string | null;
  /** Our stable code for this refusal (packages/errors/src/meta.ts). */
  readonly reason: ErrorCode;

  constructor(fields: {
    httpStatus: number;
    code: number;
    subcode?: number | undefined;
    type?: string | undefined;
    message?: string | undefined;
    details?: string | null | undefined;
    fbtraceId?: string | null | undefined;
  }) {
    super(fields.message ?? `Meta error ${fields.code}`);
    this.name = "MetaApiError";
    this.httpStatus = fields.httpStatus;
    this.code = fields.code;
    this.subcode = fields.subcode;
    this.type = fields.type ?? "";
    this.details = fields.details ?? null;
    this.fbtraceId = fields.fbtraceId ?? null;
    this.reason = mapMetaError(fields.code, this.details);
  }
}

export type MetaUnconfirmedKind = "timeout" | "network" | "server_error" | "bad_response";

/**
 * The request may have reached Meta but no usable answer came back (timeout, reset after connecting,
 * 5xx, unparsable body). The message MAY have gone out: it must not be resent automatically.
 */
export class MetaUnconfirmedError extends Error {
  readonly kind: MetaUnconfirmedKind;
  /** HTTP status when an answer came at all. */
  readonly httpStatus: number | null;
  /** Meta's error code when a 5xx still carried an envelope. */
  readonly metaCode: number | null;

  constructor(
    kind: MetaUnconfirmedKind,
    message: string,
    options: { httpStatus?: number | null; metaCode?: number | null; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "MetaUnconfirmedError";
    this.kind = kind;
    this.httpStatus = options.httpStatus ?? null;
    this.metaCode = options.metaCode ?? null;
  }
}

/** No connection was ever made (refused, DNS failure, connect time-out): nothing went out. */
export class MetaUnavailableError extends Error {
  /** The system error code, e.g. ECONNREFUSED, ENOTFOUND; null for a connect time-out. */
  readonly errno: string | null;

  constructor(message: string, options: { errno?: string | null; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "MetaUnavailableError";
    this.errno = options.errno ?? null;
  }
}

/** Some page of the template listing could not be read, so the full catalogue is unknown. */
export class MetaCatalogueUnavailableError extends Error {
  /** 1-based number of the page that failed. */
  readonly page: number;

  constructor(message: string, options: { page: number; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = "MetaCatalogueUnavailableError";
    this.page = options.page;
  }
}

export type MetaReadErrorKind = "network" | "timeout" | "server_error" | "bad_response" | "too_large" | "untrusted_url";

/**
 * A read (a business number's fields, a media's metadata or bytes) got no usable answer: no connection, a time-out,
 * a 5xx, an answer that is not Meta's shape, a download over the size cap, or a media URL on a host the client does
 * not send its token to. Meta's own refusals (4xx with its envelope) are MetaApiError instead.
 */
export class MetaReadError extends Error {
  readonly kind: MetaReadErrorKind;
  /** HTTP status when an answer came at all. */
  readonly httpStatus: number | null;

  constructor(kind: MetaReadErrorKind, message: string, options: { httpStatus?: number | null; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "MetaReadError";
    this.kind = kind;
    this.httpStatus = options.httpStatus ?? null;
  }
}
