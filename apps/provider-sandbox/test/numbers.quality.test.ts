import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import type { RunningSandbox } from "../src/index.ts";
import { control, getJson, PHONE_ID, start, TOKEN } from "./helpers.ts";

const FIELDS = "display_phone_number,verified_name,quality_rating,messaging_limit_tier,throughput";

describe("business numbers: GET /{phone-number-id}", () => {
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    sandbox = await start({
      accessToken: TOKEN,
      numbers: { "106540352242999": { quality_rating: "YELLOW", verified_name: "Loja Inicial" } },
    });
  });
  afterEach(async () => {
    await control(sandbox.url, "/reset", { config: true });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it("answers the asked fields plus id, with the defaults for a number never configured", async () => {
    const answer = await getJson(`${sandbox.url}/v23.0/${PHONE_ID}?fields=${FIELDS}`, TOKEN);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      display_phone_number: expect.stringMatching(/^\+1 555-\d{3}-\d{4}$/),
      verified_name: "Empresa Sandbox",
      quality_rating: "GREEN",
      messaging_limit_tier: "TIER_1K",
      throughput: { level: "STANDARD" },
      id: PHONE_ID,
    });
  });

  it("answers Meta's default fields when none are asked (no messaging_limit_tier)", async () => {
    const answer = await getJson(`${sandbox.url}/v23.0/${PHONE_ID}`, TOKEN);
    expect(Object.keys(answer.body).sort()).toEqual(
      [
        "code_verification_status",
        "display_phone_number",
        "id",
        "platform_type",
        "quality_rating",
        "throughput",
        "verified_name",
      ].sort(),
    );
  });

  it("reports what POST /_sandbox/numbers set, per number, until a reset with config", async () => {
    const set = await control(sandbox.url, "/numbers", {
      phone_number_id: PHONE_ID,
      quality_rating: "RED",
      messaging_limit_tier: "TIER_250",
      throughput_level: "HIGH",
      display_phone_number: "+55 11 4000-0001",
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: PHONE_ID, quality_rating: "RED", throughput: { level: "HIGH" } });
    const answer = await getJson(`${sandbox.url}/v23.0/${PHONE_ID}?fields=${FIELDS}`, TOKEN);
    expect(answer.body).toMatchObject({
      display_phone_number: "+55 11 4000-0001",
      quality_rating: "RED",
      messaging_limit_tier: "TIER_250",
      throughput: { level: "HIGH" },
    });
    // Partial updates keep the rest.
    await control(sandbox.url, "/numbers", { phone_number_id: PHONE_ID, messaging_limit_tier: "TIER_UNLIMITED" });
    expect((await getJson(`${sandbox.url}/v23.0/${PHONE_ID}?fields=${FIELDS}`, TOKEN)).body).toMatchObject({
      quality_rating: "RED",
      messaging_limit_tier: "TIER_UNLIMITED",
    });
    // Another number is untouched; the start-up option's number keeps its own settings.
    const other = await getJson(`${sandbox.url}/v23.0/106540352242999?fields=${FIELDS}`, TOKEN);
    expect(other.body).toMatchObject({ quality_rating: "YELLOW", verified_name: "Loja Inicial" });
    const listed = await control<{ numbers: { id: string }[] }>(sandbox.url, "/numbers");
    expect(listed.body.numbers.map((n) => n.id).sort()).toEqual(["106540352242999", PHONE_ID].sort());

    await control(sandbox.url, "/reset", { config: true });
    const restored = await getJson(`${sandbox.url}/v23.0/${PHONE_ID}?fields=quality_rating`, TOKEN);
    expect(restored.body).toEqual({ quality_rating: "GREEN", id: PHONE_ID });
  });

  it("refuses invalid settings in Portuguese, an unknown field with Meta's (#100), and a missing token with 190", async () => {
    const bad = await control<{ error: { message: string } }>(sandbox.url, "/numbers", {
      phone_number_id: PHONE_ID,
      quality_rating: "BLUE",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/Requisição inválida/);

    const unknown = await getJson(`${sandbox.url}/v23.0/${PHONE_ID}?fields=quality_rating,shoe_size`, TOKEN);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({
      code: 100,
      type: "OAuthException",
      message: "(#100) Tried accessing nonexisting field (shoe_size) on node type (WhatsAppBusinessPhoneNumber)",
    });
    const anonymous = await getJson(`${sandbox.url}/v23.0/${PHONE_ID}?fields=quality_rating`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error?.code).toBe(190);
  });

  it("fails number calls on a `numbers` fault", async () => {
    await control(sandbox.url, "/faults", { mode: "error", code: 131000, route: "numbers", count: 1 });
    const faulted = await getJson(`${sandbox.url}/v23.0/${PHONE_ID}?fields=quality_rating`, TOKEN);
    expect(faulted.status).toBe(500);
    expect((await getJson(`${sandbox.url}/v23.0/${PHONE_ID}?fields=quality_rating`, TOKEN)).status).toBe(200);
  });
});
