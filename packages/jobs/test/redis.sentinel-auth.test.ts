// Sentinels that require a password (their `requirepass`): createRedis must present REDIS_SENTINEL_PASSWORD to them,
// or it cannot learn the primary's address at all. A real Sentinel (Debian's redis-server in sentinel mode) watches a
// throw-away primary; the mapping of the username and TLS is read from the options ioredis was given.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { loadConfig, sections, z } from "@gw/config";
import { createRedis, type Redis } from "@gw/jobs";
import { freePort, startThrowawayRedis } from "@gw/testkit";

const SENTINEL_PASSWORD = "s3nha-dos-sentinels";

/** A Sentinel on loopback monitoring `primaryPort` as `gateway`, with a password of its own. */
async function startSentinel(primaryPort: number): Promise<{ port: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "gw-sentinel-"));
  // Sentinel rewrites its configuration file: it gets one of its own.
  writeFileSync(
    join(dir, "sentinel.conf"),
    [
      `port ${port}`,
      "bind 127.0.0.1",
      "protected-mode no",
      `dir ${dir}`,
      `sentinel monitor gateway 127.0.0.1 ${primaryPort} 1`,
      `requirepass ${SENTINEL_PASSWORD}`,
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn("redis-server", [join(dir, "sentinel.conf"), "--sentinel"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("redis sentinel did not start")), 10_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("+monitor master gateway")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`redis sentinel exited ${code}`)));
  });
  return {
    port,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await once(child, "exit");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const schema = z.object(sections.redis());
let primary: Awaited<ReturnType<typeof startThrowawayRedis>>;
let sentinel: Awaited<ReturnType<typeof startSentinel>>;
const clients: Redis[] = [];

beforeAll(async () => {
  primary = await startThrowawayRedis();
  sentinel = await startSentinel(Number(new URL(primary.url).port));
});

afterAll(async () => {
  for (const client of clients) client.disconnect();
  await sentinel.stop();
  await primary.stop();
});

/** The shared redis section as an app parses it from its environment, then createRedis on it. */
function redisFrom(environment: Record<string, string>): Redis {
  const config = loadConfig(schema, {
    REDIS_URL: "redis://ignorado:6379/0",
    REDIS_SENTINELS: `127.0.0.1:${sentinel.port}`,
    REDIS_SENTINEL_MASTER: "gateway",
    ...environment,
  });
  // One attempt: a refused lookup must fail the command, not retry for ever.
  const redis = createRedis(config, "request", {
    lazyConnect: true,
    retryStrategy: () => null,
    sentinelRetryStrategy: () => null,
  });
  redis.on("error", () => undefined);
  clients.push(redis);
  return redis;
}

describe("createRedis through Sentinels that require a password", () => {
  it("reaches the primary when REDIS_SENTINEL_PASSWORD is the Sentinels' password", async () => {
    const redis = redisFrom({ REDIS_SENTINEL_PASSWORD: SENTINEL_PASSWORD });
    await redis.connect();
    await redis.set("gw:sentinel-auth", "ok");
    expect(await redis.get("gw:sentinel-auth")).toBe("ok");
    expect(redis.options.sentinelPassword).toBe(SENTINEL_PASSWORD);
  });

  it("cannot learn the primary without it (the Sentinel refuses the lookup)", async () => {
    const redis = redisFrom({});
    await expect(redis.connect()).rejects.toThrow();
    expect(redis.status).not.toBe("ready");
  });

  it("passes the Sentinels' username and TLS to every Sentinel connection, apart from the primary's", () => {
    const redis = redisFrom({
      REDIS_URL: "rediss://primario:s3nha-do-primario@ignorado:6380/3",
      REDIS_SENTINEL_USERNAME: "gateway-sentinel",
      REDIS_SENTINEL_PASSWORD: SENTINEL_PASSWORD,
      REDIS_SENTINEL_TLS: "true",
    });
    expect(redis.options).toMatchObject({
      sentinelUsername: "gateway-sentinel",
      sentinelPassword: SENTINEL_PASSWORD,
      sentinelTLS: {},
      // The primary's own credentials, database and TLS still come from REDIS_URL.
      username: "primario",
      password: "s3nha-do-primario",
      db: 3,
      tls: {},
      enableTLSForSentinelMode: true,
    });
    const open = redisFrom({});
    expect(open.options.sentinelTLS).toBeUndefined();
    expect(open.options.sentinelPassword).toBeFalsy();
  });
});
