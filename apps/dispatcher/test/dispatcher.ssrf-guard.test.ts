// The dispatcher's SSRF guard end to end: WEBHOOK_ALLOW_PRIVATE_NETWORKS off (the default) refuses loopback
// endpoints at every attempt and records the refusal; on (development) the same endpoint is delivered to.
// Every connection stays on loopback: the receiver is a node:http server on 127.0.0.1.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { enqueueDeliveryAttempt } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  eventually,
  isolatedDatabase,
  reply,
  startReceiver,
  type Receiver,
} from "@gw/testkit";
import { loadDispatcherConfig } from "../src/index.ts";
import { REQUIRED_SETTINGS, openBed, requestsOf, type DispatcherBed } from "./support.ts";

let bed: DispatcherBed;
let receiver: Receiver;

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
});

afterEach(async () => {
  await bed.stopDispatchers();
});

afterAll(async () => {
  await bed.close(receiver);
});

async function startDispatcher(allowPrivateNetworks: "true" | "false"): Promise<void> {
  await bed.startDispatcher({
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: allowPrivateNetworks,
    WEBHOOK_RETRY_SCHEDULE_MS: "20,20,20,20,20,20",
  });
}

describe("dispatcher configuration", () => {
  const env = REQUIRED_SETTINGS;

  it("guards by default; only an explicit WEBHOOK_ALLOW_PRIVATE_NETWORKS=true turns it off", () => {
    expect(loadDispatcherConfig(env).WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(false);
    expect(
      loadDispatcherConfig({ ...env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" }).WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    ).toBe(true);
    expect(() => loadDispatcherConfig({ ...env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "yes" })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_NETWORKS/,
    );
  });

  it("connects within a few seconds, inside the 10 s attempt", () => {
    const config = loadDispatcherConfig(env);
    expect(config.WEBHOOK_CONNECT_TIMEOUT_MS).toBe(3_000);
    expect(config.WEBHOOK_CONNECT_TIMEOUT_MS).toBeLessThan(config.WEBHOOK_TIMEOUT_MS);
  });
});

describe("dispatcher SSRF guard", () => {
  it("guard on: a loopback endpoint, by IP or by a name resolving to it, is never called; every attempt is address_refused", async () => {
    await startDispatcher("false");
    const byIp = await createDelivery(bed.db, await createFixture(bed.db, receiver.url));
    const byName = await createDelivery(
      bed.db,
      await createFixture(bed.db, receiver.url.replace("127.0.0.1", "localhost")),
    );

    for (const delivery of [byIp, byName]) {
      await enqueueDeliveryAttempt(bed.queue, delivery.id, 1);
      const row = await eventually(
        async () => {
          const found = await bed.db.delivery.findUniqueOrThrow({
            where: { id: delivery.id },
            include: { attempts: { orderBy: { number: "asc" } } },
          });
          return found.status === "failed" && found.attemptCount === 7 ? found : null;
        },
        { what: `entrega ${delivery.id} recusada 7 vezes` },
      );
      expect(row).toMatchObject({ lastErrorKind: "address_refused", lastStatusCode: null, lastError: null });
      expect(row.attempts).toHaveLength(7);
      for (const attempt of row.attempts) {
        expect(attempt).toMatchObject({ errorKind: "address_refused", statusCode: null, responseBody: null });
      }
      expect(requestsOf(receiver, delivery.id)).toHaveLength(0);
    }
  });

  it("development setting (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true): the same loopback receiver gets the POST", async () => {
    await startDispatcher("true");
    const delivery = await createDelivery(bed.db, await createFixture(bed.db, receiver.url));

    await enqueueDeliveryAttempt(bed.queue, delivery.id, 1);
    const row = await eventually(
      async () => {
        const found = await bed.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } });
        return found.status === "delivered" ? found : null;
      },
      { what: `entrega ${delivery.id} entregue` },
    );

    expect(row).toMatchObject({ lastStatusCode: 200, lastErrorKind: null, attemptCount: 1 });
    expect(requestsOf(receiver, delivery.id)).toHaveLength(1);
  });
});
