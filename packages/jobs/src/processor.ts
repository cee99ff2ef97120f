import { DelayedError, UnrecoverableError, type Job } from "bullmq";
import {
  JOB_CATALOGUE,
  LEGACY_JOB_NAMES,
  type JobControl,
  type JobHandlers,
  type JobName,
  type QueueName,
} from "./catalogue.ts";

/** The catalogue's name of a job, read under its current name or an earlier one. */
function jobNameOf(name: string): JobName | undefined {
  if (Object.hasOwn(JOB_CATALOGUE, name)) return name as JobName;
  return Object.hasOwn(LEGACY_JOB_NAMES, name) ? LEGACY_JOB_NAMES[name] : undefined;
}

/**
 * The BullMQ processor of one queue: finds the job's definition in the catalogue, validates its payload and
 * calls its handler. An unknown job or an invalid payload fails for good (no retry can fix it). A handler that
 * defers its job moves it to the delayed set (BullMQ's "manually delay a job": moveToDelayed with the lock token,
 * then DelayedError, which the worker takes as neither a failure nor an attempt).
 */
export function createProcessor<Q extends QueueName>(
  queue: Q,
  handlers: JobHandlers<Q>,
): (job: Job, token?: string) => Promise<string> {
  const byName = handlers as Record<
    string,
    ((payload: unknown, control: JobControl<unknown>) => Promise<string>) | undefined
  >;
  return async (job, token) => {
    const name = jobNameOf(job.name);
    const definition = name === undefined ? undefined : JOB_CATALOGUE[name];
    const handler = name === undefined ? undefined : byName[name];
    if (!definition || definition.queue !== queue || !handler)
      throw new UnrecoverableError(`unknown job ${job.name} on queue ${queue}`);
    const payload = definition.payload.safeParse(job.data);
    if (!payload.success) throw new UnrecoverableError(`invalid payload for ${job.name}`);
    const control: JobControl<unknown> = {
      async defer(at, data) {
        if (data !== undefined) await job.updateData(data);
        await job.moveToDelayed(at.getTime(), token);
        throw new DelayedError();
      },
    };
    return handler(payload.data, control);
  };
}
