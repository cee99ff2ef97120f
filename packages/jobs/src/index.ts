export { createRedis, pingRedis } from "./redis.ts";
export type { Redis, RedisTarget } from "./redis.ts";
export {
  JOB_CATALOGUE,
  MAX_FIRST_ATTEMPTS_PER_JOB,
  QUEUES,
  campaignTickJob,
  deliverFirstAttemptsJob,
  deliverWebhookJob,
  replayDeliveriesJob,
} from "./catalogue.ts";
export type {
  CampaignTickPayload,
  DeliverFirstAttemptsPayload,
  DeliverWebhookPayload,
  JobControl,
  JobHandlers,
  JobName,
  JobNamesOf,
  JobPayload,
  QueueName,
  ReplayDeliveriesPayload,
} from "./catalogue.ts";
export { createProcessor } from "./processor.ts";
export { createWebhookQueue, enqueueAttempts, enqueueDeliveryAttempt, enqueueFirstAttempts } from "./queues.ts";
export type { AttemptToQueue, WebhookQueue } from "./queues.ts";
export { registerMemoryLimitGauge, registerQueueDepthGauge } from "./metrics.ts";
export { createCampaignQueue, wakeCampaigns } from "./campaigns.ts";
export type { CampaignQueue, CampaignWake } from "./campaigns.ts";
// The plumbing of a worker process (dispatcher, campaign worker): periodic tasks, deadlines, probes.
export { closeRedis, withDeadline } from "./process/lifecycle.ts";
export { createPeriodicTasks } from "./process/periodic.ts";
export type { PeriodicTask, PeriodicTasks, PeriodicTaskSpec } from "./process/periodic.ts";
export { createProbeServer } from "./process/probes.ts";
export type { ProbeDeps } from "./process/probes.ts";
export { createReplayQueue, wakeReplays } from "./replays.ts";
export type { ReplayQueue } from "./replays.ts";
