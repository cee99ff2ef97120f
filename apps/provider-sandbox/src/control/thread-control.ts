import type express from "express";
import { z } from "zod";
import {
  applyThreadControl,
  BUSINESS_AI,
  escalationPartnerOf,
  handoverFor,
  handoverPayload,
  roleOf,
  setEscalationPartner,
  THIS_APP,
  type ThreadRefusal,
} from "../conversation-owners.ts";
import { deliver } from "../deliveries.ts";
import { inboundSender } from "../inbound.ts";
import { charLength } from "../json.ts";
import { recent, type SandboxState } from "../state.ts";
import { identityOf } from "../users.ts";
import { senderSchema } from "./contact-share.ts";

/*
 * Conversation Routing thread control from the other apps' side (meta-late-2026 §5): POST /_sandbox/thread-control
 * makes Meta's Business AI agent or another app pass or take a user's thread, with Meta's rules, and posts the
 * `messaging_handovers` webhook this app would get (`control_passed` when the thread is passed to it,
 * `control_taken` when it is taken from it). POST /_sandbox/escalation-partner sets a number's escalation partner;
 * GET /_sandbox/thread-control lists this app's own thread-control actions.
 */

const digitsId = z.string().regex(/^\d{1,20}$/, "deve ter só dígitos (até 20)");
const appId = z.string().trim().min(1).max(100);

export const threadControlSchema = z
  .object({
    phone_number_id: digitsId,
    /** Named as POST /_sandbox/inbound names the sender: exactly one of from (or phone), user_id, username. */
    user: senderSchema,
    /** `business_ai` or another app's id; this app acts through the Graph API, not here. */
    actor: appId.refine((app) => app !== THIS_APP, {
      message: "this_app age pela Graph API: POST /{phone_number_id}/thread_control",
    }),
    action: z.enum(["pass", "take"]),
    /** For `pass`: the new owner (default `this_app`). */
    target: appId.optional(),
    /** What the acting app tells the new owner; in the webhook's `control_passed`/`control_taken` when given. */
    metadata: z
      .string()
      .refine((text) => charLength(text) <= 2000, "deve ter no máximo 2000 caracteres")
      .optional(),
  })
  .strict()
  .refine((input) => input.action === "pass" || input.target === undefined, {
    message: "target só vale para action pass",
    path: ["target"],
  });

export const escalationPartnerSchema = z
  .object({
    phone_number_id: digitsId,
    /** `this_app` (the default) or another app's id; the Business AI agent is the `ai_agent`, never the partner. */
    app: appId.refine((app) => app !== BUSINESS_AI, {
      message: "business_ai é o agente de IA (ai_agent), não pode ser o parceiro de escalonamento",
    }),
  })
  .strict();

function refusalMessage(actor: string, refusal: ThreadRefusal): string {
  switch (refusal.reason) {
    case "not_owner":
      return `O app ${actor} não é o dono da conversa (dono atual: ${refusal.owner}): só o dono pode passá-la.`;
    case "same_app":
      return `O app ${actor} já é o dono da conversa: não pode passá-la para si mesmo.`;
    case "not_escalation_partner":
      return `Só o parceiro de escalonamento do número (${refusal.partner}) pode tomar a conversa, não ${actor}.`;
    case "already_owner":
      return `O app ${actor} já é o dono da conversa.`;
  }
}

function invalid(res: express.Response, issues: z.core.$ZodIssue[]): void {
  res.status(400).json({ error: { message: "Requisição inválida para a API de controle do sandbox.", issues } });
}

export function registerThreadControlRoutes(router: express.Router, state: SandboxState): void {
  router.post("/thread-control", async (req, res) => {
    const parsed = threadControlSchema.safeParse(req.body ?? {});
    if (!parsed.success) return invalid(res, parsed.error.issues);
    const { phone_number_id: phoneNumberId, user: selector, actor, action, metadata } = parsed.data;
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
    const request = action === "pass" ? { action, target: parsed.data.target ?? THIS_APP } : ({ action } as const);
    const outcome = applyThreadControl(state, phoneNumberId, user, actor, request);
    if ("refused" in outcome) {
      res.status(409).json({ error: { message: refusalMessage(actor, outcome.refused) } });
      return;
    }
    const type = handoverFor(action, outcome.move);
    // Answered once the gateway answered the webhook, as the other control routes that post one.
    if (type) {
      const payload = handoverPayload(state, phoneNumberId, user, { type, move: outcome.move, metadata });
      await deliver(state, "messaging_handovers", payload, { source: "control" });
    }
    res.json({
      phone_number_id: phoneNumberId,
      user_id: identityOf(state, user, phoneNumberId).userId,
      owner: outcome.move.owner,
      notified: type !== undefined,
    });
  });

  router.get("/thread-control", (_req, res) => {
    res.json({ calls: recent(state.threadControls, state.config.historyLimit) });
  });

  router.post("/escalation-partner", (req, res) => {
    const parsed = escalationPartnerSchema.safeParse(req.body ?? {});
    if (!parsed.success) return invalid(res, parsed.error.issues);
    const { phone_number_id: phoneNumberId, app } = parsed.data;
    setEscalationPartner(state, phoneNumberId, app);
    res.json({
      phone_number_id: phoneNumberId,
      escalation_partner: escalationPartnerOf(state, phoneNumberId),
      this_app_role: roleOf(state, phoneNumberId, THIS_APP),
    });
  });
}
