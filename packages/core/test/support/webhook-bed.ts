// What the delivery tests of core stand on (not a test file itself): a database and the webhook queue under the run's
// Redis prefix and, for the attempt tests, a webhook sender and a receiver on loopback with the attempt's deps.
import { createDb, type Db } from "@gw/db";
import { createRedis, createWebhookQueue, type Redis, type WebhookQueue } from "@gw/jobs";
import {
  reply,
  silentLogger,
  startReceiver,
  testSecretBox,
  type isolatedDatabase,
  type Receiver,
  type ReceiverHandler,
  type TestEnv,
} from "@gw/testkit";
import {
  createDeliveryScheduler,
  createWebhookSender,
  type DeliverySettings,
  type ProcessDeliveryDeps,
  type WebhookSender,
  type WebhookSenderOptions,
} from "../../src/deliveries/index.ts";

export interface QueueBed {
  db: Db;
  redis: Redis;
  queue: WebhookQueue;
  /** The run's Redis URL and key prefix (a BullMQ worker of the test connects with them). */
  redisUrl: string;
  prefix: string;
  /** Empties and closes the queue, disconnects Redis, and drops the database (or disconnects from the shared one). */
  close(): Promise<void>;
}

/** A database of the file's own (its tests sweep or update whole tables), dropped with the bed. */
type OwnDatabase = Awaited<ReturnType<typeof isolatedDatabase>>;

/** The bed on `env`, the run's stack: its Redis, and its test database unless the file brings `database`. */
export function openQueueBed(env: TestEnv, database?: OwnDatabase): QueueBed {
  const db = database?.db ?? createDb({ url: env.databaseUrl, poolSize: 4 });
  const redis = createRedis(env.redisUrl);
  const queue = createWebhookQueue(redis, env.redisPrefix);
  return {
    db,
    redis,
    queue,
    redisUrl: env.redisUrl,
    prefix: env.redisPrefix,
    async close() {
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
      await (database ? database.drop() : db.$disconnect());
    },
  };
}

export interface AttemptBed extends QueueBed {
  sender: WebhookSender;
  receiver: Receiver;
  /** processDeliveryAttempt's deps on this bed: the test secret box, a silent logger. */
  deps: ProcessDeliveryDeps;
}

export interface AttemptBedOptions {
  database?: OwnDatabase;
  /** Over 2 s time-outs, 4 sockets, 64 bytes of answer kept, loopback allowed (the guard has its own tests). */
  sender?: Partial<WebhookSenderOptions>;
  /** The receiver's first handler; a 200 "ok" unless given. */
  handler?: ReceiverHandler;
  /** The scheduler's horizon; an hour unless given (every retry of these tests goes to Redis at once). */
  horizonMs?: number;
  /** Over one retry a second later, no jitter. */
  settings?: Partial<DeliverySettings>;
}

/** The queue bed on `env` (and `options.database`), a sender, a receiver and processDeliveryAttempt's deps. */
export async function openAttemptBed(env: TestEnv, options: AttemptBedOptions = {}): Promise<AttemptBed> {
  const bed = openQueueBed(env, options.database);
  const sender = createWebhookSender({
    timeoutMs: 2_000,
    connectTimeoutMs: 2_000,
    maxSockets: 4,
    responseBodyLimit: 64,
    allowPrivateNetworks: true,
    ...options.sender,
  });
  const receiver = await startReceiver(options.handler ?? ((_req, res) => reply(res, 200, "ok")));
  return {
    ...bed,
    sender,
    receiver,
    deps: {
      db: bed.db,
      scheduler: createDeliveryScheduler({
        queue: bed.queue,
        logger: silentLogger,
        horizonMs: options.horizonMs ?? 3_600_000,
      }),
      sender,
      secrets: testSecretBox(),
      logger: silentLogger,
      settings: { scheduleMs: [1_000], jitter: 0, userAgent: "Teste-Gateway/1.0", ...options.settings },
    },
    async close() {
      await receiver.close();
      sender.close();
      await bed.close();
    },
  };
}
