import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { campaignTickJob, type CampaignTickPayload } from "./catalogue.ts";

export type CampaignQueue = Queue<CampaignTickPayload, unknown, string>;

/** The campaign queue (apps/campaign-worker consumes it); `prefix` keeps environments apart in one Redis. */
export function createCampaignQueue(connection: Redis, prefix: string): CampaignQueue {
  return new Queue<CampaignTickPayload, unknown, string>(campaignTickJob.queue, { connection, prefix });
}

export interface CampaignWake {
  campaignId: string;
  /** Not before this time (a scheduled start); now when absent. */
  at?: Date | undefined;
}

/**
 * Give campaigns their tick job, in one Redis round trip. A campaign that already has one (waiting, delayed or
 * active) keeps it: the job id is the campaign's.
 */
export async function wakeCampaigns(queue: CampaignQueue, campaigns: readonly CampaignWake[]): Promise<void> {
  if (campaigns.length === 0) return;
  const now = Date.now();
  await queue.addBulk(
    campaigns.map(({ campaignId, at }) => ({
      name: campaignTickJob.name,
      data: { campaignId },
      opts: {
        ...campaignTickJob.options,
        jobId: campaignTickJob.jobId(campaignId),
        delay: at ? Math.max(0, at.getTime() - now) : 0,
      },
    })),
  );
}
