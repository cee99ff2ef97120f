import { describe, expect, it } from "@jest/globals";
import { createLogger, type Logger } from "@gw/logger";
import { GRAPH_VERSION_EXPIRY, graphVersionExpiry } from "@gw/meta";
import { Registry } from "prom-client";
import { createProvider, registerGraphVersionGauge } from "../src/index.ts";

// The Graph API version a deployment calls is retired by Meta on a known day (docs/deploy.md, "Graph API versions"):
// a version near its end is logged as the process starts and exported as days left, which an alert watches.

const DECEMBER_7 = Date.parse("2026-12-07T12:00:00Z");
const meta = (version: string) => ({
  META_BASE_URL: "http://127.0.0.1:1",
  META_API_VERSION: version,
  META_ACCESS_TOKEN: "sandbox-access-token",
  META_TIMEOUT_MS: 1_000,
  META_TEMPLATES_PAGE_SIZE: 100,
  TEMPLATE_CACHE_TTL_SECONDS: 60,
});

/** A real logger, muted, whose entries are kept (level, message and fields). */
function capturingLogger(): { logger: Logger; entries: Record<string, unknown>[] } {
  const logger = createLogger({ service: "wiring-test", level: "debug" });
  for (const transport of logger.transports) transport.silent = process.env.TEST_LOG !== "1";
  const entries: Record<string, unknown>[] = [];
  logger.on("data", (info: Record<string, unknown>) => entries.push(info));
  return { logger, entries };
}

describe("the configured Graph API version's end", () => {
  it("counts whole days to Meta's published end, negative once past, and nothing for a version without one", () => {
    expect(GRAPH_VERSION_EXPIRY["v21.0"]).toBe("2027-01-21");
    expect(graphVersionExpiry("v21.0", DECEMBER_7)).toEqual({ expiresOn: "2027-01-21", daysLeft: 44 });
    expect(graphVersionExpiry("v20.0", DECEMBER_7)).toEqual({ expiresOn: "2026-09-24", daysLeft: -75 });
    expect(graphVersionExpiry("v27.0", DECEMBER_7)).toBeNull();
  });

  it("warns at start-up for a version within 90 days of its end, and not for one further away or without an end", () => {
    const { logger, entries } = capturingLogger();
    createProvider(meta("v21.0"), logger, DECEMBER_7);
    createProvider(meta("v23.0"), logger, DECEMBER_7);
    createProvider(meta("v27.0"), logger, DECEMBER_7);
    expect(
      entries.map(({ level, message, version, expiresOn, daysLeft }) => ({
        level,
        message,
        version,
        expiresOn,
        daysLeft,
      })),
    ).toEqual([
      {
        level: "warn",
        message: "configured Graph API version is near its end",
        version: "v21.0",
        expiresOn: "2027-01-21",
        daysLeft: 44,
      },
    ]);
  });

  it("exports the days left as gw_meta_api_version_days_left{version}, read at each scrape", async () => {
    const registry = new Registry();
    let now = DECEMBER_7;
    registerGraphVersionGauge(registry, "v21.0", () => now);
    expect(await registry.getSingleMetricAsString("gw_meta_api_version_days_left")).toContain(
      'gw_meta_api_version_days_left{version="v21.0"} 44',
    );
    now += 10 * 86_400_000;
    expect(await registry.getSingleMetricAsString("gw_meta_api_version_days_left")).toContain(
      'gw_meta_api_version_days_left{version="v21.0"} 34',
    );
    const unknown = new Registry();
    registerGraphVersionGauge(unknown, "v27.0", () => now);
    expect(await unknown.getSingleMetricAsString("gw_meta_api_version_days_left")).not.toMatch(/\} -?\d/);
  });
});
