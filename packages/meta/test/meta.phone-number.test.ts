import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { createLogger } from "@gw/logger";
import { startSandbox, type RunningSandbox } from "@gw/provider-sandbox";
import { createMetaClient, MetaApiError, MetaReadError, type MetaClient } from "../src/index.ts";
import { capturingLogger, control, type RecordedRequest } from "./helpers.ts";

const TOKEN = "EAAG-numbers-token-31b9aa";
const PHONE_NUMBER_ID = "106540352242922";
const { logger, lines } = capturingLogger();
const sandboxLogger = createLogger({ service: "provider-sandbox", silent: true });

let sandbox: RunningSandbox;
let meta: MetaClient;

beforeAll(async () => {
  sandbox = await startSandbox({
    appSecret: "app-secret",
    accessToken: TOKEN,
    autoStatuses: false,
    logger: sandboxLogger,
  });
  meta = createMetaClient({ baseUrl: sandbox.url, apiVersion: "v23.0", accessToken: TOKEN, timeoutMs: 5_000, logger });
});

afterAll(async () => {
  await sandbox.close();
  for (const line of lines) expect(line).not.toContain(TOKEN);
});

beforeEach(async () => {
  await control(sandbox.url, "reset", { config: true });
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error,
  );
}

describe("getPhoneNumber", () => {
  it("reads quality rating, messaging tier and throughput, asking Meta for those fields by name", async () => {
    await control(sandbox.url, "numbers", {
      phone_number_id: PHONE_NUMBER_ID,
      verified_name: "Loja Exemplo",
      display_phone_number: "+55 11 4000-0001",
      quality_rating: "YELLOW",
      messaging_limit_tier: "TIER_10K",
      throughput_level: "HIGH",
    });
    expect(await meta.getPhoneNumber(PHONE_NUMBER_ID)).toEqual({
      id: PHONE_NUMBER_ID,
      displayPhoneNumber: "+55 11 4000-0001",
      verifiedName: "Loja Exemplo",
      qualityRating: "YELLOW",
      messagingLimitTier: "TIER_10K",
      throughputLevel: "HIGH",
    });
    const calls = (await control(sandbox.url, "requests")) as RecordedRequest[];
    expect(calls).toHaveLength(1);
    const url = new URL(calls[0]?.url ?? "", sandbox.url);
    expect(url.pathname).toBe(`/v23.0/${PHONE_NUMBER_ID}`);
    expect(url.searchParams.get("fields")?.split(",").sort()).toEqual(
      ["display_phone_number", "id", "messaging_limit_tier", "quality_rating", "throughput", "verified_name"].sort(),
    );
  });

  it("a wrong token is Meta's refusal 190, mapped to provider_unavailable", async () => {
    const client = createMetaClient({
      baseUrl: sandbox.url,
      apiVersion: "v23.0",
      accessToken: "wrong",
      timeoutMs: 5_000,
    });
    const error = await failure(client.getPhoneNumber(PHONE_NUMBER_ID));
    expect(error).toBeInstanceOf(MetaApiError);
    expect(error).toMatchObject({ code: 190, httpStatus: 401, reason: "provider_unavailable" });
  });

  it("a 500 is a read failure, and so is a connection that never opens", async () => {
    await control(sandbox.url, "faults", { mode: "500", route: "numbers" });
    const error = await failure(meta.getPhoneNumber(PHONE_NUMBER_ID));
    expect(error).toBeInstanceOf(MetaReadError);
    expect(error).toMatchObject({ kind: "server_error", httpStatus: 500 });

    const closed = createMetaClient({
      baseUrl: "http://127.0.0.1:9",
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 2_000,
    });
    expect(await failure(closed.getPhoneNumber(PHONE_NUMBER_ID))).toMatchObject({ kind: "network" });
  });

  it("a time-out is a read failure of kind timeout", async () => {
    await control(sandbox.url, "faults", { mode: "timeout", route: "numbers", count: 2, delay_ms: 5_000 });
    const impatient = createMetaClient({
      baseUrl: sandbox.url,
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 300,
    });
    expect(await failure(impatient.getPhoneNumber(PHONE_NUMBER_ID))).toMatchObject({ kind: "timeout" });
  });
});
