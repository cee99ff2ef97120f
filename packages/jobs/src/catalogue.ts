import { z } from "zod";

/**
 * The typed job catalogue shared by producers (the API, the panel, the dispatcher, the campaign worker) and consumers
 * (the dispatcher's webhook and replay workers, the campaign worker's `campaign.tick`).
 * Payloads carry ids only: the processor reloads state from Postgres, the source of truth. Each queue's worker
 * gets its handlers as a map keyed by this catalogue (`JobHandlers`), so the compiler refuses a job without one.
 */
export const QUEUES = {
  webhooks: "webhook-deliveries",
  campaigns: "campaigns",
  replays: "delivery-replays",
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const deliverWebhookJob = {
  name: "webhook.deliver",
  queue: QUEUES.webhooks,
  payload: z.object({
    deliveryId: z.string().regex(/^\d+$/),
    /** The attempt this job performs (1-based, monotonic across manual retries). */
    attempt: z.number().int().min(1),
    /**
     * The delivery's integration, when the producer knows it: the dispatcher then applies its per-integration
     * in-flight cap and circuit breaker before touching PostgreSQL. Jobs without it (first attempts from the
     * outbox, jobs queued before it existed) are claimed first and checked after the claim.
     */
    integrationId: z.guid().optional(),
    /**
     * The W3C context the attempt is a child of (the send's trace, for a message's statuses), when the producer
     * knows it; otherwise the dispatcher reads the row's (deliveries.trace_context).
     */
    traceparent: z.string().max(256).optional(),
  }),
  /** One job per attempt: a job id derived from delivery + attempt can never be queued twice. */
  jobId: (deliveryId: string | bigint, attempt: number) => `delivery-${deliveryId}-attempt-${attempt}`,
  options: {
    // Retries after a failed HTTP attempt are scheduled by the dispatcher itself (its own ±20 % jitter, spec 6.5),
    // one job per attempt. BullMQ's attempts only cover a job that threw: a dependency outage (PostgreSQL, Redis)
    // before the attempt was recorded. Such a retry spends no delivery attempt.
    attempts: 8,
    backoff: { type: "exponential", delay: 1_000 },
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  },
} as const;

export type DeliverWebhookPayload = z.infer<typeof deliverWebhookJob.payload>;

/** Most first attempts one job carries (a commit's deliveries for one integration are split in jobs of this size). */
export const MAX_FIRST_ATTEMPTS_PER_JOB = 50;

/**
 * The first attempts of several deliveries of one integration, committed together (one provider webhook's statuses,
 * several webhooks sharing a commit): one job instead of one per delivery, so BullMQ's own work (add, fetch, finish,
 * each a script of ten to thirty Redis commands) is paid once per commit and integration, and the attempts' claims
 * and results are one statement each (docs/performance.md, "Fifth pass"). Each delivery row names its job
 * (`deliveries.batch_id`, the first delivery of the job), so the sweep knows a row is covered while the job lives.
 * What the job cannot do now (its integration at its in-flight cap, a breaker open) stays in it, deferred; what it
 * did not do by its end gets a job of its own from the sweep. Retries are always jobs of their own.
 */
export const deliverFirstAttemptsJob = {
  name: "webhook.deliver-first-attempts",
  queue: QUEUES.webhooks,
  payload: z.object({
    integrationId: z.guid(),
    /** In creation order; the first names the job. */
    deliveryIds: z.array(z.string().regex(/^\d+$/)).min(1).max(MAX_FIRST_ATTEMPTS_PER_JOB),
    /** Each delivery's trace context (same order), when the producer knows it. */
    traceparents: z.array(z.string().max(256).nullable()).optional(),
  }),
  jobId: (batchId: string | bigint) => `deliveries-${batchId}-attempt-1`,
  options: deliverWebhookJob.options,
} as const;

export type DeliverFirstAttemptsPayload = z.infer<typeof deliverFirstAttemptsJob.payload>;

/**
 * The options of a job that defers itself until its work is done, under a fixed id (a campaign's tick, a replay): a
 * run that threw is retried by BullMQ, and a finished job is removed at once so that its id is free again.
 */
const SELF_DEFERRING_JOB_OPTIONS = {
  attempts: 8,
  backoff: { type: "exponential", delay: 1_000 },
  removeOnComplete: true,
  removeOnFail: true,
} as const;

/**
 * One running campaign's turn of work (apps/campaign-worker): the processor reloads the campaign from PostgreSQL,
 * sends to its queued recipients for a while, then defers itself (or ends when the campaign is no longer running).
 * A campaign has a few such jobs, its shares (`CAMPAIGN_SHARES`), so several worker processes send it at once; each
 * share's job id is fixed, so a wake-up for a share that already has a job (waiting, delayed or active) adds nothing.
 * Share 0 keeps the id jobs had before shares existed. The worker's sweep gives a job to every share of every
 * running or due campaign that has none (Redis flushed, a worker killed before its first defer).
 */
export const campaignTickJob = {
  name: "campaign.tick",
  queue: QUEUES.campaigns,
  payload: z.object({ campaignId: z.guid(), share: z.number().int().min(0).optional() }),
  jobId: (campaignId: string, share = 0) =>
    share === 0 ? `campaign-${campaignId}` : `campaign-${campaignId}-${share}`,
  // A tick that threw (PostgreSQL or Redis unavailable) runs again; nothing it did is lost (the state is in
  // PostgreSQL and each recipient is reserved before its send). Finished jobs go at once, so the campaign's job id
  // is free for its next start or resume.
  options: SELF_DEFERRING_JOB_OPTIONS,
} as const;

export type CampaignTickPayload = z.infer<typeof campaignTickJob.payload>;

/**
 * One replay of deliveries by time range (issue 21; apps/dispatcher runs it): each run re-queues one short batch of
 * the replay's matching deliveries, records its place on the replay row, and defers itself for the next batch until
 * none is left. One job per replay (its id is the replay's); the dispatcher's sweep gives a job to every replay not
 * completed that has none (Redis flushed, a crash before the first run).
 */
export const replayDeliveriesJob = {
  name: "deliveries.replay",
  queue: QUEUES.replays,
  payload: z.object({ replayId: z.guid() }),
  jobId: (replayId: string) => `replay-${replayId}`,
  // A run that threw (PostgreSQL or Redis unavailable) runs again; each batch commits with its progress.
  options: SELF_DEFERRING_JOB_OPTIONS,
} as const;

export type ReplayDeliveriesPayload = z.infer<typeof replayDeliveriesJob.payload>;

/** Every job, by name: `<subject>.<verb>`. */
export const JOB_CATALOGUE = {
  [deliverWebhookJob.name]: deliverWebhookJob,
  [deliverFirstAttemptsJob.name]: deliverFirstAttemptsJob,
  [campaignTickJob.name]: campaignTickJob,
  [replayDeliveriesJob.name]: replayDeliveriesJob,
} as const;

/**
 * Names jobs had in earlier releases, still read: jobs a pod of the previous release queued are processed during a
 * rolling update (and until they drain). Dropped once no release writes them.
 */
export const LEGACY_JOB_NAMES: Readonly<Record<string, keyof typeof JOB_CATALOGUE>> = {
  "deliver-webhook": deliverWebhookJob.name,
};

type Catalogue = typeof JOB_CATALOGUE;
export type JobName = keyof Catalogue;
export type JobPayload<N extends JobName> = z.infer<Catalogue[N]["payload"]>;
/** The job names a queue carries. */
export type JobNamesOf<Q extends QueueName> = { [N in JobName]: Catalogue[N]["queue"] extends Q ? N : never }[JobName];

/** What a handler may do with its job besides finishing it. */
export interface JobControl<P> {
  /**
   * Put the job back in the queue, delayed until `at`, without counting one of its BullMQ attempts, and free the
   * worker slot (never resolves: it ends the handler). `data` replaces the payload for the next run.
   */
  defer(at: Date, data?: P): Promise<never>;
}

/** One handler per job of the queue; the result string is kept on the completed job (Bull Board shows it). */
export type JobHandlers<Q extends QueueName> = {
  [N in JobNamesOf<Q>]: (payload: JobPayload<N>, job: JobControl<JobPayload<N>>) => Promise<string>;
};
