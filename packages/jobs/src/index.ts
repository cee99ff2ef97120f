export { createRedis, pingRedis } from "./redis.ts";
export type { Redis } from "./redis.ts";
export { QUEUES, deliverWebhookJob } from "./catalogue.ts";
export type { DeliverWebhookPayload } from "./catalogue.ts";
export { createWebhookQueue, enqueueDeliveryAttempt } from "./queues.ts";
export type { WebhookQueue } from "./queues.ts";
export { registerQueueDepthGauge } from "./metrics.ts";
