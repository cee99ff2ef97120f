import { z } from "zod";
import { recipientField } from "./messages.ts";

// Conversation Routing (issue 37 part 4; meta-late-2026 §5): Meta gives each conversation one owner app. The
// gateway's view of who holds a conversation with a customer on a business number, what the integrator may do
// about it (Meta's thread control), and the conversation's detail (its window and its holder).

/** Who holds the conversation, as far as the gateway knows. */
export const THREAD_HOLDERS = ["gateway", "another_app", "released"] as const;
export type ThreadHolder = (typeof THREAD_HOLDERS)[number];

/** What told the gateway who holds it last. */
export const THREAD_SOURCES = [
  "message",
  "standby",
  "control_passed",
  "control_taken",
  "pass",
  "take",
  "release",
] as const;
export type ThreadSource = (typeof THREAD_SOURCES)[number];

export const THREAD_CONTROL_ACTIONS = ["pass", "take", "release"] as const;
export type ThreadControlAction = (typeof THREAD_CONTROL_ACTIONS)[number];

/** The one role `pass` may name (Meta's Business AI agent); without it `pass` goes to the escalation partner. */
export const THREAD_TARGET_ROLES = ["ai_agent"] as const;

export const ConversationPath = z.object({
  recipient: recipientField().describe("The customer: a phone number (any formatting) or a BSUID"),
});

export const ConversationQuery = z.object({
  phone_number_id: z.string().max(64).optional().describe("The business number; the account's default otherwise"),
});

export const ConversationThread = z
  .object({
    holder: z
      .enum(THREAD_HOLDERS)
      .describe(
        "`gateway`: this gateway's app holds the conversation (the customer's messages come as `message.received`); `another_app`: another app holds it (Meta's Business AI agent, say): the customer's messages still reach version-2 integrations, with `standby: true`; `released`: the gateway released it, and Meta's entry-point routing picks the next responder when the customer writes again",
      ),
    role: z
      .string()
      .nullable()
      .describe(
        "Meta's role of the holder when known (`ai_agent`, `escalation_partner`, ...); null when nothing said it",
      ),
    since: z
      .string()
      .nullable()
      .describe("ISO 8601 UTC; when the gateway learnt it; null when nothing is known (then holder is `gateway`)"),
    source: z
      .enum(THREAD_SOURCES)
      .nullable()
      .describe(
        "What told it: the customer's last message (`message`, on Meta's `messages` field; `standby`), Meta's `messaging_handovers` notification (`control_passed`, `control_taken`) or the gateway's own thread control (`pass`, `take`, `release`); null when nothing is known",
      ),
  })
  .meta({ id: "ConversationThread" });
export type ConversationThreadView = z.infer<typeof ConversationThread>;

/** Issue 39: who answers the customer on the business's side. */
export const CONVERSATION_HANDLERS = ["bot", "human"] as const;
export type ConversationHandlerValue = (typeof CONVERSATION_HANDLERS)[number];

/** Issue 39 (the inbox): a conversation is open or closed. */
export const CONVERSATION_STATUSES = ["open", "closed"] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

export const ConversationAssignee = z
  .object({ id: z.string().describe("The panel user's id"), name: z.string().describe("The panel user's name") })
  .meta({ id: "ConversationAssignee" });
export type ConversationAssigneeView = z.infer<typeof ConversationAssignee>;

export const ConversationHandler = z
  .object({
    value: z
      .enum(CONVERSATION_HANDLERS)
      .describe(
        "`bot`: the integrator's automation answers (the default); `human`: a person does, and a bot should stay quiet. A person's hold goes back to `bot` after the account's timeout (24 h by default) without a new handover",
      ),
    since: z.string().nullable().describe("ISO 8601 UTC; the last handover; null when there was none"),
    note: z.string().nullable().describe("What the last handover said (why a person was asked for)"),
  })
  .meta({ id: "ConversationHandler" });
export type ConversationHandlerView = z.infer<typeof ConversationHandler>;

/** The number an operation on a conversation goes through, in a request body. */
const BusinessNumberIn = z
  .string()
  .min(1)
  .max(64)
  .optional()
  .describe("The business number; the account's default otherwise");

export const HandoverIn = z
  .object({
    phone_number_id: BusinessNumberIn,
    to: z.enum(CONVERSATION_HANDLERS).describe("`human`: the bot asks for a person; `bot`: the person gives it back"),
    note: z.string().trim().min(1).max(500).optional().describe("Why, for the person who picks it up"),
  })
  .strict()
  .meta({
    id: "HandoverIn",
    examples: [{ to: "human", note: "cliente pediu para falar com um atendente" }, { to: "bot" }],
  });

export const HandoverOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      recipient: z.string().describe("The customer: phone digits or a BSUID, as given"),
      phone_number_id: z.string(),
      handler: ConversationHandler,
    }),
  })
  .meta({ id: "HandoverOut" });

export const ThreadControlIn = z
  .object({
    phone_number_id: BusinessNumberIn,
    action: z
      .enum(THREAD_CONTROL_ACTIONS)
      .describe(
        "`pass`: hand the conversation to Meta's Business AI agent (`target_role: ai_agent`) or, without target_role, to the number's escalation partner; `take`: take it (only the escalation partner may); `release`: let it go (Meta's entry-point routing decides who answers the customer's next message)",
      ),
    target_role: z
      .enum(THREAD_TARGET_ROLES)
      .optional()
      .describe("Only with `pass`: `ai_agent` passes to Meta's Business AI agent"),
    metadata: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .describe("Only with `pass`: free text Meta forwards to the new holder in its notification"),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.action === "pass") return;
    for (const key of ["target_role", "metadata"] as const)
      if (body[key] !== undefined)
        ctx.addIssue({
          code: "custom",
          path: [key],
          input: body[key],
          message: `Só vale com action "pass".`,
        });
  })
  .meta({
    id: "ThreadControlIn",
    examples: [
      { action: "pass", target_role: "ai_agent", metadata: "pedido 1234 resolvido" },
      { action: "take" },
      { action: "release" },
    ],
  });
export type ThreadControlIn = z.infer<typeof ThreadControlIn>;

export const ThreadControlOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      recipient: z.string().describe("The customer: phone digits or a BSUID, as given"),
      phone_number_id: z.string(),
      action: z.enum(THREAD_CONTROL_ACTIONS),
      thread: ConversationThread,
    }),
  })
  .meta({ id: "ThreadControlOut" });

export const ConversationOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      recipient: z.string().describe("The customer: phone digits or a BSUID, as given"),
      phone_number_id: z.string(),
      window: z
        .object({
          open: z.boolean(),
          expires_at: z.string().nullable().describe("ISO 8601 UTC"),
          last_inbound_at: z.string().nullable().describe("ISO 8601 UTC"),
        })
        .describe("The 24-hour window, as GET /window/{to} says it"),
      handler: ConversationHandler,
      status: z.enum(CONVERSATION_STATUSES).describe("`open` (the default), or `closed` in the panel's inbox"),
      assignee: ConversationAssignee.nullable().describe("The panel user it is assigned to; null when none"),
      thread: ConversationThread,
    }),
  })
  .meta({ id: "ConversationOut" });
