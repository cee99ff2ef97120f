// The one place the apps assemble the services of @gw/core from their configuration (ARCHITECTURE.md, "Wiring"):
// the API, the campaign worker and the panel build their provider client, template catalogue, send service and
// campaign controls here, so the same settings mean the same thing in every process.
import type { SectionValues } from "@gw/config";
import type { AccountDirectory } from "@gw/core/accounts";
import { createContactKeyCache } from "@gw/core/contacts";
import type { CampaignControlDeps } from "@gw/core/campaigns";
import { createTypingLimiter, type ReadReceiptDeps } from "@gw/core/conversations";
import { createOutbox, type CreateReplayDeps } from "@gw/core/deliveries";
import {
  createMediaTransferLimits,
  type MediaTransferLimits,
  type ProviderMediaDeps,
  type UploadMediaDeps,
} from "@gw/core/media";
import { createIdempotencyStore, createProcessLease, type ProcessLease } from "@gw/core/idempotency";
import {
  UNCONFIRMED_SEND,
  createSendJournal,
  createSendRecorder,
  type MessageSender,
  type SendDeps,
  type SendJournal,
  type SettledSend,
} from "@gw/core/messages";
import { TemplateCache } from "@gw/core/templates";
import {
  createNumberThroughput,
  type NumberThroughput,
  type PacingObserver,
  type ThroughputPolicy,
} from "@gw/core/throughput";
import type { Db } from "@gw/db";
import {
  createReplayQueue,
  wakeCampaigns,
  wakeReplays,
  type CampaignQueue,
  type Redis,
  type ReplayQueue,
  type WebhookQueue,
} from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { GRAPH_VERSION_WARNING_DAYS, createMetaClient, graphVersionExpiry, type MetaClient } from "@gw/meta";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

export { createPacingMetrics, instrumentProvider, registerGraphVersionGauge } from "./metrics.ts";

type ProviderConfig = SectionValues<"meta"> & SectionValues<"redis">;

/**
 * Meta's Graph API client, as every app calls it. A configured version Meta retires within
 * GRAPH_VERSION_WARNING_DAYS (or already retired) is logged as a warning once, as the process starts; the apps with
 * /metrics also export its days left (`registerGraphVersionGauge`), which an alert watches.
 */
export function createProvider(config: SectionValues<"meta">, logger: Logger, now = Date.now()): MetaClient {
  const expiry = graphVersionExpiry(config.META_API_VERSION, now);
  if (expiry && expiry.daysLeft < GRAPH_VERSION_WARNING_DAYS)
    logger.warn("configured Graph API version is near its end", {
      version: config.META_API_VERSION,
      expiresOn: expiry.expiresOn,
      daysLeft: expiry.daysLeft,
    });
  return createMetaClient({
    baseUrl: config.META_BASE_URL,
    apiVersion: config.META_API_VERSION,
    accessToken: config.META_ACCESS_TOKEN,
    timeoutMs: config.META_TIMEOUT_MS,
    logger,
  });
}

/** The template catalogue per WABA, cached in Redis under the same keys in every app (one catalogue for all). */
export function createTemplateCatalogue(
  config: ProviderConfig,
  parts: { redis: Redis; meta: Pick<MetaClient, "listTemplates">; logger: Logger },
): TemplateCache {
  return new TemplateCache({
    redis: parts.redis,
    keyPrefix: config.REDIS_KEY_PREFIX,
    ttlSeconds: config.TEMPLATE_CACHE_TTL_SECONDS,
    source: {
      listTemplates: (wabaId) => parts.meta.listTemplates(wabaId, { pageSize: config.META_TEMPLATES_PAGE_SIZE }),
    },
    logger: parts.logger,
  });
}

/**
 * The numbers' pacing (one Lua script in Redis, shared by every pod), with the sending section's back-off settings;
 * `policy` adds a process's own (the campaign worker's turn queue and wait), `observer` its metrics
 * (`createPacingMetrics`).
 */
export function createPacing(
  config: SectionValues<"sending"> & SectionValues<"redis">,
  parts: { redis: Redis; policy?: Partial<ThroughputPolicy>; observer?: PacingObserver },
): NumberThroughput {
  return createNumberThroughput({
    redis: parts.redis,
    keyPrefix: config.REDIS_KEY_PREFIX,
    ...(parts.observer ? { observer: parts.observer } : {}),
    policy: {
      cooldownMs: config.THROUGHPUT_COOLDOWN_MS,
      pairSpacingMs: config.THROUGHPUT_PAIR_SPACING_MS,
      ...parts.policy,
    },
  });
}

export interface SendParts {
  /** The process's name (`api`, `campaign-worker`), recorded with its lease. */
  service: string;
  db: Db;
  /**
   * Connections for the Idempotency-Key statements; `db` when absent. The campaign worker gives them a pool of
   * their own, so the provider-call mark never queues behind other sends' commits.
   */
  keysDb?: Db;
  redis: Redis;
  /** Where the deliveries of statuses that arrived before a send was recorded are queued. */
  webhookQueue: WebhookQueue;
  meta: MessageSender;
  templates: TemplateCache;
  directory: AccountDirectory;
  throughput: NumberThroughput;
  logger: Logger;
  /**
   * An in-flight reservation older than this belongs to a dead process: longer than the longest a live send takes
   * between its reservation and the provider's answer (turn wait and provider deadline included).
   */
  reservationStaleAfterMs: number;
}

/**
 * The send service's dependencies (`sendMessage`), for the public API and the campaign worker alike, with the
 * process's lease (`lease`): its reservations name it as their owner, so once it runs out (the process died) a repeat
 * settles them at once. The app starts the lease with the process and stops it (deleting it) on shutdown, after the
 * sends in flight.
 */
export function createSendDeps(
  config: SectionValues<"sending"> & SectionValues<"redis">,
  parts: SendParts,
): SendDeps & { journal: SendJournal; lease: ProcessLease } {
  const keysDb = parts.keysDb ?? parts.db;
  // On the key statements' connections: in the campaign worker, a pool of their own, never queued behind commits.
  const lease = createProcessLease(keysDb.sql, {
    service: parts.service,
    ttlMs: config.PROCESS_LEASE_TTL_MS,
    renewEveryMs: config.PROCESS_LEASE_RENEW_MS,
    logger: parts.logger,
  });
  return {
    db: parts.db,
    meta: parts.meta,
    templates: parts.templates,
    idempotency: createIdempotencyStore<SettledSend>(keysDb, {
      ttlHours: config.IDEMPOTENCY_TTL_HOURS,
      staleAfterMs: parts.reservationStaleAfterMs,
      unconfirmed: UNCONFIRMED_SEND,
      owner: lease.owner,
    }),
    lease,
    directory: parts.directory,
    outbox: createOutbox(parts.webhookQueue, parts.logger),
    // Sends accepted side by side are recorded in one transaction (group commit, as status webhooks are).
    recorder: createSendRecorder(
      { db: parts.db },
      { maxBatch: config.SEND_COMMIT_BATCH_MAX, maxInFlight: config.SEND_COMMIT_BATCH_MAX_IN_FLIGHT },
    ),
    contactKeys: createContactKeyCache(),
    // Accepted sends PostgreSQL could not take wait here; the API replays them.
    journal: createSendJournal({ redis: parts.redis, keyPrefix: config.REDIS_KEY_PREFIX, logger: parts.logger }),
    logger: parts.logger,
    providerRetryAfterSeconds: config.PROVIDER_RETRY_AFTER_SECONDS,
    throughput: parts.throughput,
    // Half the stale bound: a send still short of the provider then gives up (nothing sent, key freed) long before a
    // repeat could take its reservation for a dead one's.
    preProviderBudgetMs: Math.floor(parts.reservationStaleAfterMs / 2),
    // Pix orders' claims follow the key's liveness rules: this process's lease, the same stale bound (issue 28).
    orderClaims: { owner: lease.owner, staleAfterMs: parts.reservationStaleAfterMs },
  };
}

/** What the campaign services need: their controls give the campaign its tick job at once (the worker runs it). */
export function createCampaignControls(parts: {
  db: Db;
  logger: Logger;
  throughput: NumberThroughput;
  campaignQueue: CampaignQueue;
}): CampaignControlDeps {
  return {
    db: parts.db,
    logger: parts.logger,
    throughput: parts.throughput,
    wake: (campaigns) => wakeCampaigns(parts.campaignQueue, campaigns),
  };
}

/**
 * What marking inbound messages read needs (the public API's read route and the panel's Conversas): the numbers'
 * pacing (a receipt takes a turn like a send) and the per-conversation typing indicator limit, in the same Redis
 * keys in every process.
 */
export function createReadReceipts(
  config: SectionValues<"redis">,
  parts: {
    db: Db;
    redis: Redis;
    meta: Pick<MetaClient, "markRead">;
    directory: AccountDirectory;
    throughput: NumberThroughput;
    logger: Logger;
    /** The sending section's PROVIDER_RETRY_AFTER_SECONDS, where the process has it (the API). */
    providerRetryAfterSeconds?: number;
  },
): ReadReceiptDeps {
  return {
    db: parts.db,
    meta: parts.meta,
    directory: parts.directory,
    logger: parts.logger,
    throughput: parts.throughput,
    typing: createTypingLimiter({ redis: parts.redis, keyPrefix: config.REDIS_KEY_PREFIX }),
    ...(parts.providerRetryAfterSeconds === undefined
      ? {}
      : { providerRetryAfterSeconds: parts.providerRetryAfterSeconds }),
  };
}

/**
 * The media services (POST /public/v1/media, GET /public/v1/media/{media_id}): the upload, the download through
 * Meta's media endpoint, and each one's per-account cap of transfers in flight (a Redis lease under the same keys in
 * every pod, MEDIA_UPLOADS_PER_ACCOUNT and MEDIA_DOWNLOADS_PER_ACCOUNT, lasting at most MEDIA_TRANSFER_TIMEOUT_MS).
 */
export function createMediaServices(
  config: SectionValues<"redis"> & {
    MEDIA_UPLOADS_PER_ACCOUNT: number;
    MEDIA_DOWNLOADS_PER_ACCOUNT: number;
    MEDIA_TRANSFER_TIMEOUT_MS: number;
  },
  parts: {
    db: Db;
    redis: Redis;
    meta: Pick<MetaClient, "uploadMedia" | "getMedia" | "streamMedia">;
    directory: AccountDirectory;
    logger: Logger;
  },
): {
  upload: UploadMediaDeps;
  open: ProviderMediaDeps;
  uploadLimits: MediaTransferLimits;
  downloadLimits: MediaTransferLimits;
} {
  const limits = (kind: MediaTransferLimits["kind"], perAccount: number) =>
    createMediaTransferLimits({
      redis: parts.redis,
      keyPrefix: config.REDIS_KEY_PREFIX,
      kind,
      perAccount,
      leaseMs: config.MEDIA_TRANSFER_TIMEOUT_MS,
      logger: parts.logger,
    });
  return {
    upload: { db: parts.db, directory: parts.directory, meta: parts.meta, logger: parts.logger },
    open: { db: parts.db, meta: parts.meta, logger: parts.logger },
    uploadLimits: limits("uploads", config.MEDIA_UPLOADS_PER_ACCOUNT),
    downloadLimits: limits("downloads", config.MEDIA_DOWNLOADS_PER_ACCOUNT),
  };
}

/**
 * What starting a replay of deliveries needs (the public API and the panel alike): the account's budget of replays
 * (REPLAYS_PER_ACCOUNT per REPLAYS_WINDOW_SECONDS, counted in Redis under the same keys in every process, with the
 * per-key limit's machinery: rate-limiter-flexible, a per-pod memory limiter when Redis does not answer) and the
 * replay queue, so the new replay's job starts at once. `close` closes the queue.
 */
export function createReplayControls(
  config: SectionValues<"redis"> & SectionValues<"replays">,
  parts: { db: Db; redis: Redis; logger: Logger },
): CreateReplayDeps & { queue: ReplayQueue; close(): Promise<void> } {
  const limiter = new RateLimiterRedis({
    storeClient: parts.redis,
    keyPrefix: `${config.REDIS_KEY_PREFIX}:replays`,
    points: config.REPLAYS_PER_ACCOUNT,
    duration: config.REPLAYS_WINDOW_SECONDS,
    insuranceLimiter: new RateLimiterMemory({
      points: config.REPLAYS_PER_ACCOUNT,
      duration: config.REPLAYS_WINDOW_SECONDS,
    }),
  });
  const queue = createReplayQueue(parts.redis, config.REDIS_KEY_PREFIX);
  return {
    db: parts.db,
    logger: parts.logger,
    queue,
    wake: (replayIds) => wakeReplays(queue, replayIds),
    limiter: {
      async take(accountId) {
        try {
          await limiter.consume(accountId);
          return {
            granted: true,
            refund: async () => {
              await limiter.reward(accountId, 1);
            },
          };
        } catch (rejection: unknown) {
          if (rejection instanceof RateLimiterRes) return { granted: false, retryAfterMs: rejection.msBeforeNext };
          throw rejection;
        }
      },
    },
    close: () => queue.close(),
  };
}
