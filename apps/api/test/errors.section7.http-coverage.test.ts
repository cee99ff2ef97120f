import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import request from "supertest";
import { createAccount, createApiKey, missingScopeMessage } from "@gw/core/accounts";
import { listWabaHealth } from "@gw/core/health";
import { suppressContact } from "@gw/core/suppressions";
import { createDb } from "@gw/db";
import { ERROR_REGISTRY, isErrorCode, type ErrorCode } from "@gw/errors";
import { createRedis } from "@gw/jobs";
import { createTempDatabase, eventually, freePort, silentLogger, testEnv, testActor } from "@gw/testkit";
import { createApp } from "../src/app.ts";
import { loadApiConfig } from "../src/config.ts";
import { buildApiDeps, closeApiDeps } from "../src/container.ts";
import {
  ACCESS_TOKEN,
  APP_SECRET,
  VERIFY_TOKEN,
  contactWrites,
  createTestAccount,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";

/*
 * Spec section 7, for POST /public/v1/messages, POST /public/v1/validate, GET /public/v1/window/{to} and
 * GET /public/v1/templates: every error code those endpoints can answer is PRODUCED here through HTTP
 * (supertest against the real app, provider = the sandbox, Meta refusals through packages/errors/src/meta.ts),
 * and each answer is asserted exactly: HTTP status, body `{success:false, error:{code, message}}` and nothing
 * else, `message` a Portuguese sentence equal to the registry's (packages/errors/src/registry.ts) or, where the
 * service gives a more specific sentence, to that exact sentence.
 *
 * Codes considered: the spec's section 7 table (SECTION_7 below) plus the codes our registry adds
 * (docs/decisions.md "Codes added to section 7"). Registry codes that do NOT apply to these four endpoints are in
 * NOT_FOR_THESE_ENDPOINTS with the reason. The last test checks that the table below lists exactly
 * registry − NOT_FOR_THESE_ENDPOINTS (+ HTTPValidationError), that statuses agree with the registry and that
 * every test title cited exists in this file, so a new registry code without coverage fails.
 *
 * "also:" names an older test that produces the code through HTTP without asserting the whole envelope.
 * Files: S = apps/api/test/messages.send.errors.test.ts, I = …/messages.send.idempotency.test.ts,
 * A = …/api.auth.test.ts, T = …/templates.catalogue.endpoint.test.ts, L = …/messages.send.validation-limits.test.ts.
 *
 * BEGIN COVERAGE
 * code                           | status | endpoints                             | test(s) in this file (also: older file)
 * invalid_api_key                | 401    | messages, validate, window, templates | "401 invalid_api_key on %s" (also: A, S)
 * insufficient_scope             | 403    | messages, validate, window, templates | "403 insufficient_scope on %s: a key without the operation's scope" (also: api.scopes.test.ts)
 * invalid_recipient              | 400    | messages                              | "400 invalid_recipient: a number that is not a valid phone" (also: S)
 * empty_message                  | 400    | messages                              | "400 empty_message: neither text nor template" (also: S)
 * pix_needs_template             | 400    | messages                              | "400 pix_needs_template: pix_order with free text" (also: S)
 * invalid_template_status        | 400    | templates                             | "400 invalid_template_status: unknown status filter" (also: T)
 * no_connected_number            | 400    | messages, templates                   | "400 no_connected_number: account without a business number (%s)"; "400 no_connected_number: phone_number_id of another account (%s)" (also: S, T)
 * idempotency_in_flight          | 409    | messages                              | "409 idempotency_in_flight while the first call with the key waits for the provider" (also: I)
 * idempotency_conflict           | 409    | messages                              | "409 idempotency_conflict: same key, other content" (also: I)
 * idempotency_legacy_unverified  | 409    | messages                              | "409 idempotency_legacy_unverified: key of a record stored without fingerprint" (also: I)
 * order_reference_taken          | 409    | messages                              | "409 order_reference_taken: a second Pix order with a reference already used in the account"
 * payload_too_large              | 413    | messages, validate                    | "413 payload_too_large on %s"
 * bad_request                    | 400    | messages, validate, window            | "400 bad_request on %s: the request cannot be read" (also: http.bad-input.envelope.test.ts)
 * outside_24h_window             | 422    | messages                              | "422 outside_24h_window (pre-check): free text to a contact who never wrote"; "422 outside_24h_window from the provider's 131047" (also: S)
 * recipient_unreachable          | 422    | messages                              | "422 recipient_unreachable: the sandbox refuses an unreachable recipient (131026)"; "422 recipient_unreachable from the provider's 131026" (also: S)
 * recipient_opted_out            | 422    | messages                              | "422 recipient_opted_out (pre-check): marketing template to a contact on the suppression list"; "422 recipient_opted_out from the provider's 131050" (also: messages.send.opt-out.test.ts)
 * template_params_mismatch       | 422    | messages                              | "422 template_params_mismatch (pre-check): wrong number of variables"; "422 template_params_mismatch from the provider's 132000"; "422 template_params_mismatch from the provider's 100 about a parameter name" (also: S)
 * template_not_found             | 422    | messages                              | "422 template_not_found (pre-check): unknown template name"; "422 template_not_found from the provider's 132001" (also: S)
 * template_paused                | 422    | messages                              | "422 template_paused (pre-check): PAUSED template"; "422 template_paused from the provider's 132015" (also: S)
 * invalid_template               | 422    | messages                              | "422 invalid_template (pre-check): PENDING template"; "422 invalid_template (pre-check): REJECTED template"; "422 invalid_template (pre-check): DISABLED template"; "422 invalid_template from the provider's 132016" (also: S)
 * marketing_experiment           | 422    | messages                              | "422 marketing_experiment from the provider's 130472" (also: S)
 * delivery_limited               | 422    | messages                              | "422 delivery_limited from the provider's 131049" (also: S)
 * payment_issue                  | 422    | messages                              | "422 payment_issue from the provider's 131042" (also: S)
 * account_restricted             | 422    | messages                              | "422 account_restricted from the provider's 131031"; "422 account_restricted from the provider's 131048"; "422 account_restricted from the provider's 368" (also: S)
 * account_disabled               | 422    | messages                              | "422 account_disabled (pre-check): Meta deleted the number's WhatsApp Business Account" (also: health.account-events.e2e.test.ts)
 * variable_too_long              | 422    | messages                              | "422 variable_too_long (pre-check): a variable over 1024 characters"; "422 variable_too_long: the sandbox refuses a body over 1024 characters after substitution (132005)"; "422 variable_too_long from the provider's 132005" (also: S)
 * variable_bad_format            | 422    | messages                              | "422 variable_bad_format (pre-check): a variable with a line break"; "422 variable_bad_format from the provider's 132018" (also: S)
 * invalid_pix_order              | 422    | messages                              | "422 invalid_pix_order (pre-check): order-details template without pix_order"; "422 invalid_pix_order from the provider's 131009 about the order" (also: S)
 * template_required_header_media | 422    | messages                              | "422 template_required_header_media (pre-check): IMAGE header without header_media"; "422 template_required_header_media from the provider's 132012 (received UNKNOWN)" (also: S)
 * template_header_mismatch       | 422    | messages                              | "422 template_header_mismatch (pre-check): document sent to an IMAGE header"; "422 template_header_mismatch from the provider's 132012 (received DOCUMENT)" (also: S)
 * template_format_unsupported    | 422    | messages                              | "422 template_format_unsupported (pre-check): carousel template"; "422 template_format_unsupported (pre-check): LOCATION header" (also: S)
 * invalid_otp                    | 422    | messages                              | "422 invalid_otp (pre-check): authentication template without otp_code"; "422 invalid_otp from the provider's 131008 about the OTP" (also: S)
 * recipient_phone_required       | 422    | messages                              | "422 recipient_phone_required (pre-check): authentication template to a BSUID"; "422 recipient_phone_required from the provider's 131062"
 * media_unavailable              | 422    | messages                              | "422 media_unavailable (pre-check): a media_id that is no upload of this account"
 * media_type_mismatch            | 422    | messages                              | "422 media_type_mismatch (pre-check): a PDF upload sent as an image"
 * reaction_target_not_found      | 422    | messages                              | "422 reaction_target_not_found (pre-check): a reaction to a message the contact did not send"
 * message_too_old                | 422    | messages                              | "422 message_too_old (pre-check): a reaction to a message older than 30 days" (also: messages.read.endpoint.test.ts)
 * provider_rejected              | 422    | messages                              | "422 provider_rejected from the provider's 100"
 * template_syncing               | 422    | messages                              | "422 template_syncing from the provider's 134101" (also: messages.marketing-messages.e2e.test.ts)
 * template_not_eligible          | 422    | messages                              | "422 template_not_eligible from the provider's 134102" (also: messages.marketing-messages.e2e.test.ts)
 * marketing_messages_unavailable | 422    | messages                              | "422 marketing_messages_unavailable from the provider's 131055" (also: messages.marketing-messages.e2e.test.ts)
 * marketing_messages_required    | 422    | messages                              | "422 marketing_messages_required from the provider's 131063"
 * api_rate_limited               | 429    | messages, validate, window, templates | "429 api_rate_limited with Retry-After on %s" (also: S)
 * rate_limited                   | 429    | messages                              | "429 rate_limited from the provider's 130429"; "429 rate_limited from the provider's 131056" (also: S)
 * internal_error                 | 500    | messages, validate, window, templates | "500 internal_error on %s when the database cannot answer"
 * service_unavailable            | 503    | messages, validate, window, templates | "503 service_unavailable with Retry-After on %s when the database cannot be reached"
 * templates_unavailable          | 503    | messages, templates                   | "503 templates_unavailable on POST /public/v1/messages when the catalogue cannot be read"; "503 templates_unavailable on GET /public/v1/templates when a catalogue page fails" (also: S, T)
 * send_unconfirmed               | 503    | messages                              | "409 idempotency_in_flight while the first call with the key waits for the provider"; "503 send_unconfirmed when the provider %s, replayed with the same key" (also: I)
 * provider_unavailable           | 503    | messages                              | "503 provider_unavailable from the provider's 1"; "503 provider_unavailable: the provider refuses our access token (190)"; "503 provider_unavailable: the provider cannot be reached (connection refused)"
 * HTTPValidationError            | 422    | messages, validate, window, templates | "422 HTTPValidationError on %s" (also: L)
 * END COVERAGE
 */

/** The codes of spec section 7's table, copied by hand from the spec. */
const SECTION_7 = [
  "invalid_recipient",
  "empty_message",
  "pix_needs_template",
  "invalid_template_status",
  "no_connected_number",
  "invalid_api_key",
  "not_found",
  "idempotency_in_flight",
  "idempotency_conflict",
  "idempotency_legacy_unverified",
  "outside_24h_window",
  "recipient_unreachable",
  "template_params_mismatch",
  "template_not_found",
  "template_paused",
  "invalid_template",
  "marketing_experiment",
  "delivery_limited",
  "payment_issue",
  "account_restricted",
  "variable_too_long",
  "variable_bad_format",
  "invalid_pix_order",
  "template_required_header_media",
  "template_header_mismatch",
  "template_format_unsupported",
  "invalid_otp",
  "api_rate_limited",
  "rate_limited",
  "templates_unavailable",
] as const;

/** Registry codes that none of the four endpoints can answer, and why. */
const NOT_FOR_THESE_ENDPOINTS: Partial<Record<ErrorCode, string>> = {
  campaign_state_conflict: "the campaign controls only (POST /campaigns/{id}/start, pause, resume, cancel)",
  campaign_count_mismatch: "POST /campaigns/{id}/start only",
  campaign_empty: "POST /campaigns/{id}/start only",
  not_found:
    "404 of GET/POST /deliveries/{id} (spec 4.6, 4.7) and of unknown routes; none of the four endpoints looks anything up by id",
  delivery_not_retryable: "POST /deliveries/{id}/retry only",
  media_type_unsupported: "POST /media only (media.conformance.e2e.test.ts)",
  media_expired: "GET /media/{media_id} only (media.conformance.e2e.test.ts)",
  media_upload_limit: "POST /media only (media.conformance.e2e.test.ts)",
  media_download_limit: "GET /media/{media_id} only (media.transfer-slots.test.ts)",
  media_busy: "POST /media and GET /media/{media_id} only (media.conformance.e2e.test.ts)",
  integration_limit_reached: "POST /integrations only (integrations.api.limit.test.ts)",
  order_update_in_flight: "POST /orders/{reference_id}/status only (issue 28; orders.claims.concurrency.test.ts)",
  order_transition_invalid: "POST /orders/{reference_id}/status only (issue 28; orders.transitions.test.ts)",
  order_cancel_refused: "POST /orders/{reference_id}/status only (issue 28; orders.transitions.test.ts)",
  thread_control_not_permitted:
    "POST /conversations/{recipient}/thread-control only (issue 37; conversations.thread-control.e2e.test.ts)",
  payment_not_supported:
    "Meta 2040 on an order message: POST /orders/{reference_id}/status, and a Pix send only when Meta answers 2040 (errors.meta-mapping.table.test.ts)",
};

/** Not an envelope code: spec 7's body for request-validation failures. */
const VALIDATION_BODY = "HTTPValidationError";

const PORTUGUESE = /^[A-ZÀ-Ú].*[.!?]$/u;
const RECIPIENT = "5511987654321";
const UNREACHABLE = "5511900000077";
const HELLO = { template: "hello_world", language: "en_US" } as const;
const PIX_ORDER = {
  reference_id: "pedido-1",
  pix_code: "00020101021226700014br.gov.bcb.pix2548pix",
  merchant_name: "Loja Exemplo",
  key: "39580525000189",
  items: [{ name: "Bolo", amount: 5000 }],
};

const ENDPOINTS = [
  "POST /public/v1/messages",
  "POST /public/v1/validate",
  "GET /public/v1/window/{to}",
  "GET /public/v1/templates",
] as const;
type Endpoint = (typeof ENDPOINTS)[number];

/** A call to one of the four endpoints that succeeds when the key is good and nothing else is wrong. */
function call(
  app: Parameters<typeof request>[0],
  endpoint: Endpoint,
  headers: Record<string, string> = {},
): request.Test {
  switch (endpoint) {
    case "POST /public/v1/messages":
      return request(app)
        .post("/public/v1/messages")
        .set(headers)
        .send({ to: RECIPIENT, ...HELLO });
    case "POST /public/v1/validate":
      return request(app).post("/public/v1/validate").set(headers).send({ to: "11987654321" });
    case "GET /public/v1/window/{to}":
      return request(app).get(`/public/v1/window/${RECIPIENT}`).set(headers);
    case "GET /public/v1/templates":
      return request(app).get("/public/v1/templates").set(headers);
  }
}

/** The exact error envelope of spec 7; `message` defaults to the registry's sentence for `code`. */
function expectEnvelope(
  res: request.Response,
  status: number,
  code: ErrorCode,
  message: string = ERROR_REGISTRY[code].message,
): void {
  expect({ status: res.status, body: res.body as unknown }).toStrictEqual({
    status,
    body: { success: false, error: { code, message } },
  });
  expect(ERROR_REGISTRY[code].status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(message).toMatch(PORTUGUESE);
}

interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Spec 7's `HTTPValidationError`: `{detail: [{loc, msg, type, input?, ctx?}]}`, nothing else. */
function expectValidationError(res: request.Response, first: { loc: (string | number)[]; type: string }): void {
  expect(res.status).toBe(422);
  expect(Object.keys(res.body as object)).toEqual(["detail"]);
  const detail = (res.body as { detail: ValidationItem[] }).detail;
  expect(detail.length).toBeGreaterThanOrEqual(1);
  for (const item of detail) {
    expect(Object.keys(item).filter((k) => !["loc", "msg", "type", "input", "ctx"].includes(k))).toEqual([]);
    expect(item.msg).toMatch(PORTUGUESE);
  }
  expect(detail[0]).toMatchObject(first);
}

/** A key no account has, in the right format (so the lookup reaches the database). */
const UNKNOWN_KEY = `pt_live_${"A".repeat(43)}`;

describe("section 7 error codes through HTTP, on the default stack (API + sandbox + Postgres + Redis)", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  const send = (body: Record<string, unknown>, acc: TestAccount = account) =>
    request(gateway.app).post("/public/v1/messages").set(acc.auth).send(body);
  const sendWithKey = (key: string, body: Record<string, unknown>) =>
    request(gateway.app).post("/public/v1/messages").set(account.auth).set("Idempotency-Key", key).send(body);

  async function pendingFaults(): Promise<unknown[]> {
    const res = await fetch(`${gateway.sandbox.url}/_sandbox/faults`);
    return ((await res.json()) as { faults: unknown[] }).faults;
  }

  beforeAll(async () => {
    gateway = await startTestGateway({
      env: { API_RATE_LIMIT_POINTS: "10000" },
      sandbox: { unreachable: [UNREACHABLE] },
    });
    account = await createTestAccount(gateway.db);
  });
  afterEach(async () => {
    // A test that failed before its send must not leave its fault for the next one.
    if ((await pendingFaults()).length > 0) await fetch(`${gateway.sandbox.url}/_sandbox/reset`, { method: "POST" });
  });
  afterAll(async () => {
    await gateway.close();
  });

  describe("401", () => {
    it.each(ENDPOINTS.map((e) => [e] as const))("401 invalid_api_key on %s", async (endpoint) => {
      expectEnvelope(await call(gateway.app, endpoint), 401, "invalid_api_key");
      expectEnvelope(
        await call(gateway.app, endpoint, { Authorization: `Bearer ${UNKNOWN_KEY}` }),
        401,
        "invalid_api_key",
      );
    });
  });

  describe("403", () => {
    it.each(ENDPOINTS.map((e) => [e] as const))(
      "403 insufficient_scope on %s: a key without the operation's scope",
      async (endpoint) => {
        // usage:read only: none of the four endpoints (messages:send for the send, messages:read for the others).
        const { key } = await createApiKey(
          { db: gateway.db },
          { actor: testActor, accountId: account.accountId, scopes: ["usage:read"] },
        );
        const scope = endpoint === "POST /public/v1/messages" ? "messages:send" : "messages:read";
        expectEnvelope(
          await call(gateway.app, endpoint, { Authorization: `Bearer ${key}` }),
          403,
          "insufficient_scope",
          missingScopeMessage(scope),
        );
      },
    );
  });

  describe("400", () => {
    it("400 invalid_recipient: a number that is not a valid phone", async () => {
      expectEnvelope(
        await send({ to: "12345", text: "oi" }),
        400,
        "invalid_recipient",
        "O número 12345 não é válido para envio.",
      );
    });

    it("400 empty_message: neither text nor template", async () => {
      expectEnvelope(await send({ to: RECIPIENT }), 400, "empty_message");
    });

    it("400 pix_needs_template: pix_order with free text", async () => {
      expectEnvelope(await send({ to: RECIPIENT, text: "oi", pix_order: PIX_ORDER }), 400, "pix_needs_template");
    });

    it("400 invalid_template_status: unknown status filter", async () => {
      expectEnvelope(
        await request(gateway.app).get("/public/v1/templates?status=APROVADO").set(account.auth),
        400,
        "invalid_template_status",
      );
    });

    it.each([["POST /public/v1/messages"], ["GET /public/v1/templates"]] as const)(
      "400 no_connected_number: account without a business number (%s)",
      async (endpoint) => {
        const bare = await createAccount({ db: gateway.db }, { actor: testActor, name: "sem número" });
        const key = await createApiKey({ db: gateway.db }, { actor: testActor, accountId: bare.id });
        expectEnvelope(
          await call(gateway.app, endpoint, { Authorization: `Bearer ${key.key}` }),
          400,
          "no_connected_number",
        );
      },
    );

    it.each([["POST /public/v1/messages"], ["GET /public/v1/templates"]] as const)(
      "400 no_connected_number: phone_number_id of another account (%s)",
      async (endpoint) => {
        const other = await createTestAccount(gateway.db);
        const id = other.phoneNumberId;
        if (endpoint === "POST /public/v1/messages") {
          expectEnvelope(
            await send({ to: RECIPIENT, ...HELLO, phone_number_id: id }),
            400,
            "no_connected_number",
            `O número ${id} não está conectado a esta conta.`,
          );
        } else {
          expectEnvelope(
            await request(gateway.app).get(`/public/v1/templates?phone_number_id=${id}`).set(account.auth),
            400,
            "no_connected_number",
          );
        }
      },
    );

    // Spec 4.3 allows only 401/422/429 on the window: no number means no window, a foreign number is a bad query.
    it("window: an account without a business number gets open:false; another account's phone_number_id is a 422 on the query", async () => {
      const bare = await createAccount({ db: gateway.db }, { actor: testActor, name: "sem número" });
      const key = await createApiKey({ db: gateway.db }, { actor: testActor, accountId: bare.id });
      const closed = await request(gateway.app)
        .get(`/public/v1/window/${RECIPIENT}`)
        .set({ Authorization: `Bearer ${key.key}` });
      expect(closed.status).toBe(200);
      expect(closed.body).toEqual({
        success: true,
        data: { to: RECIPIENT, phone_number_id: null, open: false, expires_at: null, last_inbound_at: null },
      });

      const other = await createTestAccount(gateway.db);
      const foreign = await request(gateway.app)
        .get(`/public/v1/window/${RECIPIENT}?phone_number_id=${other.phoneNumberId}`)
        .set(account.auth);
      expect(foreign.status).toBe(422);
      expect(foreign.body).toEqual({
        detail: [
          {
            loc: ["query", "phone_number_id"],
            msg: "O número não está conectado a esta conta.",
            type: "value_error",
            input: other.phoneNumberId,
          },
        ],
      });
    });
  });

  describe("409 and the unconfirmed sends", () => {
    it("409 idempotency_in_flight while the first call with the key waits for the provider", async () => {
      const body = { to: "5511911120001", ...HELLO };
      const postsToMessages = async () =>
        (await sandboxControl.requests(gateway)).filter((r) => r.method === "POST" && r.path.endsWith("/messages"))
          .length;
      const before = await postsToMessages();
      // The sandbox keeps the first send's connection open for 1.5 s, then drops it without an answer.
      await sandboxControl.fault(gateway, { mode: "timeout", count: 1, route: "messages", delay_ms: 1500 });
      const first = sendWithKey("in-flight-1", body).then((res) => res);
      await eventually(async () => (await postsToMessages()) > before);

      expectEnvelope(await sendWithKey("in-flight-1", body), 409, "idempotency_in_flight");

      // The first call was never confirmed by the provider: 503 send_unconfirmed, and so is every repeat.
      const settled = await first;
      expectEnvelope(settled, 503, "send_unconfirmed");
      const repeat = await sendWithKey("in-flight-1", body);
      expectEnvelope(repeat, 503, "send_unconfirmed");
      expect(repeat.headers["idempotent-replayed"]).toBe("true");
      expect(await postsToMessages()).toBe(before + 1);
    });

    it("409 idempotency_conflict: same key, other content", async () => {
      const first = await sendWithKey("conflict-7", { to: "5511911120002", ...HELLO });
      expect(first.status).toBe(200);
      expectEnvelope(await sendWithKey("conflict-7", { to: "5511911120003", ...HELLO }), 409, "idempotency_conflict");
    });

    it("409 order_reference_taken: a second Pix order with a reference already used in the account", async () => {
      const pix = (to: string) => ({
        to,
        template: "cobranca_pix",
        variables: ["Maria", "12345"],
        pix_order: { ...PIX_ORDER, reference_id: "pedido-409" },
      });
      const postsToMessages = async () =>
        (await sandboxControl.requests(gateway)).filter((r) => r.method === "POST" && r.path.endsWith("/messages"))
          .length;
      expect((await send(pix("5511911120011"))).status).toBe(200);
      const before = await postsToMessages();
      expectEnvelope(await send(pix("5511911120012")), 409, "order_reference_taken");
      // Refused before Meta: nothing reached the provider.
      expect(await postsToMessages()).toBe(before);
    });

    it("409 idempotency_legacy_unverified: key of a record stored without fingerprint", async () => {
      // A row as the service wrote them before fingerprints existed.
      await gateway.db.idempotencyKey.create({
        data: {
          accountId: account.accountId,
          key: "legacy-7",
          fingerprint: null,
          state: "completed",
          responseStatus: 200,
          responseBody: "{}",
          expiresAt: new Date(Date.now() + 86_400_000),
        },
      });
      expectEnvelope(
        await sendWithKey("legacy-7", { to: "5511911120004", ...HELLO }),
        409,
        "idempotency_legacy_unverified",
      );
    });

    it.each([
      ["drops the connection after receiving the send", { mode: "reset" }, "unconfirmed-reset"],
      ["answers 500", { mode: "500" }, "unconfirmed-500"],
      ["does not answer before META_TIMEOUT_MS", { mode: "timeout", delay_ms: 5000 }, "unconfirmed-timeout"],
    ] as const)("503 send_unconfirmed when the provider %s, replayed with the same key", async (_what, fault, key) => {
      await sandboxControl.fault(gateway, { ...fault, count: 1, route: "messages" });
      const body = { to: "5511911120005", ...HELLO };
      const first = await sendWithKey(key, body);
      expectEnvelope(first, 503, "send_unconfirmed");
      const again = await sendWithKey(key, body);
      expectEnvelope(again, 503, "send_unconfirmed");
      expect(again.headers["idempotent-replayed"]).toBe("true");
    });
  });

  describe("422 refused before the provider: the send kinds of issue 27", () => {
    const CONTACT = "5511911190001";
    let inbound = "";
    let old = "";
    beforeAll(async () => {
      const ago = Math.floor(Date.now() / 1000) - 31 * 24 * 3600;
      old = (
        await contactWrites(gateway, {
          phone_number_id: account.phoneNumberId,
          from: CONTACT,
          type: "text",
          text: "antiga",
          timestamp: ago,
        })
      ).id;
      inbound = (
        await contactWrites(gateway, {
          phone_number_id: account.phoneNumberId,
          from: CONTACT,
          type: "text",
          text: "oi",
        })
      ).id;
      await gateway.db.sql.query({
        text: `INSERT INTO account_media (account_id, phone_number_id, media_id, origin, type, mime_type, expires_at)
          VALUES ($1::uuid, $2, '777000111', 'uploaded', 'document', 'application/pdf', now() + interval '30 days')`,
        values: [account.accountId, account.phoneNumberId],
      });
    });

    it("422 media_unavailable (pre-check): a media_id that is no upload of this account", async () => {
      const res = await request(gateway.app)
        .post("/public/v1/messages")
        .set(account.auth)
        .send({ to: CONTACT, media: { type: "image", media_id: "123123123" } });
      expectEnvelope(res, 422, "media_unavailable");
    });

    it("422 media_type_mismatch (pre-check): a PDF upload sent as an image", async () => {
      const res = await request(gateway.app)
        .post("/public/v1/messages")
        .set(account.auth)
        .send({ to: CONTACT, media: { type: "image", media_id: "777000111" } });
      expectEnvelope(res, 422, "media_type_mismatch", "A mídia 777000111 é um documento, não uma imagem.");
    });

    it("422 reaction_target_not_found (pre-check): a reaction to a message the contact did not send", async () => {
      expect(inbound).not.toBe("");
      const res = await request(gateway.app)
        .post("/public/v1/messages")
        .set(account.auth)
        .send({ to: CONTACT, reaction: { message_id: "wamid.OUTRA", emoji: "👍" } });
      expectEnvelope(res, 422, "reaction_target_not_found");
    });

    it("422 message_too_old (pre-check): a reaction to a message older than 30 days", async () => {
      const res = await request(gateway.app)
        .post("/public/v1/messages")
        .set(account.auth)
        .send({ to: CONTACT, reaction: { message_id: old, emoji: "👍" } });
      expectEnvelope(
        res,
        422,
        "message_too_old",
        "A mensagem foi recebida há mais de 30 dias; o WhatsApp não entrega reações a mensagens com mais de 30 dias.",
      );
    });
  });

  describe("413", () => {
    it.each([["POST /public/v1/messages"], ["POST /public/v1/validate"]] as const)(
      "413 payload_too_large on %s",
      async (endpoint) => {
        const path = endpoint === "POST /public/v1/messages" ? "/public/v1/messages" : "/public/v1/validate";
        const res = await request(gateway.app)
          .post(path)
          .set(account.auth)
          .send({ to: RECIPIENT, text: "a".repeat(300 * 1024) });
        expectEnvelope(res, 413, "payload_too_large");
      },
    );
  });

  describe("400 bad_request (the HTTP layer cannot read the request)", () => {
    const UNDECODABLE_URL = "A URL contém uma sequência de escape (%) inválida.";
    const NOT_INFLATABLE = "O corpo não pôde ser descompactado conforme o Content-Encoding informado.";
    it.each([
      ["POST /public/v1/messages", "/public/v1/messages"],
      ["POST /public/v1/validate", "/public/v1/validate"],
      ["GET /public/v1/window/{to}", "/public/v1/window/%"],
    ] as const)("400 bad_request on %s: the request cannot be read", async (endpoint, path) => {
      const res = endpoint.startsWith("GET")
        ? await request(gateway.app).get(path).set(account.auth)
        : await request(gateway.app)
            .post(path)
            .set(account.auth)
            .set("Content-Type", "application/json")
            .set("Content-Encoding", "gzip")
            .send("not gzip");
      expectEnvelope(res, 400, "bad_request", endpoint.startsWith("GET") ? UNDECODABLE_URL : NOT_INFLATABLE);
    });
  });

  describe("422 refused by the service's own pre-checks (the provider is not asked)", () => {
    it.each([
      [
        "422 outside_24h_window (pre-check): free text to a contact who never wrote",
        { to: "5511911130001", text: "oi" },
        "outside_24h_window",
        ERROR_REGISTRY.outside_24h_window.message,
      ],
      [
        "422 template_not_found (pre-check): unknown template name",
        { to: RECIPIENT, template: "nao_existe" },
        "template_not_found",
        "O template nao_existe não existe no idioma pt_BR para esta conta.",
      ],
      [
        "422 template_paused (pre-check): PAUSED template",
        { to: RECIPIENT, template: "aviso_promocao", variables: ["Maria"] },
        "template_paused",
        "O template aviso_promocao (pt_BR) está pausado pelo provedor e não pode ser enviado agora.",
      ],
      [
        "422 invalid_template (pre-check): PENDING template",
        { to: RECIPIENT, template: "novidades_semana", variables: ["Maria"] },
        "invalid_template",
        "O template novidades_semana (pt_BR) está com status PENDING; só templates aprovados (APPROVED) podem ser enviados.",
      ],
      [
        "422 invalid_template (pre-check): REJECTED template",
        { to: RECIPIENT, template: "oferta_relampago", variables: ["Maria", "R$ 10"] },
        "invalid_template",
        "O template oferta_relampago (pt_BR) está com status REJECTED; só templates aprovados (APPROVED) podem ser enviados.",
      ],
      [
        "422 invalid_template (pre-check): DISABLED template",
        { to: RECIPIENT, template: "campanha_antiga", variables: ["Maria"] },
        "invalid_template",
        "O template campanha_antiga (pt_BR) está com status DISABLED; só templates aprovados (APPROVED) podem ser enviados.",
      ],
      [
        "422 template_params_mismatch (pre-check): wrong number of variables",
        { to: RECIPIENT, template: "rastreio_pedido", variables: [], button_url_param: "ABC123" },
        "template_params_mismatch",
        "O template rastreio_pedido espera 1 variável, mas nenhuma foi enviada.",
      ],
      [
        "422 variable_too_long (pre-check): a variable over 1024 characters",
        { to: RECIPIENT, template: "rastreio_pedido", variables: ["x".repeat(1100)], button_url_param: "ABC123" },
        "variable_too_long",
        "A variável 1 do template rastreio_pedido tem 1100 caracteres; o máximo é 1024.",
      ],
      [
        "422 variable_bad_format (pre-check): a variable with a line break",
        { to: RECIPIENT, template: "rastreio_pedido", variables: ["linha 1\nlinha 2"], button_url_param: "ABC123" },
        "variable_bad_format",
        "A variável 1 do template rastreio_pedido contém quebra de linha ou tabulação, que o provedor não aceita.",
      ],
      [
        "422 invalid_pix_order (pre-check): order-details template without pix_order",
        { to: RECIPIENT, template: "cobranca_pix", variables: ["Maria", "12345"] },
        "invalid_pix_order",
        "O template cobranca_pix é de cobrança Pix e exige pix_order.",
      ],
      [
        "422 template_required_header_media (pre-check): IMAGE header without header_media",
        { to: RECIPIENT, template: "promo_imagem", variables: ["Maria", "20%"] },
        "template_required_header_media",
        "O template promo_imagem tem cabeçalho IMAGE; informe header_media com um link público do arquivo.",
      ],
      [
        "422 template_header_mismatch (pre-check): document sent to an IMAGE header",
        {
          to: RECIPIENT,
          template: "promo_imagem",
          variables: ["Maria", "20%"],
          header_media: { type: "document", link: "https://exemplo.com/a.pdf" },
        },
        "template_header_mismatch",
        'O cabeçalho do template promo_imagem é IMAGE, mas header_media.type é document; informe type "image".',
      ],
      [
        "422 template_format_unsupported (pre-check): carousel template",
        { to: RECIPIENT, template: "vitrine_carrossel", variables: ["Maria"] },
        "template_format_unsupported",
        "O template vitrine_carrossel não pode ser enviado pela API pública. O componente CAROUSEL não pode ser preenchido pela API pública.",
      ],
      [
        "422 template_format_unsupported (pre-check): LOCATION header",
        { to: RECIPIENT, template: "endereco_loja", variables: ["Maria"] },
        "template_format_unsupported",
        "O template endereco_loja não pode ser enviado pela API pública. O cabeçalho do tipo LOCATION não pode ser preenchido pela API pública.",
      ],
      [
        "422 invalid_otp (pre-check): authentication template without otp_code",
        { to: RECIPIENT, template: "codigo_verificacao" },
        "invalid_otp",
        "O template codigo_verificacao é de autenticação e exige o código em otp_code.",
      ],
      [
        "422 recipient_phone_required (pre-check): authentication template to a BSUID",
        { to: "BR.1502576394655843", template: "codigo_verificacao", otp_code: "482913" },
        "recipient_phone_required",
        "O template codigo_verificacao é de autenticação: o código só pode ser enviado ao número de telefone do destinatário, não ao seu ID de usuário (BSUID).",
      ],
    ] as const)("%s", async (_title, body, code, message) => {
      const before = (await sandboxControl.sent(gateway)).length;
      expectEnvelope(await send(body), 422, code, message);
      expect((await sandboxControl.sent(gateway)).length).toBe(before);
    });
  });

  describe("refused by the provider (sandbox), through the Meta error mapping", () => {
    it("422 recipient_unreachable: the sandbox refuses an unreachable recipient (131026)", async () => {
      expectEnvelope(await send({ to: UNREACHABLE, ...HELLO }), 422, "recipient_unreachable");
    });

    it("422 variable_too_long: the sandbox refuses a body over 1024 characters after substitution (132005)", async () => {
      // Each variable is within the per-parameter limit; the substituted body is not.
      const body = {
        to: RECIPIENT,
        template: "promo_imagem",
        header_media: { type: "image", link: "https://cdn.exemplo.com.br/p.jpg" },
        variables: ["a".repeat(600), "b".repeat(600)],
      };
      expectEnvelope(await send(body), 422, "variable_too_long");
    });

    // [title, Meta code injected by the sandbox, Meta's error_data.details, expected code]
    it.each([
      [
        "422 recipient_phone_required from the provider's 131062",
        131062,
        "Business-scoped User ID (BSUID) recipients are not supported for this message.",
        "recipient_phone_required",
      ],
      [
        "422 outside_24h_window from the provider's 131047",
        131047,
        "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
        "outside_24h_window",
      ],
      [
        "422 recipient_unreachable from the provider's 131026",
        131026,
        "Message Undeliverable.",
        "recipient_unreachable",
      ],
      [
        "422 template_params_mismatch from the provider's 132000",
        132000,
        "body: number of localizable_params (0) does not match the expected number of params (1)",
        "template_params_mismatch",
      ],
      [
        "422 template_params_mismatch from the provider's 100 about a parameter name",
        100,
        "Parameter name is missing or empty",
        "template_params_mismatch",
      ],
      [
        "422 template_not_found from the provider's 132001",
        132001,
        "template name (hello_world) does not exist in en_US",
        "template_not_found",
      ],
      [
        "422 template_paused from the provider's 132015",
        132015,
        "Template is paused due to low quality so it cannot be sent in a template message.",
        "template_paused",
      ],
      [
        "422 invalid_template from the provider's 132016",
        132016,
        "Template has been paused too many times due to low quality and is now permanently disabled.",
        "invalid_template",
      ],
      [
        "422 marketing_experiment from the provider's 130472",
        130472,
        "Injected by the sandbox.",
        "marketing_experiment",
      ],
      ["422 delivery_limited from the provider's 131049", 131049, "Injected by the sandbox.", "delivery_limited"],
      ["422 payment_issue from the provider's 131042", 131042, "Injected by the sandbox.", "payment_issue"],
      ["422 account_restricted from the provider's 131031", 131031, "Injected by the sandbox.", "account_restricted"],
      ["422 account_restricted from the provider's 131048", 131048, "Injected by the sandbox.", "account_restricted"],
      ["422 account_restricted from the provider's 368", 368, "Injected by the sandbox.", "account_restricted"],
      [
        "422 variable_too_long from the provider's 132005",
        132005,
        "body: text is longer than 1024 characters after parameter substitution",
        "variable_too_long",
      ],
      [
        "422 variable_bad_format from the provider's 132018",
        132018,
        "Param text cannot have new-line/tab characters or more than 4 consecutive spaces",
        "variable_bad_format",
      ],
      [
        "422 invalid_pix_order from the provider's 131009 about the order",
        131009,
        "order_details: total_amount.value (1) does not match subtotal + tax + shipping - discount (5000)",
        "invalid_pix_order",
      ],
      [
        "422 template_required_header_media from the provider's 132012 (received UNKNOWN)",
        132012,
        "header: Format mismatch, expected IMAGE, received UNKNOWN",
        "template_required_header_media",
      ],
      [
        "422 template_header_mismatch from the provider's 132012 (received DOCUMENT)",
        132012,
        "header: Format mismatch, expected IMAGE, received DOCUMENT",
        "template_header_mismatch",
      ],
      [
        "422 invalid_otp from the provider's 131008 about the OTP",
        131008,
        "otp: the one-time password is required in the body and in the URL button",
        "invalid_otp",
      ],
      ["422 provider_rejected from the provider's 100", 100, "Injected by the sandbox.", "provider_rejected"],
      // The Marketing Messages API's refusals (the number's route itself: messages.marketing-messages.e2e.test.ts).
      ["422 template_syncing from the provider's 134101", 134101, "Template is still syncing.", "template_syncing"],
      [
        "422 template_not_eligible from the provider's 134102",
        134102,
        "Template not eligible for the Marketing Messages API.",
        "template_not_eligible",
      ],
      [
        "422 marketing_messages_unavailable from the provider's 131055",
        131055,
        "Method not allowed.",
        "marketing_messages_unavailable",
      ],
      [
        "422 marketing_messages_required from the provider's 131063",
        131063,
        "Marketing templates disabled for Cloud API.",
        "marketing_messages_required",
      ],
      ["503 provider_unavailable from the provider's 1", 1, "Injected by the sandbox.", "provider_unavailable"],
      [
        "429 rate_limited from the provider's 130429",
        130429,
        "Cloud API message throughput has been reached.",
        "rate_limited",
      ],
      ["429 rate_limited from the provider's 131056", 131056, "Injected by the sandbox.", "rate_limited"],
    ] as const)("%s", async (title, metaCode, details, code) => {
      await sandboxControl.fault(gateway, { mode: "error", code: metaCode, details, count: 1, route: "messages" });
      const res = await send({ to: RECIPIENT, ...HELLO });
      // The HTTP status is the one the title states (spec 7's table), checked against the registry too.
      expectEnvelope(res, Number(title.slice(0, 3)), code);
      // Spec 7: 429 asks the caller to honour Retry-After (Meta sends none; docs/decisions.md: 30 s).
      expect(res.headers["retry-after"]).toBe(code === "rate_limited" ? "30" : undefined);
      expect(await pendingFaults()).toEqual([]);
    });
  });

  describe("422 recipient_opted_out", () => {
    it("422 recipient_opted_out (pre-check): marketing template to a contact on the suppression list", async () => {
      // A fresh account: its suppression list is its own.
      const fresh = await createTestAccount(gateway.db);
      await suppressContact({ db: gateway.db }, { accountId: fresh.accountId, contact: RECIPIENT, reason: "operator" });
      const coupon = {
        template: "cupom_desconto",
        variables: ["PROMO10", "10%"],
        coupon_code: "PROMO10",
        coupon_index: 1,
      };
      expectEnvelope(await send({ to: RECIPIENT, ...coupon }, fresh), 422, "recipient_opted_out");
      // A utility template to the same contact still goes.
      expect((await send({ to: RECIPIENT, ...HELLO }, fresh)).status).toBe(200);
    });

    it("422 recipient_opted_out from the provider's 131050", async () => {
      // A fresh account: the refusal puts RECIPIENT on its suppression list.
      const fresh = await createTestAccount(gateway.db);
      await sandboxControl.fault(gateway, { mode: "error", code: 131050, count: 1, route: "messages" });
      expectEnvelope(await send({ to: RECIPIENT, ...HELLO }, fresh), 422, "recipient_opted_out");
      expect(await pendingFaults()).toEqual([]);
    });
  });

  describe("422 account_disabled", () => {
    it("422 account_disabled (pre-check): Meta deleted the number's WhatsApp Business Account", async () => {
      const fresh = await createTestAccount(gateway.db);
      const webhook = (await (
        await fetch(`${gateway.sandbox.url}/_sandbox/account-update`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ waba_id: fresh.wabaId, event: "ACCOUNT_DELETED" }),
        })
      ).json()) as { webhook_status: number };
      expect(webhook.webhook_status).toBe(200);
      const [block] = await listWabaHealth({ db: gateway.db }, { accountId: fresh.accountId, blockedOnly: true });
      const since = `${(block?.sending_blocked_at ?? "").slice(0, 16).replace("T", " ")} UTC`;
      const before = (await sandboxControl.sent(gateway)).length;
      expectEnvelope(
        await send({ to: RECIPIENT, ...HELLO }, fresh),
        422,
        "account_disabled",
        `Os envios da conta WhatsApp Business ${fresh.wabaId} estão bloqueados desde ${since}: a conta WhatsApp Business ${fresh.wabaId} foi excluída na Meta (ACCOUNT_DELETED). Nada foi enviado; os envios voltam quando a Meta reativar ou reconectar a conta.`,
      );
      expect((await sandboxControl.sent(gateway)).length).toBe(before);
    });
  });

  describe("503 templates_unavailable", () => {
    it("503 templates_unavailable on POST /public/v1/messages when the catalogue cannot be read", async () => {
      // A fresh WABA: nothing cached, the send must read the catalogue.
      const fresh = await createTestAccount(gateway.db);
      await sandboxControl.fault(gateway, { mode: "500", count: 1, route: "templates" });
      const res = await send({ to: RECIPIENT, ...HELLO }, fresh);
      // Spec 7, 503 (messages): "repeat with the same key" — the send's own sentence says so.
      expectEnvelope(
        res,
        503,
        "templates_unavailable",
        "Não foi possível consultar o catálogo de templates agora; nada foi enviado. Repita a chamada com a mesma Idempotency-Key.",
      );
    });

    const catalogueFails = async () => {
      const fresh = await createTestAccount(gateway.db);
      await sandboxControl.fault(gateway, { mode: "500", count: 1, route: "templates" });
      return request(gateway.app).get("/public/v1/templates?status=ALL").set(fresh.auth);
    };

    it("503 templates_unavailable on GET /public/v1/templates when a catalogue page fails", async () => {
      const res = await catalogueFails();
      expect({ status: res.status, body: res.body as unknown }).toStrictEqual({
        status: 503,
        body: { success: false, error: { code: "templates_unavailable", message: expect.any(String) } },
      });
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
      expect((res.body as { error: { message: string } }).error.message).toMatch(PORTUGUESE);
    });

    it("503 templates_unavailable on GET /public/v1/templates: the sentence does not send a GET caller to an Idempotency-Key", async () => {
      // Spec 7 gives this endpoint's 503 its own meaning ("the full catalogue could not be obtained"), apart from
      // the send's ("template lookup unavailable; repeat with the same key"); GET /templates takes no key.
      const message = ((await catalogueFails()).body as { error: { message: string } }).error.message;
      expect(message).toMatch(PORTUGUESE);
      expect(message).not.toMatch(/idempotency/i);
    });
  });

  describe("422 HTTPValidationError (spec 7: request-validation failures)", () => {
    it.each([
      [
        "POST /public/v1/messages",
        () =>
          request(gateway.app)
            .post("/public/v1/messages")
            .set(account.auth)
            .send({ to: "1".repeat(33), text: "oi" }),
        ["body", "to"],
        "string_too_long",
      ],
      [
        "POST /public/v1/validate",
        () => request(gateway.app).post("/public/v1/validate").set(account.auth).send({ country: "BR" }),
        ["body", "to"],
        "missing",
      ],
      [
        "GET /public/v1/window/{to}",
        () =>
          request(gateway.app)
            .get(`/public/v1/window/${"1".repeat(33)}`)
            .set(account.auth),
        ["path", "to"],
        "string_too_long",
      ],
      [
        "GET /public/v1/templates",
        () =>
          request(gateway.app)
            .get(`/public/v1/templates?status=${"A".repeat(33)}`)
            .set(account.auth),
        ["query", "status"],
        "string_too_long",
      ],
    ] as const)("422 HTTPValidationError on %s", async (_endpoint, run, loc, type) => {
      expectValidationError(await run(), { loc: [...loc], type });
    });
  });
});

describe("section 7 error codes that need their own stack", () => {
  it.each(ENDPOINTS.map((e) => [e] as const))("429 api_rate_limited with Retry-After on %s", async (endpoint) => {
    const gateway = await startTestGateway({
      env: { API_RATE_LIMIT_POINTS: "2", API_RATE_LIMIT_WINDOW_SECONDS: "60" },
    });
    try {
      const account = await createTestAccount(gateway.db);
      for (let i = 0; i < 2; i++) expect((await call(gateway.app, endpoint, account.auth)).status).toBe(200);
      const limited = await call(gateway.app, endpoint, account.auth);
      expectEnvelope(limited, 429, "api_rate_limited");
      const retryAfter = Number(limited.headers["retry-after"]);
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    } finally {
      await gateway.close();
    }
  });

  it("503 provider_unavailable: the provider refuses our access token (190)", async () => {
    // The sandbox expects ACCESS_TOKEN; this API presents another one and gets Meta's 401 / code 190.
    const gateway = await startTestGateway({ env: { META_ACCESS_TOKEN: "not-the-sandbox-token" } });
    try {
      const account = await createTestAccount(gateway.db);
      const wrote = await contactWrites(gateway, {
        phone_number_id: account.phoneNumberId,
        from: RECIPIENT,
        type: "text",
        text: "olá",
      });
      expect(wrote.webhook_status).toBe(200);
      expectEnvelope(
        await request(gateway.app).post("/public/v1/messages").set(account.auth).send({ to: RECIPIENT, text: "oi" }),
        503,
        "provider_unavailable",
      );
      const refused = (await sandboxControl.requests(gateway)).filter(
        (r) => r.method === "POST" && r.path.endsWith("/messages"),
      );
      expect(refused.map((r) => r.status)).toEqual([401]);
    } finally {
      await gateway.close();
    }
  });

  it("503 provider_unavailable: the provider cannot be reached (connection refused)", async () => {
    const port = await freePort();
    const gateway = await startTestGateway({ env: { META_BASE_URL: `http://127.0.0.1:${port}` } });
    try {
      const account = await createTestAccount(gateway.db);
      // The contact's message still reaches the API through the sandbox's webhook, so the window is open.
      const wrote = await contactWrites(gateway, {
        phone_number_id: account.phoneNumberId,
        from: RECIPIENT,
        type: "text",
        text: "olá",
      });
      expect(wrote.webhook_status).toBe(200);
      const res = await request(gateway.app)
        .post("/public/v1/messages")
        .set(account.auth)
        .set("Idempotency-Key", "refused-1")
        .send({ to: RECIPIENT, text: "oi" });
      expectEnvelope(res, 503, "provider_unavailable");
      // Nothing went out: the key was released, not settled as unconfirmed.
      expect(await gateway.db.idempotencyKey.count({ where: { accountId: account.accountId, key: "refused-1" } })).toBe(
        0,
      );
    } finally {
      await gateway.close();
    }
  });

  describe("500 internal_error", () => {
    let drop: (() => Promise<void>) | undefined;
    let close: (() => Promise<void>) | undefined;
    let app: Parameters<typeof request>[0];

    beforeAll(async () => {
      // An API whose database has no schema: every query fails, as when the database is broken.
      const temp = await createTempDatabase();
      drop = temp.drop;
      const env = testEnv();
      const config = loadApiConfig({
        DATABASE_URL: temp.url,
        REDIS_URL: env.redisUrl,
        REDIS_KEY_PREFIX: env.redisPrefix,
        META_BASE_URL: "http://127.0.0.1:9",
        META_ACCESS_TOKEN: ACCESS_TOKEN,
        META_APP_SECRET: APP_SECRET,
        META_VERIFY_TOKEN: VERIFY_TOKEN,
        DATABASE_POOL_SIZE: "2",
      });
      const deps = buildApiDeps(config, silentLogger, {
        db: createDb({ url: temp.url, poolSize: 2 }),
        redis: createRedis(env.redisUrl),
      });
      app = createApp(deps);
      close = () => closeApiDeps(deps);
    });
    afterAll(async () => {
      await close?.();
      await drop?.();
    });

    it.each(ENDPOINTS.map((e) => [e] as const))(
      "500 internal_error on %s when the database cannot answer",
      async (endpoint) => {
        expectEnvelope(await call(app, endpoint, { Authorization: `Bearer ${UNKNOWN_KEY}` }), 500, "internal_error");
      },
    );
  });

  describe("503 service_unavailable", () => {
    let close: (() => Promise<void>) | undefined;
    let app: Parameters<typeof request>[0];

    beforeAll(async () => {
      // An API whose database refuses connections (a port nobody listens on): a transient outage, not a bug.
      const port = await freePort();
      const url = `postgresql://postgres@127.0.0.1:${port}/ninguem`;
      const env = testEnv();
      const config = loadApiConfig({
        DATABASE_URL: url,
        REDIS_URL: env.redisUrl,
        REDIS_KEY_PREFIX: env.redisPrefix,
        META_BASE_URL: "http://127.0.0.1:9",
        META_ACCESS_TOKEN: ACCESS_TOKEN,
        META_APP_SECRET: APP_SECRET,
        META_VERIFY_TOKEN: VERIFY_TOKEN,
      });
      const deps = buildApiDeps(config, silentLogger, {
        db: createDb({ url, poolSize: 2 }),
        redis: createRedis(env.redisUrl),
      });
      app = createApp(deps);
      close = () => closeApiDeps(deps);
    });
    afterAll(async () => {
      await close?.();
    });

    // /validate needs no database once the key is checked, but the key check itself does: every endpoint is covered.
    it.each(ENDPOINTS.map((e) => [e] as const))(
      "503 service_unavailable with Retry-After on %s when the database cannot be reached",
      async (endpoint) => {
        const res = await call(app, endpoint, { Authorization: `Bearer ${UNKNOWN_KEY}` });
        expectEnvelope(res, 503, "service_unavailable");
        expect(res.headers["retry-after"]).toBe("5");
      },
    );
  });
});

describe("the coverage table above is complete", () => {
  const source = readFileSync(new URL(import.meta.url), "utf8");
  const block = source.slice(source.indexOf("BEGIN COVERAGE"), source.indexOf("END COVERAGE"));
  const rows = block
    .split("\n")
    .slice(2) // the marker and the header line
    .map((line) => line.replace(/^\s*\*\s?/, ""))
    .filter((line) => line.includes("|"))
    .map((line) => {
      const [code = "", status = "", endpoints = "", tests = ""] = line.split("|").map((cell) => cell.trim());
      return {
        code,
        status: Number(status),
        endpoints,
        titles: [...tests.matchAll(/"([^"]+)"/g)].map((m) => m[1] ?? ""),
      };
    });

  it("lists exactly the registry's codes that apply to the four endpoints (plus HTTPValidationError), each once", () => {
    const registry = Object.keys(ERROR_REGISTRY);
    const excluded = Object.keys(NOT_FOR_THESE_ENDPOINTS);
    // Every exclusion names a registry code, and every code of the spec's table is in the registry.
    expect(excluded.filter((c) => !registry.includes(c))).toEqual([]);
    expect(SECTION_7.filter((c) => !registry.includes(c))).toEqual([]);

    const applicable = [...registry.filter((c) => !excluded.includes(c)), VALIDATION_BODY].sort();
    const listed = rows.map((r) => r.code);
    expect(listed.length).toBe(new Set(listed).size);
    expect([...listed].sort()).toEqual(applicable);
  });

  it("each row's status is the registry's and each cited test title exists in this file", () => {
    expect(rows.length).toBeGreaterThan(30);
    for (const row of rows) {
      expect({ code: row.code, status: row.status }).toEqual({
        code: row.code,
        status: isErrorCode(row.code) ? ERROR_REGISTRY[row.code].status : 422,
      });
      expect({ code: row.code, titles: row.titles.length > 0 }).toEqual({ code: row.code, titles: true });
      // Outside the comment block: the title must be a string literal of a test.
      const code = source.slice(source.indexOf("END COVERAGE"));
      for (const title of row.titles)
        expect({ title, found: code.includes(`"${title}"`) }).toEqual({ title, found: true });
    }
  });
});
