import {
  DEVELOPMENT_INTEGRATION_POLICY,
  PRODUCTION_INTEGRATION_POLICY,
  createAccountDirectory,
  createIntegrationKeys,
  createSecretBox,
  type AccountDirectory,
  type CreationOutcome,
  type IntegrationPolicy,
  type SecretBox,
} from "@gw/core/accounts";
import type { CampaignControlDeps } from "@gw/core/campaigns";
import type { ReadReceiptDeps, ThreadControlDeps } from "@gw/core/conversations";
import type { Outbox } from "@gw/core/deliveries";
import type { IdempotencyStore, ProcessLease } from "@gw/core/idempotency";
import type { SendDeps, SendJournal } from "@gw/core/messages";
import type { MediaTransferLimits, ProviderMediaDeps, UploadMediaDeps } from "@gw/core/media";
import type { TemplateCache } from "@gw/core/templates";
import { createDb, type Db } from "@gw/db";
import {
  createCampaignQueue,
  createRedis,
  createWebhookQueue,
  type CampaignQueue,
  type Redis,
  type WebhookQueue,
} from "@gw/jobs";
import { createDownloadSlots, type DownloadSlots } from "@gw/http";
import type { Logger } from "@gw/logger";
import {
  createCampaignControls,
  createMediaServices,
  createPacing,
  createPacingMetrics,
  createProvider,
  createReadReceipts,
  createReplayControls,
  createSendDeps,
  createTemplateCatalogue,
  instrumentProvider,
  registerGraphVersionGauge,
} from "@gw/wiring";
import type { ApiConfig } from "./config.ts";
import { createApiMetrics, type ApiMetrics } from "./metrics.ts";

/** Everything the API's routes need, built once from the configuration. */
export interface ApiDeps {
  config: ApiConfig;
  db: Db;
  redis: Redis;
  queue: WebhookQueue;
  /** Campaign ticks are queued here when a campaign is started, resumed... (the campaign worker consumes them). */
  campaignQueue: CampaignQueue;
  /** What the campaign services need, built once: the controls wake the campaign's job at once. */
  campaigns: CampaignControlDeps;
  outbox: Outbox;
  templates: TemplateCache;
  directory: AccountDirectory;
  journal: SendJournal;
  /** Stops following API key revocations (closes its connection). */
  stopFollowingRevocations: () => Promise<void>;
  send: SendDeps & { lease: ProcessLease };
  /** Read receipts and typing indicators (POST /messages/{message_id}/read). */
  readReceipts: ReadReceiptDeps;
  /** Conversation Routing's thread control (POST /conversations/{recipient}/thread-control). */
  threadControl: ThreadControlDeps;
  metrics: ApiMetrics;
  logger: Logger;
  /** Replays of deliveries by time range: the account's budget and the replay queue (the dispatcher runs them). */
  replays: ReturnType<typeof createReplayControls>;
  /** What integration URLs may be registered (the panel's policy, from WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
  integrationPolicy: IntegrationPolicy;
  /** Seals and opens signing secrets (SECRETS_KEYS); absent, the integration operations that need it answer 503. */
  secrets: SecretBox | null;
  /** POST /integrations' Idempotency-Keys: the sends' table, lease and lifetime (integration-creation.ts). */
  integrationKeys: IdempotencyStore<CreationOutcome>;
  /**
   * Media uploads and downloads, each account's turns for them across the pods (MEDIA_UPLOADS_PER_ACCOUNT,
   * MEDIA_DOWNLOADS_PER_ACCOUNT) and this process's slots (MEDIA_UPLOADS_PER_POD, MEDIA_DOWNLOADS_PER_POD).
   */
  media: {
    upload: UploadMediaDeps;
    open: ProviderMediaDeps;
    uploadLimits: MediaTransferLimits;
    downloadLimits: MediaTransferLimits;
    uploadSlots: DownloadSlots;
    downloadSlots: DownloadSlots;
  };
  /** Meta webhook bodies this process reads before their signature is checked (META_WEBHOOK_MAX_UNVERIFIED). */
  unverifiedWebhookBodies: DownloadSlots;
}

export function buildApiDeps(config: ApiConfig, logger: Logger, overrides: { db?: Db; redis?: Redis } = {}): ApiDeps {
  const db =
    overrides.db ??
    createDb({
      url: config.DATABASE_URL,
      poolSize: config.DATABASE_POOL_SIZE,
      ...(config.DATABASE_LISTEN_URL ? { listenUrl: config.DATABASE_LISTEN_URL } : {}),
    });
  const redis = overrides.redis ?? createRedis(config);
  const queue = createWebhookQueue(redis, config.REDIS_KEY_PREFIX);
  const metrics = createApiMetrics(queue, { journalEntries: () => send.journal.size() });
  const meta = instrumentProvider(createProvider(config, logger), metrics.registry);
  registerGraphVersionGauge(metrics.registry, config.META_API_VERSION);
  const templates = createTemplateCatalogue(config, { redis, meta, logger });
  const directory = createAccountDirectory(db, {
    apiKeyTtlMs: config.API_KEY_CACHE_TTL_MS,
    unknownKeyTtlMs: Math.min(config.API_KEY_CACHE_TTL_MS, 2_000),
    numberTtlMs: config.NUMBER_CACHE_TTL_MS,
    maxEntries: 10_000,
  });
  // Every send from a number is paced at its messaging rate, shared with the other pods and the campaign worker.
  const throughput = createPacing(config, { redis, observer: createPacingMetrics(metrics.registry) });
  const send = createSendDeps(config, {
    service: "api",
    db,
    redis,
    webhookQueue: queue,
    meta,
    templates,
    directory,
    throughput,
    logger,
    // Past the provider deadline plus a margin, an in-flight reservation belongs to a dead process.
    reservationStaleAfterMs: config.IDEMPOTENCY_STALE_AFTER_MS ?? config.META_TIMEOUT_MS + 60_000,
  });
  // Renewed until closeApiDeps; its timers never keep the process alive.
  send.lease.start();
  const campaignQueue = createCampaignQueue(redis, config.REDIS_KEY_PREFIX);
  return {
    config,
    db,
    redis,
    queue,
    campaignQueue,
    campaigns: createCampaignControls({ db, logger, throughput, campaignQueue }),
    outbox: send.outbox,
    templates,
    directory,
    journal: send.journal,
    stopFollowingRevocations: directory.followRevocations(),
    logger,
    metrics,
    send,
    replays: createReplayControls(config, { db, redis, logger }),
    integrationPolicy: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS
      ? DEVELOPMENT_INTEGRATION_POLICY
      : PRODUCTION_INTEGRATION_POLICY,
    secrets: config.SECRETS_KEYS ? createSecretBox(config.SECRETS_KEYS) : null,
    integrationKeys: createIntegrationKeys(db, {
      ttlHours: config.IDEMPOTENCY_TTL_HOURS,
      staleAfterMs: config.IDEMPOTENCY_STALE_AFTER_MS ?? config.META_TIMEOUT_MS + 60_000,
      owner: send.lease.owner,
    }),
    media: {
      ...createMediaServices(config, { db, redis, meta, directory, logger }),
      // An upload is refused at once when the pod is full: waiting would hold its client's body.
      uploadSlots: createDownloadSlots({ max: config.MEDIA_UPLOADS_PER_POD, maxWaiting: 0 }),
      downloadSlots: createDownloadSlots({ max: config.MEDIA_DOWNLOADS_PER_POD }),
    },
    // No line: a body waiting for its turn would be held all the same.
    unverifiedWebhookBodies: createDownloadSlots({ max: config.META_WEBHOOK_MAX_UNVERIFIED, maxWaiting: 0 }),
    threadControl: { db, meta, directory, logger },
    readReceipts: createReadReceipts(config, {
      db,
      redis,
      meta,
      directory,
      throughput,
      logger,
      providerRetryAfterSeconds: config.PROVIDER_RETRY_AFTER_SECONDS,
    }),
  };
}

/**
 * Once the server has closed (no send in flight): the lease is deleted first, so any key this process still held
 * settles at once on another pod instead of when the lease would have run out.
 */
export async function closeApiDeps(deps: ApiDeps): Promise<void> {
  await deps.send.lease.stop();
  await Promise.allSettled([
    deps.queue.close(),
    deps.campaignQueue.close(),
    deps.replays.close(),
    deps.stopFollowingRevocations(),
    deps.db.$disconnect(),
  ]);
  await Promise.allSettled([deps.redis.quit()]);
}
