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
 * Give campaigns their tick jobs, in one Redis round trip: `shares` jobs each (1 when absent: share 0, which every
 * producer gives; the campaign worker adds the others). A share that already has its job (waiting, delayed or
 * active) keeps it: the job id is the share's.
 */
export async function wakeCampaigns(
  queue: CampaignQueue,
  campaigns: readonly CampaignWake[],
  options: { shares?: number } = {},
): Promise<void> {
  if (campaigns.length === 0) return;
  const now = Date.now();
  const shares = Array.from({ length: Math.max(1, options.shares ?? 1) }, (_, share) => share);
  await queue.addBulk(
    campaigns.flatMap(({ campaignId, at }) =>
      shares.map((share) => ({
        name: campaignTickJob.name,
        data: share === 0 ? { campaignId } : { campaignId, share },
        opts: {
          ...campaignTickJob.options,
          jobId: campaignTickJob.jobId(campaignId, share),
          delay: at ? Math.max(0, at.getTime() - now) : 0,
        },
      })),
    ),
  );
}
