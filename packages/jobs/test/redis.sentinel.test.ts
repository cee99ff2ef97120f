import { describe, expect, it } from "@jest/globals";
import { createRedis } from "@gw/jobs";

// Through Sentinel, the address of the primary comes from the Sentinels; REDIS_URL still gives the credentials and the
// database. Not connected here (lazyConnect): the topology run (pnpm test:deploy) fails a primary over for real.
describe("createRedis", () => {
  it("asks the Sentinels for the primary when REDIS_SENTINELS is set", () => {
    const redis = createRedis(
      {
        REDIS_URL: "redis://:s3nha%2F@ignorado:6379/2",
        REDIS_SENTINELS: [
          { host: "10.0.0.1", port: 26379 },
          { host: "sentinel-b", port: 26380 },
        ],
        REDIS_SENTINEL_MASTER: "gateway",
      },
      "worker",
      { lazyConnect: true },
    );
    expect(redis.options).toMatchObject({
      sentinels: [
        { host: "10.0.0.1", port: 26379 },
        { host: "sentinel-b", port: 26380 },
      ],
      name: "gateway",
      role: "master",
      password: "s3nha/",
      db: 2,
      failoverDetector: true,
      maxRetriesPerRequest: null,
    });
    redis.disconnect();
  });

  it("connects to REDIS_URL's host without Sentinels (the config section or the bare URL)", () => {
    for (const target of [
      { REDIS_URL: "redis://127.0.0.1:6390/1", REDIS_SENTINELS: [], REDIS_SENTINEL_MASTER: "mymaster" },
      "redis://127.0.0.1:6390/1",
    ]) {
      const redis = createRedis(target, "request", { lazyConnect: true });
      expect(redis.options).toMatchObject({ host: "127.0.0.1", port: 6390, db: 1, maxRetriesPerRequest: 1 });
      expect(redis.options.sentinels).toBeFalsy();
      redis.disconnect();
    }
  });
});
