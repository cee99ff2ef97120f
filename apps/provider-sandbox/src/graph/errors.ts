import { randomBytes } from "node:crypto";

/** What a Graph handler answers: an HTTP status, a JSON body and optional headers. */
export interface GraphResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Titles Meta puts in `message` as `(#code) Title` (reference C.2). */
export const META_TITLES = {
  1: "An unknown error occurred",
  100: "Invalid parameter",
  130429: "Rate limit hit",
  131000: "Something went wrong",
  131008: "Required parameter is missing",
  131009: "Parameter value is not valid",
  131026: "Message undeliverable",
  131047: "Re-engagement message",
  // Meta's words for a contact who stopped marketing messages (reported in a `failed` status; sync through a fault).
  131050:
    "Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.",
  131056: "(Business Account, Consumer Account) pair rate limit hit",
  // meta-2026 §1.9: an authentication template with a one-tap, zero-tap or copy-code button sent to a BSUID.
  131062: "Business-scoped User ID (BSUID) recipients are not supported for this message.",
  132000: "Number of parameters does not match the expected number of params",
  132001: "Template name does not exist in the translation",
  132005: "Translated text too long",
  132012: "Parameter format does not match format in the created template",
  132015: "Template is paused",
  132016: "Template is disabled",
  132018: "There was an issue with the parameters in your template.",
  // Brazil payments (meta-2026 §6.4): listed on Meta's BR orders page; the Cloud API numbers are unverified (App. B 10).
  2040: "Message not supported for this user",
  2046: "Invalid order status transition",
  2047: "Order cancellation failed",
  // Marketing Messages API (meta-2026 §7.2, §7.4). 131055 is Meta's "Method not allowed"; the sandbox also answers it
  // to a STRICT send of a WABA not onboarded (its own choice: Meta's code for that case is unverified).
  131055: "Method not allowed",
  // Meta's title for 134100 is not in the reference: the wording is the sandbox's (utility/authentication template).
  134100: "Only marketing templates are supported",
  // Reachable only through an `error` fault (POST /_sandbox/faults), for refusals the sandbox has no rule for.
  // 134101/134102: the template's ad sync (about 10 min after creation, again after 7 days idle); 131063: the WABA
  // disabled marketing templates on Cloud API (meta-2026 §7.4).
  134101: "Template is still syncing",
  134102: "Template not eligible",
  131063: "Marketing templates disabled for Cloud API",
  // Conversation Routing thread control (meta-late-2026 §5): an action the thread's ownership does not allow. Meta's
  // code for it is not in the reference (unverified): the gateway reads this one.
  2494191: "Thread control action not permitted",
  368: "Temporarily blocked for policies violations",
  130472: "User's number is part of an experiment",
  131031: "Account has been locked",
  131042: "Business eligibility payment issue",
  131048: "Spam rate limit hit",
  131049: "This message was not delivered to maintain healthy ecosystem engagement.",
} as const satisfies Record<number, string>;

export type MetaCode = keyof typeof META_TITLES;

/** Meta's trace ids look like `Az8or2yhqkZfEZ-_4Qn_Bam`: 23 base64url characters. */
export function fbtraceId(): string {
  return randomBytes(18).toString("base64url").slice(0, 23);
}

/**
 * A refusal with Meta's WhatsApp error envelope. Every code answers HTTP 400 except 131000 (500), as Meta's
 * error-code table does; 132001 is sometimes seen with 404 in the wild, the sandbox always uses 400. Meta does not
 * state the HTTP status of 131062 (meta-2026 Appendix B.2): 400 is assumed.
 */
export class MetaError extends Error {
  constructor(
    readonly code: MetaCode,
    readonly details: string,
    readonly extra: { errorSubcode?: number; httpStatus?: number } = {},
  ) {
    super(`(#${code}) ${META_TITLES[code]}`);
    this.name = "MetaError";
  }

  toResult(): GraphResult {
    const error: Record<string, unknown> = {
      message: this.message,
      type: "OAuthException",
      code: this.code,
      error_data: { messaging_product: "whatsapp", details: this.details },
    };
    if (this.extra.errorSubcode !== undefined) error.error_subcode = this.extra.errorSubcode;
    error.fbtrace_id = fbtraceId();
    return { status: this.extra.httpStatus ?? (this.code === 131000 ? 500 : 400), body: { error } };
  }
}

/** Meta's answer to a missing or bad token: HTTP 401, code 190, no `error_data`. */
export function invalidTokenResult(present: boolean): GraphResult {
  const message = present
    ? "Invalid OAuth access token - Cannot parse access token"
    : "An active access token must be used to query information about the current user.";
  return {
    status: 401,
    headers: { "WWW-Authenticate": `OAuth "Facebook Platform" "invalid_token" "${message}"` },
    body: { error: { message, type: "OAuthException", code: 190, fbtrace_id: fbtraceId() } },
  };
}

/** Meta's answer to a path it does not serve (unknown node or edge). */
export function unsupportedRequestResult(method: string, id: string): GraphResult {
  return {
    status: 400,
    body: {
      error: {
        message: `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
        type: "GraphMethodException",
        code: 100,
        error_subcode: 33,
        fbtrace_id: fbtraceId(),
      },
    },
  };
}
