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
import { createNumberThroughput, type NumberThroughput } from "@gw/core/throughput";
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
import {
  createCampaignControls,
  createProvider,
  createReadReceipts,
  createReplayControls,
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
  // The number's back-off factor (campaign ETAs) and a turn per read receipt; sends happen in the API and the
  // worker. The panel has no sending section: a throttle it hears backs the number off with the default settings.
  const throughput = createNumberThroughput({ redis, keyPrefix: config.REDIS_KEY_PREFIX });
  const directory = createAccountDirectory(db);
  return {
    config,
    db,
    redis,
    queue: createWebhookQueue(redis, config.REDIS_KEY_PREFIX),
    meta,
    // The same cache the API reads (same Redis keys), so the panel and the API show one catalogue.
    templates: createTemplateCatalogue(config, { redis, meta, logger }),
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
  };
}

export async function closePanelDeps(deps: PanelDeps): Promise<void> {
  await Promise.allSettled([
    deps.queue.close(),
    deps.campaignQueue.close(),
    deps.replays.close(),
    deps.db.$disconnect(),
  ]);
  await Promise.allSettled([deps.redis.quit()]);
}
