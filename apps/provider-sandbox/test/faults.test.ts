import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { GraphRequestRecord, RunningSandbox, SentMessage } from "../src/index.ts";
import { control, getJson, sendMessage, start, template } from "./helpers.ts";

const TO = "5511988887777";
const hello = template(TO, "hello_world", [], "en_US");

describe("POST /_sandbox/faults", () => {
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    sandbox = await start({ autoStatuses: false });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    expect((await control(sandbox.url, "/reset", {})).status).toBe(200);
  });

  const requests = async () => (await control<GraphRequestRecord[]>(sandbox.url, "/requests")).body;
  const sent = async () => (await control<SentMessage[]>(sandbox.url, "/sent")).body;

  it("500: the next send answers Meta's 131000 envelope and is not recorded; the one after is accepted", async () => {
    await control(sandbox.url, "/faults", { mode: "500", count: 1, route: "messages" });
    const failed = await sendMessage(sandbox.url, hello);
    expect(failed.status).toBe(500);
    expect(failed.body.error).toMatchObject({
      message: "(#131000) Something went wrong",
      type: "OAuthException",
      code: 131000,
      error_data: { messaging_product: "whatsapp", details: "Something went wrong" },
    });
    expect(await sent()).toEqual([]);
    const ok = await sendMessage(sandbox.url, hello);
    expect(ok.status).toBe(200);
    expect((await sent()).map((s) => s.wamid)).toEqual([ok.body.messages?.[0]?.id]);
    expect((await requests()).map((r) => [r.method, r.path, r.status, r.fault])).toEqual([
      ["POST", "/v23.0/106540352242922/messages", 500, "500"],
      ["POST", "/v23.0/106540352242922/messages", 200, null],
    ]);
  });

  it("reset: the connection is destroyed, nothing is sent, the next call works", async () => {
    await control(sandbox.url, "/faults", { mode: "reset", count: 1 });
    await expect(sendMessage(sandbox.url, hello)).rejects.toThrow();
    expect(await sent()).toEqual([]);
    expect((await sendMessage(sandbox.url, hello)).status).toBe(200);
    expect((await requests()).map((r) => [r.status, r.fault])).toEqual([
      [null, "reset"],
      [200, null],
    ]);
  });

  it("timeout: the call hangs then closes without an answer; the next call works", async () => {
    await control(sandbox.url, "/faults", { mode: "timeout", count: 1, delay_ms: 50 });
    await expect(sendMessage(sandbox.url, hello)).rejects.toThrow();
    expect(await sent()).toEqual([]);
    expect((await sendMessage(sandbox.url, hello)).status).toBe(200);
    expect((await requests()).map((r) => r.fault)).toEqual(["timeout", null]);
  });

  it("deliver: a reset send still goes out, so the gateway must not resend it", async () => {
    await control(sandbox.url, "/faults", { mode: "reset", count: 1, deliver: true });
    await expect(sendMessage(sandbox.url, hello)).rejects.toThrow();
    const delivered = await sent();
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ fault: "reset", wa_id: TO, type: "template" });
  });

  it("count and route: two template calls fail, sends are untouched", async () => {
    await control(sandbox.url, "/faults", { mode: "500", count: 2, route: "templates" });
    expect((await sendMessage(sandbox.url, hello)).status).toBe(200);
    const list = `${sandbox.url}/v23.0/1/message_templates?limit=5`;
    expect((await getJson(list)).status).toBe(500);
    expect((await getJson(list)).status).toBe(500);
    expect((await getJson(list)).status).toBe(200);
  });

  it("after: fails page 2 of a listing only", async () => {
    await control(sandbox.url, "/faults", { mode: "500", count: 1, route: "templates", after: 1 });
    const page1 = await getJson(`${sandbox.url}/v23.0/1/message_templates?limit=5`);
    expect(page1.status).toBe(200);
    const next = page1.body.paging?.next ?? "";
    expect((await getJson(next)).status).toBe(500);
    const retry = await getJson(next);
    expect(retry.status).toBe(200);
    expect(retry.body.data).toHaveLength(5);
  });

  it("refuses an invalid fault in Portuguese, and reset clears pending faults", async () => {
    const bad = await control<{ error: { message: string } }>(sandbox.url, "/faults", { mode: "explode" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/inválida/);
    await control(sandbox.url, "/faults", { mode: "500", count: 5 });
    await control(sandbox.url, "/reset", {});
    expect((await sendMessage(sandbox.url, hello)).status).toBe(200);
    expect(await requests()).toHaveLength(1);
  });
});
