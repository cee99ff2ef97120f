import { env, leaseRenewal, loadConfig, sections, z } from "@gw/config";

/** Every variable the campaign worker reads, parsed once at start-up (documented in .env.example). */
export const campaignWorkerConfigSchema = z
  .object({
    CAMPAIGN_WORKER_HOST: z.string().default("127.0.0.1"),
    /** Health, readiness and metrics. */
    CAMPAIGN_WORKER_PORT: env.port(8084),
    ...sections.database(),
    ...sections.redis(),
    ...sections.logging(),
    // The provider and the send service, as the API has them (the worker sends through the same service).
    ...sections.meta(),
    ...sections.sending(),

    /** Campaigns ticking at once in this process (one BullMQ job each). */
    CAMPAIGN_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
    /**
     * Shares of one campaign: each is a tick job, and a process runs at most one share of a campaign at a time, so
     * up to this many worker processes send one campaign together (claiming its recipients in batches).
     */
    CAMPAIGN_SHARES: z.coerce.number().int().min(1).max(32).default(4),
    /**
     * Most sends in flight for one campaign (waiting for the number's turn included); a tick uses about half a
     * second of the number's rate, up to this.
     */
    CAMPAIGN_SEND_CONCURRENCY: z.coerce.number().int().min(1).max(2_000).default(200),
    /** How long one tick sends before handing its campaign back to the queue. */
    CAMPAIGN_TICK_BUDGET_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
    /**
     * A recipient `sending` for longer than this is sent again with the same Idempotency-Key (which settles it),
     * whoever claimed it. One claimed by a worker whose process lease ran out (PROCESS_LEASE_TTL_MS: killed) is sent
     * again at once; this bound is for claims without a live lease and a live worker's failed tick. At least
     * META_TIMEOUT_MS + CAMPAIGN_TURN_MAX_WAIT_MS + 5 s.
     */
    CAMPAIGN_REDRIVE_AFTER_MS: z.coerce.number().int().min(1_000).default(90_000),
    /** Claims of one recipient (refusals for a passing reason included) before it fails for good. */
    CAMPAIGN_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1_000).default(25),
    /** How often running and due campaigns without a job get one (after a Redis flush, a killed worker...). */
    CAMPAIGN_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(5_000),
    /** BullMQ job lock of a tick; a killed worker's campaign is taken over once it expires. */
    CAMPAIGN_LOCK_DURATION_MS: z.coerce.number().int().min(1_000).default(30_000),
    /** How often a dead worker's ticks are taken back. */
    CAMPAIGN_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(15_000),
    /** A campaign send takes the number's turn only while less than this is queued (public-API sends go first). */
    CAMPAIGN_TURN_QUEUE_MS: z.coerce.number().int().min(0).max(10_000).default(250),
    /** Longest a campaign send waits for a turn before its recipient goes back to the queue. */
    CAMPAIGN_TURN_MAX_WAIT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  })
  .refine(leaseRenewal.check, leaseRenewal.params)
  .refine((c) => c.CAMPAIGN_REDRIVE_AFTER_MS >= c.META_TIMEOUT_MS + c.CAMPAIGN_TURN_MAX_WAIT_MS + 5_000, {
    path: ["CAMPAIGN_REDRIVE_AFTER_MS"],
    message: "deve ser ao menos META_TIMEOUT_MS + CAMPAIGN_TURN_MAX_WAIT_MS + 5000 (um envio vivo nunca é reenviado)",
  });

export type CampaignWorkerConfig = z.infer<typeof campaignWorkerConfigSchema>;

export function loadCampaignWorkerConfig(source: NodeJS.ProcessEnv = process.env): CampaignWorkerConfig {
  return loadConfig(campaignWorkerConfigSchema, source);
}
