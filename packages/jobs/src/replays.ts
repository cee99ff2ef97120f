import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { replayDeliveriesJob, type ReplayDeliveriesPayload } from "./catalogue.ts";

export type ReplayQueue = Queue<ReplayDeliveriesPayload, unknown, string>;

/** The queue of delivery replays (apps/dispatcher consumes it); `prefix` keeps environments apart in one Redis. */
export function createReplayQueue(connection: Redis, prefix: string): ReplayQueue {
  return new Queue<ReplayDeliveriesPayload, unknown, string>(replayDeliveriesJob.queue, { connection, prefix });
}

/**
 * Give replays their job, in one Redis round trip. A replay that already has one (waiting, delayed or active) keeps
 * it: the job id is the replay's.
 */
export async function wakeReplays(queue: ReplayQueue, replayIds: readonly string[]): Promise<void> {
  if (replayIds.length === 0) return;
  await queue.addBulk(
    replayIds.map((replayId) => ({
      name: replayDeliveriesJob.name,
      data: { replayId },
      opts: { ...replayDeliveriesJob.options, jobId: replayDeliveriesJob.jobId(replayId) },
    })),
  );
}
