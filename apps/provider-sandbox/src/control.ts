import { META_TITLES, type MetaCode } from "./graph/errors.ts";
import express from "express";
import { z } from "zod";
import {
  accountUpdate,
  accountUpdateSchema,
  businessCapabilitySchema,
  businessCapabilityUpdate,
  numberQualityUpdate,
  numberQualityUpdateSchema,
} from "./account-events.ts";
import { inboundSchema, sendInbound } from "./inbound.ts";
import { registerContactShareRoutes } from "./control/contact-share.ts";
import { registerConversationOwnerRoutes } from "./control/conversation-owner.ts";
import { registerTapRoutes } from "./control/tap.ts";
import { registerThreadControlRoutes } from "./control/thread-control.ts";
import { deliver } from "./deliveries.ts";
import { phoneNumberNode } from "./graph/numbers.ts";
import { registerMediaControlRoutes } from "./control/media.ts";
import { changeIdentity, identityChangeSchema } from "./identity-changes.ts";
import { ordersQuerySchema, ordersView, paymentMethodSchema, sendPaymentMethod } from "./orders.ts";
import { pendingRedeliveries } from "./pending.ts";
import { sentStats } from "./stats.ts";
import {
  clearState,
  normalizeRecipient,
  recent,
  runtimeConfigFrom,
  type FaultRule,
  type SandboxState,
  type SandboxUser,
} from "./state.ts";
import {
  findCatalogueTemplate,
  templateCategorySchema,
  templateCategoryUpdate,
  templateComponentsSchema,
  templateComponentsUpdate,
  templateQualitySchema,
  templateQualityUpdate,
  templateStatusSchema,
  templateStatusUpdate,
} from "./template-events.ts";
import { MESSAGING_LIMIT_TIERS, type SandboxOptions, type SandboxTemplate } from "./types.ts";
import { preferenceUser, stoppedContacts, userPreferenceSchema, userPreferenceUpdate } from "./user-preferences.ts";
import {
  contactBookSchema,
  phoneExchangeSchema,
  portfolioSchema,
  portfolioView,
  portfolioViews,
  registerUser,
  registerUserSchema,
  setContactBook,
  setPhoneExchange,
  setPortfolio,
  usersListSchema,
  type Outcome,
} from "./user-registry.ts";
import { findUser, userView } from "./users.ts";
import { webhookPayload, type AccountWebhookPayload, type TemplateWebhookPayload } from "./webhooks.ts";

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
        recipient_user_id: z.string().min(1).optional(),
        timestamp: z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).optional(),
        errors: z.array(z.record(z.string(), z.unknown())).optional(),
      }),
    )
    .min(1),
});

const faultSchema = z.object({
  /** `slow`: the real answer after `delay_ms` (the call is processed at once, as `deliver`). */
  mode: z.enum(["500", "timeout", "reset", "error", "slow"]),
  /** Mode `error`: answer this Meta error code (one of META_TITLES) instead of processing the call. */
  code: z
    .number()
    .int()
    .refine((code) => Object.hasOwn(META_TITLES, code), "código Meta desconhecido pelo sandbox")
    .optional(),
  details: z.string().default("Injected by the sandbox."),
  count: z.number().int().min(1).default(1),
  /** `messages` faults do not reach `/marketing_messages` (and the other way round); `any` reaches both. */
  route: z
    .enum(["messages", "marketing_messages", "thread_control", "templates", "media", "numbers", "any"])
    .default("any"),
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
    /** Phone numbers or BSUIDs. */
    unreachable: z.array(z.string()),
    failAfterSend: z.array(z.string()),
    /** ISO countries whose authentication templates are priced `authentication-international`. */
    authenticationInternational: z.array(z.string().regex(/^[A-Z]{2}$/, "deve ser um código ISO de país (ex.: IN)")),
    /** WABA ids not onboarded to the Marketing Messages API (replaces the list; [] = every WABA onboarded). */
    marketingMessagesNotOnboarded: z.array(z.string().min(1)),
    enforceWindow: z.boolean(),
    /** Phone numbers or BSUIDs whose WhatsApp takes no order messages (2040). */
    paymentsUnsupported: z.array(z.string()),
    rateLimitPerSecond: z.number().int().min(1).nullable(),
    /** Per phone_number_id (merged into the current ones); null drops a number's own rate (back to the default). */
    numberRates: z.record(
      z.string().regex(/^\d{1,20}$/, "deve ter só dígitos (até 20)"),
      z.number().int().min(1).nullable(),
    ),
    /** Meta's pair rate (131056); null turns it off. */
    pairRate: z
      .object({ max: z.number().int().min(1), windowMs: z.number().int().min(1) })
      .strict()
      .nullable(),
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

/** Body of POST /_sandbox/numbers: what GET /{phone-number-id} reports for one number from now on. */
const numberSchema = z
  .object({
    phone_number_id: z.string().regex(/^\d{1,20}$/, "deve ter só dígitos (até 20)"),
    display_phone_number: z.string().min(1),
    verified_name: z.string().min(1),
    quality_rating: z.enum(["GREEN", "YELLOW", "RED", "UNKNOWN"]),
    messaging_limit_tier: z.enum(MESSAGING_LIMIT_TIERS),
    throughput_level: z.enum(["STANDARD", "HIGH", "NOT_APPLICABLE"]),
    /** The business portfolio the number belongs to (BSUIDs, contact book); not part of the node. */
    portfolio_id: z.string().min(1),
  })
  .partial()
  .required({ phone_number_id: true })
  .strict();

/** Query of GET /_sandbox/sent/stats. */
const statsSchema = z
  .object({
    phone_number_id: z.string().min(1).optional(),
    window_ms: z.coerce.number().int().min(1).max(3_600_000).default(1000),
  })
  .strict();

function parse<S extends z.ZodType>(schema: S, req: express.Request, res: express.Response): z.infer<S> | undefined {
  return parseValue(schema, req.body ?? {}, res);
}

function parseValue<S extends z.ZodType>(schema: S, value: unknown, res: express.Response): z.infer<S> | undefined {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  res.status(400).json({
    error: { message: "Requisição inválida para a API de controle do sandbox.", issues: result.error.issues },
  });
  return undefined;
}

/** Answers a control call's outcome: the view of its value, or its Portuguese refusal. */
function answer<T>(res: express.Response, outcome: Outcome<T>, view: (value: T) => unknown): void {
  if ("ok" in outcome) res.json(view(outcome.ok));
  else res.status(outcome.status).json({ error: { message: outcome.error } });
}

function publicConfig(state: SandboxState): Record<string, unknown> {
  const { templates, numbers: _numbers, ...rest } = state.config;
  return { ...rest, templatesCount: templates.length };
}

/** The control API under /_sandbox: drives the sandbox from tests and shows what it received. */
export function controlRouter(state: SandboxState, initial: SandboxOptions): express.Router {
  const router = express.Router();
  const limit = () => state.config.historyLimit;
  const unknownUser = (res: express.Response): void =>
    void res
      .status(404)
      .json({ error: { message: "Usuário desconhecido pelo sandbox (registre-o em POST /_sandbox/users)." } });

  router.post("/inbound", async (req, res) => {
    const input = parse(inboundSchema, req, res);
    if (!input) return;
    const sent = await sendInbound(state, input);
    if (!sent) return unknownUser(res);
    res.json(sent);
  });

  registerTapRoutes(router, state);
  registerContactShareRoutes(router, state);
  registerConversationOwnerRoutes(router, state);
  registerThreadControlRoutes(router, state);

  // Brazil payments orders (meta-2026 §6): each reference's card, and the one-click card answer.
  router.get("/orders", (req, res) => {
    const input = parseValue(ordersQuerySchema, req.query, res);
    if (!input) return;
    res.json({ orders: ordersView(state, input) });
  });
  router.post("/payment-method", async (req, res) => {
    const input = parse(paymentMethodSchema, req, res);
    if (!input) return;
    const sent = await sendPaymentMethod(state, input);
    if (!sent) return unknownUser(res);
    res.json(sent);
  });

  router.post("/statuses", async (req, res) => {
    const input = parse(statusesSchema, req, res);
    if (!input) return;
    const statuses: Record<string, unknown>[] = [];
    let phoneNumberId = input.phone_number_id;
    for (const item of input.statuses) {
      const known = state.sent.findLast((s) => s.wamid === item.id);
      phoneNumberId ??= known?.phone_number_id;
      const recipient = item.recipient_id ?? known?.wa_id ?? undefined;
      // A send the sandbox addressed by BSUID: its BSUID stands for the recipient when none is given.
      const recipientUserId = item.recipient_user_id ?? (recipient === undefined ? known?.user_id : undefined);
      if (recipient === undefined && recipientUserId === undefined) {
        res.status(400).json({
          error: {
            message: `recipient_id é obrigatório (ou recipient_user_id): a mensagem ${item.id} não foi enviada por este sandbox.`,
          },
        });
        return;
      }
      const { id, status, timestamp, recipient_id: _id, recipient_user_id: _userId, ...extra } = item;
      statuses.push({
        id,
        status,
        timestamp: String(timestamp ?? Math.floor(state.now() / 1000)),
        ...(recipient === undefined ? {} : { recipient_id: recipient }),
        ...(recipientUserId === undefined ? {} : { recipient_user_id: recipientUserId }),
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

  // Meta's template webhooks for a template of the catalogue, which changes with them (status, quality_score).
  const emitTemplateWebhook = async (
    res: express.Response,
    ref: Parameters<typeof findCatalogueTemplate>[1],
    build: (template: SandboxTemplate) => TemplateWebhookPayload,
  ): Promise<void> => {
    const found = findCatalogueTemplate(state, ref);
    if ("error" in found) {
      res.status(found.status).json({ error: { message: found.error } });
      return;
    }
    const payload = build(found.template);
    const webhookStatus = await deliver(state, "templates", payload, { source: "control" });
    const after = state.config.templates.find((t) => t.id === found.template.id);
    res.json({
      webhook_status: webhookStatus,
      payload,
      template: {
        id: found.template.id,
        name: found.template.name,
        language: found.template.language,
        status: after?.status ?? "DELETED",
        quality_score: after?.quality_score ?? null,
      },
    });
  };
  router.post("/templates/status", async (req, res) => {
    const input = parse(templateStatusSchema, req, res);
    if (!input) return;
    await emitTemplateWebhook(res, input, (template) => templateStatusUpdate(state, template, input));
  });
  router.post("/templates/quality", async (req, res) => {
    const input = parse(templateQualitySchema, req, res);
    if (!input) return;
    await emitTemplateWebhook(res, input, (template) => templateQualityUpdate(state, template, input));
  });
  router.post("/templates/components", async (req, res) => {
    const input = parse(templateComponentsSchema, req, res);
    if (!input) return;
    await emitTemplateWebhook(res, input, (template) => templateComponentsUpdate(state, template, input));
  });
  router.post("/templates/category", async (req, res) => {
    const input = parse(templateCategorySchema, req, res);
    if (!input) return;
    await emitTemplateWebhook(res, input, (template) => templateCategoryUpdate(state, template, input));
  });

  // WABA-level health webhooks (meta-2026 §3): signed and redelivered like the others.
  const emitAccountWebhook = async (
    res: express.Response,
    payload: AccountWebhookPayload,
    extra: Record<string, unknown> = {},
  ): Promise<void> => {
    const webhookStatus = await deliver(state, "account", payload, { source: "control" });
    res.json({ webhook_status: webhookStatus, payload, ...extra });
  };
  router.post("/account-update", async (req, res) => {
    const input = parse(accountUpdateSchema, req, res);
    if (!input) return;
    await emitAccountWebhook(res, accountUpdate(state, input));
  });
  router.post("/numbers/quality-update", async (req, res) => {
    const input = parse(numberQualityUpdateSchema, req, res);
    if (!input) return;
    const payload = numberQualityUpdate(state, input);
    await emitAccountWebhook(res, payload, {
      number: phoneNumberNode(state, input.phone_number_id),
      rate_per_second: state.config.numberRates[input.phone_number_id] ?? state.config.rateLimitPerSecond ?? null,
    });
  });
  router.post("/business-capability", async (req, res) => {
    const input = parse(businessCapabilitySchema, req, res);
    if (!input) return;
    const payload = businessCapabilityUpdate(state, input);
    await emitAccountWebhook(res, payload, {
      portfolio: portfolioView(state, input.portfolio_id ?? state.config.portfolioId),
    });
  });

  // Users: BSUIDs, usernames, phones that may or may not be shared, identity changes (meta-2026 §1).
  router.get("/users", (req, res) => {
    const input = parseValue(usersListSchema, req.query, res);
    if (!input) return;
    const { phone_number_id: phoneNumberId, ...query } = input;
    const named = query.phone !== undefined || query.user_id !== undefined || query.username !== undefined;
    const found = named ? findUser(state, query) : undefined;
    const users: SandboxUser[] = named ? (found ? [found] : []) : [...state.users.values()];
    res.json({ users: users.map((user) => userView(state, user, phoneNumberId)) });
  });
  router.post("/users", (req, res) => {
    const input = parse(registerUserSchema, req, res);
    if (!input) return;
    answer(res, registerUser(state, input), (user) => userView(state, user));
  });
  router.post("/users/contact-book", (req, res) => {
    const input = parse(contactBookSchema, req, res);
    if (!input) return;
    answer(res, setContactBook(state, input), (user) => userView(state, user));
  });
  router.post("/users/phone-exchange", (req, res) => {
    const input = parse(phoneExchangeSchema, req, res);
    if (!input) return;
    answer(res, setPhoneExchange(state, input), (user) => userView(state, user, input.phone_number_id));
  });
  router.post("/users/identity-change", async (req, res) => {
    const input = parse(identityChangeSchema, req, res);
    if (!input) return;
    const outcome = changeIdentity(state, input);
    if (!("ok" in outcome)) return void res.status(outcome.status).json({ error: { message: outcome.error } });
    const webhooks: Record<string, unknown>[] = [];
    // In order, one at a time: the gateway sees the system messages before user_id_update.
    for (const notice of outcome.ok.notices) {
      const webhookStatus = await deliver(state, notice.kind, notice.payload, { source: "control" });
      webhooks.push({
        phone_number_id: notice.phoneNumberId,
        type: notice.what,
        webhook_status: webhookStatus,
        payload: notice.payload,
      });
    }
    res.json({ user: userView(state, outcome.ok.user), webhooks });
  });
  router.get("/portfolios", (_req, res) => void res.json({ portfolios: portfolioViews(state) }));
  router.post("/portfolios", (req, res) => {
    const input = parse(portfolioSchema, req, res);
    if (!input) return;
    res.json(portfolioView(state, setPortfolio(state, input)));
  });
  router.get("/read-marks", (req, res) => {
    const phoneNumberId = typeof req.query.phone_number_id === "string" ? req.query.phone_number_id : undefined;
    const marks = recent(state.readMarks, limit());
    res.json({ read_marks: phoneNumberId ? marks.filter((m) => m.phone_number_id === phoneNumberId) : marks });
  });

  router.get("/numbers", (_req, res) => {
    res.json({ numbers: Object.keys(state.config.numbers).map((id) => phoneNumberNode(state, id)) });
  });
  router.post("/numbers", (req, res) => {
    const input = parse(numberSchema, req, res);
    if (!input) return;
    const { phone_number_id: id, portfolio_id: portfolio, ...settings } = input;
    // New objects: the options the sandbox started with stay as they were, for `reset {"config": true}`.
    if (Object.keys(settings).length > 0 || portfolio === undefined)
      state.config.numbers = { ...state.config.numbers, [id]: { ...state.config.numbers[id], ...settings } };
    if (portfolio !== undefined) state.config.numberPortfolios = { ...state.config.numberPortfolios, [id]: portfolio };
    res.json(phoneNumberNode(state, id));
  });

  router.post("/user-preferences", async (req, res) => {
    const input = parse(userPreferenceSchema, req, res);
    if (!input) return;
    const user = preferenceUser(state, input);
    if (!user) return unknownUser(res);
    const payload = userPreferenceUpdate(state, input, user);
    const webhookStatus = input.webhook
      ? await deliver(state, "user_preferences", payload, { source: "control" })
      : null;
    res.json({ webhook_status: webhookStatus, payload: input.webhook ? payload : null });
  });
  router.get("/user-preferences", (_req, res) => void res.json({ stopped: stoppedContacts(state) }));

  router.get("/media", (_req, res) => {
    res.json({ media: [...state.media.values()].map(({ bytes: _bytes, ...rest }) => rest) });
  });
  registerMediaControlRoutes(router, state);

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

  router.get("/sent", (_req, res) => void res.json(recent(state.sent, limit())));
  router.get("/sent/stats", (req, res) => {
    const input = parseValue(statsSchema, req.query, res);
    if (!input) return;
    res.json({ window_ms: input.window_ms, numbers: sentStats(state, input.window_ms, input.phone_number_id) });
  });
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
    if (input.unreachable) config.unreachable = input.unreachable.map(normalizeRecipient);
    if (input.failAfterSend) config.failAfterSend = input.failAfterSend.map(normalizeRecipient);
    if (input.authenticationInternational) config.authenticationInternational = input.authenticationInternational;
    if (input.marketingMessagesNotOnboarded) config.marketingMessagesNotOnboarded = input.marketingMessagesNotOnboarded;
    if (input.enforceWindow !== undefined) config.enforceWindow = input.enforceWindow;
    if (input.paymentsUnsupported) config.paymentsUnsupported = input.paymentsUnsupported.map(normalizeRecipient);
    if (input.rateLimitPerSecond !== undefined) config.rateLimitPerSecond = input.rateLimitPerSecond ?? undefined;
    if (input.numberRates) {
      // A new object: the options the sandbox started with stay as they were, for `reset {"config": true}`.
      const rates = { ...config.numberRates };
      for (const [id, rate] of Object.entries(input.numberRates)) {
        if (rate === null) delete rates[id];
        else rates[id] = rate;
      }
      config.numberRates = rates;
    }
    if (input.pairRate !== undefined) {
      config.pairRate = input.pairRate ?? undefined;
      // Counted only while a pair rate is set: a new one starts from nothing.
      state.pairs.clear();
    }
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
