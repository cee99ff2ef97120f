import { describe, expect, it } from "@jest/globals";
import { ConfigError, loadConfig, sections, z } from "@gw/config";

const schema = z.object({ ...sections.redis(), ...sections.database() });
const base = { REDIS_URL: "redis://127.0.0.1:6379", DATABASE_URL: "postgresql://gw@127.0.0.1:6432/gateway" };

describe("the shared redis and database sections", () => {
  it("read REDIS_SENTINELS as host:port pairs, with the primary's name", () => {
    const config = loadConfig(schema, {
      ...base,
      REDIS_SENTINELS: " sentinel-0.redis:26379, 10.0.0.2:26380 ,[::1]:26381",
      REDIS_SENTINEL_MASTER: "gateway",
    });
    expect(config.REDIS_SENTINELS).toEqual([
      { host: "sentinel-0.redis", port: 26379 },
      { host: "10.0.0.2", port: 26380 },
      { host: "::1", port: 26381 },
    ]);
    expect(config.REDIS_SENTINEL_MASTER).toBe("gateway");
  });

  it("default to no Sentinels and no separate LISTEN connection", () => {
    const config = loadConfig(schema, { ...base, REDIS_SENTINELS: "", DATABASE_LISTEN_URL: "" });
    expect(config.REDIS_SENTINELS).toEqual([]);
    expect(config.REDIS_SENTINEL_MASTER).toBe("mymaster");
    expect(config.DATABASE_LISTEN_URL).toBeUndefined();
  });

  it("read the Sentinels' own username, password and TLS, none of them by default", () => {
    const config = loadConfig(schema, {
      ...base,
      REDIS_SENTINELS: "sentinel-0:26379",
      REDIS_SENTINEL_USERNAME: "gateway-sentinel",
      REDIS_SENTINEL_PASSWORD: "s3nha-dos-sentinels",
      REDIS_SENTINEL_TLS: "true",
    });
    expect(config).toMatchObject({
      REDIS_SENTINEL_USERNAME: "gateway-sentinel",
      REDIS_SENTINEL_PASSWORD: "s3nha-dos-sentinels",
      REDIS_SENTINEL_TLS: true,
    });
    const open = loadConfig(schema, { ...base, REDIS_SENTINEL_USERNAME: "", REDIS_SENTINEL_PASSWORD: "" });
    expect(open.REDIS_SENTINEL_USERNAME).toBeUndefined();
    expect(open.REDIS_SENTINEL_PASSWORD).toBeUndefined();
    expect(open.REDIS_SENTINEL_TLS).toBe(false);
  });

  it("refuse a short Sentinel password without echoing it", () => {
    const attempt = () => loadConfig(schema, { ...base, REDIS_SENTINEL_PASSWORD: "curta" });
    expect(attempt).toThrow(/REDIS_SENTINEL_PASSWORD/);
    expect(attempt).not.toThrow(/curta/);
  });

  it("refuse a Sentinel without a port and a LISTEN URL that is not PostgreSQL's", () => {
    expect(() => loadConfig(schema, { ...base, REDIS_SENTINELS: "sentinel-0" })).toThrow(ConfigError);
    expect(() => loadConfig(schema, { ...base, REDIS_SENTINELS: "a:99999" })).toThrow(/REDIS_SENTINELS/);
    expect(() => loadConfig(schema, { ...base, DATABASE_LISTEN_URL: "redis://x" })).toThrow(/DATABASE_LISTEN_URL/);
  });
});
