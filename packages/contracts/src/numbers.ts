import { z } from "zod";
import { errorResponse } from "./openapi.ts";

// The account's business numbers and their settings (issue 37): GET /numbers lists them, PATCH /numbers/{id}
// changes what the integrator may change. Today that is `marketing_messages`: whether the number's MARKETING
// templates go through Meta's Marketing Messages API (`/marketing_messages`) instead of the Cloud API's `/messages`.

export const MARKETING_MESSAGES_SETTINGS = ["off", "on"] as const;
export type MarketingMessagesSetting = (typeof MARKETING_MESSAGES_SETTINGS)[number];

/** Which Graph endpoint carried a message. */
export const SEND_ROUTES = ["messages", "marketing_messages"] as const;
export type SendRoute = (typeof SEND_ROUTES)[number];

export const NumberPath = z.object({
  phone_number_id: z.string().min(1).max(64).describe("The number's phone_number_id (GET /numbers lists them)"),
});

export const NumberOut = z
  .object({
    phone_number_id: z.string(),
    waba_id: z.string(),
    display_number: z.string(),
    is_default: z.boolean().describe("Sends without phone_number_id leave from it"),
    messaging_rate_per_second: z.int().describe("The pace every send from it keeps (set by the operator, or Meta)"),
    marketing_messages: z
      .enum(MARKETING_MESSAGES_SETTINGS)
      .describe(
        "`on`: its MARKETING template sends (campaigns included) go through Meta's Marketing Messages API; every other category stays on the Cloud API",
      ),
  })
  .meta({ id: "NumberOut" });
export type NumberView = z.input<typeof NumberOut>;

export const NumberListOut = z
  .object({ success: z.literal(true), data: z.object({ numbers: z.array(NumberOut) }) })
  .meta({ id: "NumberListOut" });

export const NumberDetailOut = z.object({ success: z.literal(true), data: NumberOut }).meta({ id: "NumberDetailOut" });

export const NumberSettingsIn = z
  .object({
    marketing_messages: z
      .enum(MARKETING_MESSAGES_SETTINGS)
      .describe(
        "`on` once the business is onboarded to Meta's Marketing Messages API; a refusal there is returned as is, never resent through /messages",
      ),
  })
  .strict()
  .meta({ id: "NumberSettingsIn", examples: [{ marketing_messages: "on" }] });

export const MessagePath = z.object({
  message_id: z.string().min(1).max(128).describe("The message's id (the send's message_id, the wamid)"),
});

export const MessageDetailOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      message_id: z.string(),
      to: z.string().describe("As the send named the recipient: phone digits or a BSUID"),
      phone_number_id: z.string(),
      type: z
        .string()
        .describe("The send's kind: text, template, interactive, media, reaction, location, order_status"),
      template: z.string().nullable(),
      status: z.string().describe("accepted until Meta reports; then sent, delivered, read or failed"),
      routed_via: z
        .enum(SEND_ROUTES)
        .describe("The Graph endpoint that carried it: `messages` (Cloud API) or `marketing_messages`"),
      client_ref: z.string().nullable(),
      campaign_id: z.string().nullable(),
      created_at: z.string(),
      status_at: z.string().nullable().describe("When Meta reported the current status"),
      pricing: z.record(z.string(), z.unknown()).nullable().describe("Meta's pricing block, as first reported"),
      error: z
        .object({ code: z.int().nullable(), message: z.string().nullable(), reason: z.string().nullable() })
        .nullable()
        .describe("Only when status is failed"),
    }),
  })
  .meta({ id: "MessageDetailOut" });
export type MessageDetail = z.input<typeof MessageDetailOut>["data"];

export const numberNotFound = errorResponse("No business number with this phone_number_id in this account.", [
  "not_found",
]);
export const messageNotFound = errorResponse("No message with this id in this account.", ["not_found"]);
