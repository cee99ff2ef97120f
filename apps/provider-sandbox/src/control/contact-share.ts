import type express from "express";
import { z } from "zod";
import { inboundSender, sendInbound, type InboundInput } from "../inbound.ts";
import type { SandboxState, SandboxUser } from "../state.ts";
import { BSUID_PATTERN, PARENT_BSUID_PATTERN, PHONE_PATTERN, USERNAME_PATTERN } from "../users.ts";

/*
 * POST /_sandbox/contact-share: the user answers with a contact card (meta-late-2026 §3, meta-2026 §1.4). Meta posts
 * a `contacts` message whose card carries `origin`: `contact_request` when the user tapped share on the business's
 * `request_contact_info` (the card is the user's own, with its real phone), `other` for a card shared unprompted
 * (Meta adds the card's `vcard` then).
 */

const unixSeconds = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)]);

/**
 * The sender, named as POST /_sandbox/inbound names it: exactly one of `from` (its phone), `user_id` (BSUID or parent
 * BSUID) or `username`; `phone` is taken for `from`, as the other `user` selectors of the control API spell it.
 */
export const senderSchema = z
  .object({
    from: z.string().regex(PHONE_PATTERN, "deve ser um número de telefone").optional(),
    phone: z.string().regex(PHONE_PATTERN, "deve ser um número de telefone").optional(),
    user_id: z
      .string()
      .refine((id) => BSUID_PATTERN.test(id) || PARENT_BSUID_PATTERN.test(id), "deve ser um BSUID")
      .optional(),
    username: z.string().regex(USERNAME_PATTERN, "deve ser um nome de usuário do WhatsApp").optional(),
  })
  .strict()
  .refine((user) => [user.from, user.phone, user.user_id, user.username].filter((v) => v !== undefined).length === 1, {
    message: "informe exatamente um de from (ou phone), user_id ou username",
  });

/** Meta's contact card: `name.formatted_name` and `phones[]`; its other members (emails, org…) pass as given. */
const cardSchema = z
  .looseObject({
    name: z.looseObject({ formatted_name: z.string().min(1) }),
    phones: z
      .array(
        z.looseObject({
          phone: z.string().min(1),
          wa_id: z
            .string()
            .regex(/^\d{8,15}$/, "deve ter só dígitos (8 a 15)")
            .optional(),
          type: z.string().min(1).optional(),
        }),
      )
      .optional(),
  })
  .refine((card) => !("origin" in card), { message: "origin vem do campo origin do corpo", path: ["origin"] });

export const contactShareSchema = z
  .object({
    phone_number_id: z.string().regex(/^\d{1,20}$/, "deve ter só dígitos (até 20)"),
    user: senderSchema,
    origin: z.enum(["contact_request", "other"]),
    /** `origin: other` only; default: a made-up card. */
    card: cardSchema.optional(),
    timestamp: unixSeconds.optional(),
    id: z.string().min(1).optional(),
    waba_id: z.string().min(1).optional(),
  })
  .strict()
  .refine((input) => input.origin === "other" || input.card === undefined, {
    message: "com origin contact_request o cartão é o do próprio usuário: não informe card",
    path: ["card"],
  });

type ContactShareInput = z.infer<typeof contactShareSchema>;
type Card = z.infer<typeof cardSchema>;

const MADE_UP_CARD: Card = {
  name: { formatted_name: "Contato Exemplo", first_name: "Contato", last_name: "Exemplo" },
  phones: [{ phone: "+55 11 99999-0000", type: "CELL", wa_id: "5511999990000" }],
};

/** `formatted_name`, and the first and last names WhatsApp splits it into. */
function nameOf(formatted: string): Record<string, string> {
  const [first, ...rest] = formatted.trim().split(/\s+/);
  return {
    formatted_name: formatted,
    ...(first ? { first_name: first } : {}),
    ...(rest.length > 0 ? { last_name: rest.join(" ") } : {}),
  };
}

/** The user's own card: its profile name and its real phone, which the sandbox knows even while it is withheld. */
function ownCard(user: SandboxUser, phone: string): Record<string, unknown> {
  return { name: nameOf(user.name), phones: [{ phone: `+${phone}`, wa_id: phone, type: "MOBILE" }] };
}

function vcardText(value: unknown): string {
  return typeof value === "string" ? value.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r?\n/g, "\\n") : "";
}

/** The vCard 3.0 WhatsApp attaches to a shared card: N, FN and one TEL per phone (`waid` when on WhatsApp). */
function vcardOf(card: Card): string {
  const { name } = card;
  const lines = [
    "BEGIN:VCARD",
    "VERSION:3.0",
    `N:${vcardText(name.last_name)};${vcardText(name.first_name)};;;`,
    `FN:${vcardText(name.formatted_name)}`,
    ...(card.phones ?? []).map(
      (p) => `TEL;type=${p.type ?? "CELL"}${p.wa_id === undefined ? "" : `;waid=${p.wa_id}`}:${p.phone}`,
    ),
    "END:VCARD",
  ];
  return lines.join("\n");
}

function sharedCard(input: ContactShareInput, user: SandboxUser): Record<string, unknown> | string {
  if (input.origin === "contact_request") {
    if (user.phone === undefined)
      return "O usuário não tem telefone conhecido pelo sandbox: não há número próprio para compartilhar (origin contact_request).";
    // Only the card carries the phone: Meta keeps the user BSUID-addressed, so sharing it does not count as a phone
    // exchange nor fill the contact book (`from`/`wa_id` stay as the phone-sharing rules say).
    return { ...ownCard(user, user.phone), origin: "contact_request" };
  }
  const card = input.card ?? MADE_UP_CARD;
  // Meta adds the vCard only to a card shared unprompted (meta-2026 §1.4); a given one is kept.
  return { ...card, origin: "other", vcard: typeof card.vcard === "string" ? card.vcard : vcardOf(card) };
}

function unknownUser(res: express.Response): void {
  res
    .status(404)
    .json({ error: { message: "Usuário desconhecido pelo sandbox (registre-o em POST /_sandbox/users)." } });
}

export function registerContactShareRoutes(router: express.Router, state: SandboxState): void {
  router.post("/contact-share", async (req, res) => {
    const parsed = contactShareSchema.safeParse(req.body ?? {});
    if (!parsed.success) {
      res.status(400).json({
        error: { message: "Requisição inválida para a API de controle do sandbox.", issues: parsed.error.issues },
      });
      return;
    }
    const input = parsed.data;
    const { from, phone, user_id: userId, username } = input.user;
    const inbound: InboundInput = {
      phone_number_id: input.phone_number_id,
      from: from ?? phone,
      user_id: userId,
      username,
      type: "contacts",
      timestamp: input.timestamp,
      id: input.id,
      waba_id: input.waba_id,
    };
    const user = inboundSender(state, inbound);
    if (!user) return void unknownUser(res);
    const card = sharedCard(input, user);
    if (typeof card === "string") {
      res.status(400).json({ error: { message: card } });
      return;
    }
    // Built like POST /_sandbox/inbound (from_user_id always, `from` only when shown; window; redeliveries).
    const sent = await sendInbound(state, inbound, { contacts: [card] });
    if (!sent) return void unknownUser(res);
    res.json(sent);
  });
}
