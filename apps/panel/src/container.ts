import {
  DEVELOPMENT_INTEGRATION_POLICY,
  PRODUCTION_INTEGRATION_POLICY,
  createAccountDirectory,
  createSecretBox,
  type AccountDirectory,
  type IntegrationPolicy,
  type SecretBox,
} from "@gw/core/accounts";
import type { CampaignControlDeps } from "@gw/core/campaigns";
import type { ReadReceiptDeps } from "@gw/core/conversations";
import type { TemplateCache } from "@gw/core/templates";
import type { NumberThroughput } from "@gw/core/throughput";
import { createDb, type Db } from "@gw/db";
import {
  createCampaignQueue,
  createRedis,
  createWebhookQueue,
  type CampaignQueue,
  type Redis,
  type WebhookQueue,
} from "@gw/jobs";
import type { Logger } from "@gw/logger";
import type { MetaClient } from "@gw/meta";
import type { SendDeps, SendJournal } from "@gw/core/messages";
import type { ProcessLease } from "@gw/core/idempotency";
import {
  createCampaignControls,
  createPacing,
  createProvider,
  createReadReceipts,
  createReplayControls,
  createSendDeps,
  createTemplateCatalogue,
} from "@gw/wiring";
import type { PanelConfig } from "./config.ts";
import { createDownloadSlots, type DownloadSlots } from "@gw/http";
import { createLoginThrottle, type LoginThrottle } from "./http/throttle.ts";
import type { SessionOptions } from "./http/session.ts";

/** Everything the panel's pages need, built once from the configuration. */
export interface PanelDeps {
  config: PanelConfig;
  db: Db;
  redis: Redis;
  /** Resends queue their attempt here, as the public API's retry does. */
  queue: WebhookQueue;
  meta: MetaClient;
  templates: TemplateCache;
  /** Business numbers and their WABAs, as the API resolves them. */
  directory: AccountDirectory;
  logger: Logger;
  throttle: LoginThrottle;
  session: SessionOptions;
  /** Media downloads from Meta this process serves at once (PANEL_MEDIA_MAX_CONCURRENT). */
  mediaSlots: DownloadSlots;
  integrationPolicy: IntegrationPolicy;
  /** Seals and opens integrations' signing secrets (SECRETS_KEYS). */
  secrets: SecretBox;
  /** Campaign controls give the campaign its tick job here (apps/campaign-worker runs it), as the API's do. */
  campaignQueue: CampaignQueue;
  /**
   * The numbers' pacing shared with the API and the worker: campaign ETAs use the rate in force, and Conversas'
   * read receipts take the number's turn like any call that goes out through it.
   */
  throughput: NumberThroughput;
  /** Conversas marks a conversation read at Meta when it is opened (when the account's setting is on). */
  readReceipts: ReadReceiptDeps;
  /** The campaign services' deps: the controls wake the campaign's tick job at once, as the API's do. */
  campaigns: CampaignControlDeps;
  /** Replays of deliveries by time range: the account's budget (shared with the API) and the replay queue. */
  replays: ReturnType<typeof createReplayControls>;
  /**
   * The send service, as the API's (Pedidos sends an order's next status): pacing, window, Idempotency-Keys, pricing
   * and audit are the same. Its own process lease names this process's reservations; accepted sends PostgreSQL could
   * not take go to the shared journal, which the API replays.
   */
  send: SendDeps & { journal: SendJournal; lease: ProcessLease };
}

export function buildPanelDeps(
  config: PanelConfig,
  logger: Logger,
  overrides: { db?: Db; redis?: Redis; meta?: MetaClient } = {},
): PanelDeps {
  const db = overrides.db ?? createDb({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
  const redis = overrides.redis ?? createRedis(config);
  const meta = overrides.meta ?? createProvider(config, logger);
  const campaignQueue = createCampaignQueue(redis, config.REDIS_KEY_PREFIX);
  // The numbers' pacing with the sending section's settings: campaign ETAs, a turn per read receipt and per order
  // status sent from Pedidos.
  const throughput = createPacing(config, { redis });
  const directory = createAccountDirectory(db);
  const templates = createTemplateCatalogue(config, { redis, meta, logger });
  const queue = createWebhookQueue(redis, config.REDIS_KEY_PREFIX);
  const send = createSendDeps(config, {
    service: "panel",
    db,
    redis,
    webhookQueue: queue,
    meta,
    templates,
    directory,
    throughput,
    logger,
    // As the API's default: past the provider deadline plus a margin, an in-flight reservation belongs to a dead process.
    reservationStaleAfterMs: config.META_TIMEOUT_MS + 60_000,
  });
  // Renewed until closePanelDeps; its timers never keep the process alive.
  send.lease.start();
  return {
    config,
    db,
    redis,
    queue,
    meta,
    // The same cache the API reads (same Redis keys), so the panel and the API show one catalogue.
    templates,
    directory,
    logger,
    throttle: createLoginThrottle({
      redis,
      keyPrefix: config.REDIS_KEY_PREFIX,
      maxFailuresPerEmail: config.PANEL_LOGIN_MAX_FAILURES_PER_EMAIL,
      maxFailuresPerIp: config.PANEL_LOGIN_MAX_FAILURES_PER_IP,
      windowMinutes: config.PANEL_LOGIN_WINDOW_MINUTES,
    }),
    session: {
      secure: config.PANEL_COOKIE_SECURE,
      ttlMs: config.PANEL_SESSION_TTL_HOURS * 3600_000,
      maxAgeMs: config.PANEL_SESSION_MAX_HOURS * 3600_000,
      reauthIdleMs: config.PANEL_REAUTH_IDLE_MINUTES * 60_000,
    },
    mediaSlots: createDownloadSlots({ max: config.PANEL_MEDIA_MAX_CONCURRENT }),
    integrationPolicy: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS
      ? DEVELOPMENT_INTEGRATION_POLICY
      : PRODUCTION_INTEGRATION_POLICY,
    secrets: createSecretBox(config.SECRETS_KEYS),
    campaignQueue,
    throughput,
    campaigns: createCampaignControls({ db, logger, throughput, campaignQueue }),
    readReceipts: createReadReceipts(config, { db, redis, meta, directory, throughput, logger }),
    replays: createReplayControls(config, { db, redis, logger }),
    send,
  };
}

/**
 * Once the server has closed (no send in flight): the lease is deleted first, so a key this process still held
 * settles at once elsewhere instead of when the lease would have run out.
 */
export async function closePanelDeps(deps: PanelDeps): Promise<void> {
  await deps.send.lease.stop();
  await Promise.allSettled([
    deps.queue.close(),
    deps.campaignQueue.close(),
    deps.replays.close(),
    deps.db.$disconnect(),
  ]);
  await Promise.allSettled([deps.redis.quit()]);
}
