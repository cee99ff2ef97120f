import type { Redis } from "../redis.ts";

/** Resolves true when `promise` settled in time, false otherwise (a rejection counts as settled). */
export async function withDeadline(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      deadline,
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** QUIT, or drop the connection when Redis does not answer within a second. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === "end") return;
  const quit = await withDeadline(
    redis.quit().then(() => undefined),
    1_000,
  );
  if (!quit) redis.disconnect();
}
