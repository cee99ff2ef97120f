import type express from "express";
import { z } from "zod";
import { deliver } from "../deliveries.ts";
import { inboundMessage, inboundPayload, inboundSchema, inboundSender } from "../inbound.ts";
import { isRecord } from "../json.ts";
import type { SandboxState, SentMessage } from "../state.ts";

/*
 * POST /_sandbox/tap: the contact taps a reply button or chooses a list row of an interactive message the gateway
 * sent (issue 27). The sandbox sends Meta's `button_reply` / `list_reply` with the sent title (and row description),
 * quoting the sent message in `context`, as WhatsApp does.
 */

const tapSchema = z
  .object({
    wamid: z.string().min(1),
    button_id: z.string().min(1).optional(),
    row_id: z.string().min(1).optional(),
    /** 1-based, across the list's sections. */
    row_index: z.number().int().min(1).optional(),
  })
  .strict()
  .refine((tap) => [tap.button_id, tap.row_id, tap.row_index].filter((v) => v !== undefined).length === 1, {
    message: "informe exatamente um de button_id, row_id ou row_index",
  });

type Choice = { kind: "button_reply" | "list_reply"; id: string; title: string; description?: string };

interface Reply {
  id: string;
  title: string;
  description?: unknown;
}

function repliesOf(sent: SentMessage): { kind: Choice["kind"]; replies: Reply[] } | undefined {
  const body = sent.body;
  if (!isRecord(body) || !isRecord(body.interactive) || !isRecord(body.interactive.action)) return undefined;
  const { type, action } = body.interactive;
  if (type === "button" && Array.isArray(action.buttons))
    return {
      kind: "button_reply",
      replies: action.buttons.flatMap((b: unknown) =>
        isRecord(b) && isRecord(b.reply) ? [b.reply as unknown as Reply] : [],
      ),
    };
  if (type === "list" && Array.isArray(action.sections))
    return {
      kind: "list_reply",
      replies: action.sections.flatMap((s: unknown) =>
        isRecord(s) && Array.isArray(s.rows)
          ? (s.rows as unknown[]).filter(isRecord).map((r) => r as unknown as Reply)
          : [],
      ),
    };
  return undefined;
}

/** The option a tap names, or a Portuguese refusal. */
function choiceOf(sent: SentMessage, tap: z.infer<typeof tapSchema>): Choice | string {
  const options = repliesOf(sent);
  if (!options) return "A mensagem não tem botões de resposta nem lista.";
  const { kind, replies } = options;
  if (tap.button_id !== undefined && kind !== "button_reply")
    return "A mensagem é uma lista: informe row_id ou row_index.";
  if (tap.button_id === undefined && kind !== "list_reply") return "A mensagem tem botões: informe button_id.";
  const reply =
    tap.row_index !== undefined
      ? replies[tap.row_index - 1]
      : replies.find((r) => r.id === (tap.button_id ?? tap.row_id));
  if (!reply) return "A mensagem não tem essa opção.";
  return {
    kind,
    id: reply.id,
    title: reply.title,
    ...(typeof reply.description === "string" ? { description: reply.description } : {}),
  };
}

export function registerTapRoutes(router: express.Router, state: SandboxState): void {
  router.post("/tap", async (req, res) => {
    const parsed = tapSchema.safeParse(req.body ?? {});
    if (!parsed.success) {
      res.status(400).json({
        error: { message: "Requisição inválida para a API de controle do sandbox.", issues: parsed.error.issues },
      });
      return;
    }
    const sent = state.sent.find((s) => s.wamid === parsed.data.wamid);
    if (!sent) {
      res.status(404).json({ error: { message: "O sandbox não enviou uma mensagem com esse wamid." } });
      return;
    }
    const choice = choiceOf(sent, parsed.data);
    if (typeof choice === "string") {
      res.status(422).json({ error: { message: choice } });
      return;
    }
    const input = inboundSchema.parse({
      phone_number_id: sent.phone_number_id,
      ...(sent.wa_id !== null ? { from: sent.wa_id } : { user_id: sent.recipient ?? sent.user_id }),
      type: "interactive",
      interactive: {
        type: choice.kind,
        id: choice.id,
        title: choice.title,
        ...(choice.description !== undefined ? { description: choice.description } : {}),
      },
      context: { id: sent.wamid },
    });
    const user = inboundSender(state, input);
    if (!user) {
      res.status(404).json({ error: { message: "Usuário desconhecido pelo sandbox." } });
      return;
    }
    const { message, contact } = inboundMessage(state, input, user);
    const payload = inboundPayload(state, input, user, { message, contact });
    const webhookStatus = await deliver(state, "inbound", payload, { source: "control" });
    res.json({ id: message.id, webhook_status: webhookStatus, payload });
  });
}
