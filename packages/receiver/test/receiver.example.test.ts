import { afterEach, describe, expect, it } from "@jest/globals";
import { mkdtempSync, readFileSync, appendFileSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createExampleApp } from "../example/server.ts";
import { JsonlEventStore, type StoredEvent } from "../example/store.ts";
import { close, deliver, failedStatusEvent, listen, receivedEvent } from "./support/deliver.ts";

const secret = "whsec_example_secret";
const opened: Array<{ server: Server; store: JsonlEventStore }> = [];

afterEach(async () => {
  for (const { server, store } of opened.splice(0)) {
    await close(server);
    await store.close();
  }
});

async function startExample(dataFile: string): Promise<{ url: string; lines: string[] }> {
  const store = await JsonlEventStore.open(dataFile);
  const lines: string[] = [];
  const server = createExampleApp({ secret, store, log: (line) => lines.push(line) }).listen(0, "127.0.0.1");
  opened.push({ server, store });
  return { url: `${await listen(server)}/webhooks`, lines };
}

function storedRecords(dataFile: string): StoredEvent[] {
  return readFileSync(dataFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as StoredEvent);
}

describe("example receiver (packages/receiver/example)", () => {
  it("stores each event once: retries and concurrent attempts of one delivery id are deduplicated", async () => {
    const dataFile = join(mkdtempSync(join(tmpdir(), "gw-receiver-")), "events.jsonl");
    const { url, lines } = await startExample(dataFile);
    const body = JSON.stringify(receivedEvent("31"));

    expect((await deliver(url, { secret, body, attempt: 1 })).status).toBe(200);
    const retries = await Promise.all([2, 3, 4].map((attempt) => deliver(url, { secret, body, attempt })));
    expect(retries.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await deliver(url, { secret, body: JSON.stringify(failedStatusEvent("32")) })).status).toBe(200);

    const records = storedRecords(dataFile);
    expect(records.map((r) => [r.integration, r.delivery_id, r.attempt, r.event.event])).toEqual([
      ["default", "31", 1, "message.received"],
      ["default", "32", 1, "message.status"],
    ]);
    expect(records[0]?.event).toEqual(JSON.parse(body));
    expect(lines.filter((line) => line.includes("já recebido antes"))).toHaveLength(3);
    expect(lines[0]).toMatch(/^message\.received delivery=31 tentativa=1 de 5511987654321 \(Maria\)/);
  });

  it("keeps deduplicating after a restart, from the set rebuilt out of the file", async () => {
    const dataFile = join(mkdtempSync(join(tmpdir(), "gw-receiver-")), "events.jsonl");
    const body = JSON.stringify(receivedEvent("41"));
    const first = await startExample(dataFile);
    expect((await deliver(first.url, { secret, body })).status).toBe(200);
    const { server, store } = opened.pop() as { server: Server; store: JsonlEventStore };
    await close(server);
    await store.close();
    // A crash in the middle of a write leaves a torn last line; it was never acknowledged.
    appendFileSync(dataFile, '{"integration":"default","delivery_id":"4');

    const second = await startExample(dataFile);
    expect((await deliver(second.url, { secret, body, attempt: 2 })).status).toBe(200);
    expect((await deliver(second.url, { secret, body: JSON.stringify(receivedEvent("42")) })).status).toBe(200);
    expect(storedRecords(dataFile).map((r) => r.delivery_id)).toEqual(["41", "42"]);
    expect(second.lines[0]).toMatch(/já recebido antes/);
  });

  it("does not store, and answers 401, when the signature is wrong", async () => {
    const dataFile = join(mkdtempSync(join(tmpdir(), "gw-receiver-")), "events.jsonl");
    const { url } = await startExample(dataFile);
    expect((await deliver(url, { secret: "not-the-secret", body: JSON.stringify(receivedEvent()) })).status).toBe(401);
    expect(readFileSync(dataFile, "utf8")).toBe("");
  });
});
