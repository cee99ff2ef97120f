import type express from "express";
import { z } from "zod";
import { conversationOwner, setConversationOwner } from "../conversation-owners.ts";
import { inboundSender } from "../inbound.ts";
import type { SandboxState } from "../state.ts";
import { identityOf } from "../users.ts";
import { senderSchema } from "./contact-share.ts";

/*
 * POST /_sandbox/conversation-owner: who owns a user's conversation with a business number (Conversation Routing,
 * meta-late-2026 §5). While another app owns it, the user's messages arrive on the `standby` field, not `messages`.
 */

export const conversationOwnerSchema = z
  .object({
    phone_number_id: z.string().regex(/^\d{1,20}$/, "deve ter só dígitos (até 20)"),
    /** Named as POST /_sandbox/inbound names the sender: exactly one of from (or phone), user_id, username. */
    user: senderSchema,
    /** `this_app` (the default), `business_ai` (Meta's Business AI agent) or any other app's id. */
    owner: z.string().trim().min(1).max(100),
  })
  .strict();

export function registerConversationOwnerRoutes(router: express.Router, state: SandboxState): void {
  router.post("/conversation-owner", (req, res) => {
    const parsed = conversationOwnerSchema.safeParse(req.body ?? {});
    if (!parsed.success) {
      res.status(400).json({
        error: { message: "Requisição inválida para a API de controle do sandbox.", issues: parsed.error.issues },
      });
      return;
    }
    const { phone_number_id: phoneNumberId, user: selector, owner } = parsed.data;
    const user = inboundSender(state, {
      phone_number_id: phoneNumberId,
      from: selector.from ?? selector.phone,
      user_id: selector.user_id,
      username: selector.username,
      type: "text",
    });
    if (!user) {
      res
        .status(404)
        .json({ error: { message: "Usuário desconhecido pelo sandbox (registre-o em POST /_sandbox/users)." } });
      return;
    }
    setConversationOwner(state, phoneNumberId, user, owner);
    res.json({
      phone_number_id: phoneNumberId,
      user_id: identityOf(state, user, phoneNumberId).userId,
      owner: conversationOwner(state, phoneNumberId, user),
    });
  });
}
