import { META_TITLES, type MetaCode } from "./graph/errors.ts";
import express from "express";
import { z } from "zod";
import { inboundMessage, inboundSchema } from "./inbound.ts";
import { deliver } from "./deliveries.ts";
import { pendingRedeliveries } from "./pending.ts";
import {
  clearState,
  digitsOf,
  recent,
  recordContactMessage,
  runtimeConfigFrom,
  type FaultRule,
  type SandboxState,
} from "./state.ts";
import type { SandboxOptions, SandboxTemplate } from "./types.ts";
import { webhookPayload } from "./webhooks.ts";

const statusesSchema = z.object({
  phone_number_id: z.string().min(1).optional(),
  waba_id: z.string().min(1).optional(),
  statuses: z
    .array(
      // Extra fields (pricing, conversation, biz_opaque_callback_data…) are passed through untouched.
      z.looseObject({
        id: z.string().min(1),
        status: z.string().min(1),
        recipient_id: z.string().min(1).optional(),
        timestamp: z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).optional(),
        errors: z.array(z.record(z.string(), z.unknown())).optional(),
      }),
    )
    .min(1),
});

const faultSchema = z.object({
  mode: z.enum(["500", "timeout", "reset", "error"]),
  /** Mode `error`: answer this Meta error code (one of META_TITLES) instead of processing the call. */
  code: z
    .number()
    .int()
    .refine((code) => Object.hasOwn(META_TITLES, code), "código Meta desconhecido pelo sandbox")
    .optional(),
  details: z.string().default("Injected by the sandbox."),
  count: z.number().int().min(1).default(1),
  route: z.enum(["messages", "templates", "any"]).default("any"),
  after: z.number().int().min(0).default(0),
  delay_ms: z.number().int().min(0).default(30_000),
  deliver: z.boolean().default(false),
});

const delaysSchema = z.object({
  sent: z.number().int().min(0),
  delivered: z.number().int().min(0),
  read: z.number().int().min(0),
});

const configSchema = z
  .object({
    webhookUrl: z.url().nullable(),
    statusDelaysMs: delaysSchema.partial(),
    autoStatuses: z.boolean(),
    unreachable: z.array(z.string()),
    failAfterSend: z.array(z.string()),
    enforceWindow: z.boolean(),
    rateLimitPerSecond: z.number().int().min(1).nullable(),
    // Trusted as given: the sandbox is a test tool.
    templates: z.array(z.looseObject({ id: z.string(), name: z.string(), language: z.string(), status: z.string() })),
    pageSize: z.number().int().min(1),
    webhookRetries: z.boolean(),
    webhookRetryScale: z.number().positive(),
    statusBatchMs: z.number().int().min(0),
    historyLimit: z.number().int().min(1),
  })
  .partial()
  .strict();

function parse<S extends z.ZodType>(schema: S, req: express.Request, res: express.Response): z.infer<S> | undefined {
  const result = schema.safeParse(req.body ?? {});
  if (result.success) return result.data;
  res.status(400).json({
    error: { message: "Requisição inválida para a API de controle do sandbox.", issues: result.error.issues },
  });
  return undefined;
}

function publicConfig(state: SandboxState): Record<string, unknown> {
  const { templates, ...rest } = state.config;
  return { ...rest, templatesCount: templates.length };
}

/** The control API under /_sandbox: drives the sandbox from tests and shows what it received. */
export function controlRouter(state: SandboxState, initial: SandboxOptions): express.Router {
  const router = express.Router();
  router.post("/inbound", async (req, res) => {
    const input = parse(inboundSchema, req, res);
    if (!input) return;
    const { message, timestampMs } = inboundMessage(input, state.now());
    // Meta opens the window when the contact writes, whether or not the gateway gets the webhook.
    recordContactMessage(state, input.phone_number_id, input.from, timestampMs);
    const payload = webhookPayload(state, input.phone_number_id, {
      wabaId: input.waba_id,
      contacts: [{ profile: { name: input.name ?? "Cliente Sandbox" }, wa_id: digitsOf(input.from) }],
      messages: [message],
    });
    const webhookStatus = await deliver(state, "inbound", payload, { source: "control" });
    res.json({ id: message.id, webhook_status: webhookStatus, payload });
  });

  router.post("/statuses", async (req, res) => {
    const input = parse(statusesSchema, req, res);
    if (!input) return;
    const statuses: Record<string, unknown>[] = [];
    let phoneNumberId = input.phone_number_id;
    for (const item of input.statuses) {
      const known = state.sent.findLast((s) => s.wamid === item.id);
      phoneNumberId ??= known?.phone_number_id;
      const recipient = item.recipient_id ?? known?.wa_id;
      if (!recipient) {
        res.status(400).json({
          error: { message: `recipient_id é obrigatório: a mensagem ${item.id} não foi enviada por este sandbox.` },
        });
        return;
      }
      const { id, status, timestamp, recipient_id: _ignored, ...extra } = item;
      statuses.push({
        id,
        status,
        timestamp: String(timestamp ?? Math.floor(state.now() / 1000)),
        recipient_id: recipient,
        ...extra,
      });
    }
    if (!phoneNumberId) {
      res.status(400).json({
        error: { message: "phone_number_id é obrigatório quando as mensagens não foram enviadas por este sandbox." },
      });
      return;
    }
    const webhookStatus = await deliver(
      state,
      "statuses",
      webhookPayload(state, phoneNumberId, { wabaId: input.waba_id, statuses }),
      { source: "control" },
    );
    res.json({ webhook_status: webhookStatus });
  });

  router.post("/faults", (req, res) => {
    const input = parse(faultSchema, req, res);
    if (!input) return;
    if (input.mode === "error" && input.code === undefined) {
      res.status(400).json({ error: { message: "O modo error exige code." } });
      return;
    }
    const rule: FaultRule = {
      mode: input.mode,
      count: input.count,
      route: input.route,
      after: input.after,
      delayMs: input.delay_ms,
      deliver: input.deliver,
    };
    if (input.mode === "error" && input.code !== undefined)
      rule.error = { code: input.code as MetaCode, details: input.details };
    state.faults.push(rule);
    res.json({ faults: state.faults });
  });
  router.get("/faults", (_req, res) => void res.json({ faults: state.faults }));

  const limit = () => state.config.historyLimit;
  router.get("/sent", (_req, res) => void res.json(recent(state.sent, limit())));
  router.get("/requests", (_req, res) => void res.json(recent(state.requests, limit())));
  router.get("/webhooks", (_req, res) => void res.json(recent(state.webhooks, limit())));
  router.get("/webhooks/pending", (_req, res) => void res.json({ pending: pendingRedeliveries(state) }));

  router.get("/config", (_req, res) => void res.json(publicConfig(state)));
  router.post("/config", (req, res) => {
    const input = parse(configSchema, req, res);
    if (!input) return;
    const config = state.config;
    if (input.webhookUrl !== undefined) config.webhookUrl = input.webhookUrl ?? undefined;
    if (input.statusDelaysMs) config.statusDelaysMs = { ...config.statusDelaysMs, ...input.statusDelaysMs };
    if (input.autoStatuses !== undefined) config.autoStatuses = input.autoStatuses;
    if (input.unreachable) config.unreachable = input.unreachable.map(digitsOf);
    if (input.failAfterSend) config.failAfterSend = input.failAfterSend.map(digitsOf);
    if (input.enforceWindow !== undefined) config.enforceWindow = input.enforceWindow;
    if (input.rateLimitPerSecond !== undefined) config.rateLimitPerSecond = input.rateLimitPerSecond ?? undefined;
    if (input.templates) config.templates = input.templates as unknown as SandboxTemplate[];
    if (input.pageSize !== undefined) config.pageSize = input.pageSize;
    if (input.webhookRetries !== undefined) config.webhookRetries = input.webhookRetries;
    if (input.webhookRetryScale !== undefined) config.webhookRetryScale = input.webhookRetryScale;
    if (input.statusBatchMs !== undefined) config.statusBatchMs = input.statusBatchMs;
    if (input.historyLimit !== undefined) config.historyLimit = input.historyLimit;
    res.json(publicConfig(state));
  });

  router.post("/reset", (req, res) => {
    const body: unknown = req.body;
    clearState(state);
    // `{"config": true}` also restores the options the sandbox started with.
    if (typeof body === "object" && body !== null && "config" in body && body.config === true)
      state.config = runtimeConfigFrom(initial);
    res.json({ ok: true });
  });

  router.use((req, res) => {
    res
      .status(404)
      .json({ error: { message: `Rota de controle desconhecida: ${req.method} ${req.baseUrl}${req.path}.` } });
  });
  return router;
}
