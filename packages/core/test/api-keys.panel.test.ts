import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { eventually, testEnv, testActor } from "@gw/testkit";
import { createAccount } from "../src/accounts/accounts.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "../src/accounts/api-keys.ts";
import { createAccountDirectory } from "../src/accounts/directory.ts";

let db: Db;

beforeAll(() => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 4 });
});
afterAll(async () => {
  await db.$disconnect();
});

const account = async () => (await createAccount({ db }, { actor: testActor, name: "Padaria" })).id;

describe("API keys as the panel manages them", () => {
  it("keeps a trimmed name, lists keys newest first without their secret, pages and filters them", async () => {
    const accountId = await account();
    const first = await createApiKey({ db }, { actor: testActor, accountId, name: "  ERP da loja  " });
    const second = await createApiKey({ db }, { actor: testActor, accountId });
    const third = await createApiKey({ db }, { actor: testActor, accountId, name: "Site" });
    expect(first.name).toBe("ERP da loja");
    expect(second.name).toBeNull();
    await revokeApiKey({ db }, { actor: testActor, keyId: second.id, accountId });

    const one = await listApiKeys({ db }, { accountId, limit: 2 });
    expect(one.keys.map((k) => k.id)).toEqual([third.id, second.id]);
    expect(one.next_cursor).not.toBeNull();
    const two = await listApiKeys({ db }, { accountId, limit: 2, cursor: one.next_cursor! });
    expect(two).toEqual({
      keys: [
        {
          id: first.id,
          prefix: first.prefix,
          name: "ERP da loja",
          scopes: null,
          created_at: expect.any(String),
          last_used_at: null,
          revoked_at: null,
        },
      ],
      next_cursor: null,
    });
    expect(JSON.stringify([one, two])).not.toContain(first.key.slice(first.prefix.length));

    expect((await listApiKeys({ db }, { accountId, status: "active" })).keys.map((k) => k.id)).toEqual([
      third.id,
      first.id,
    ]);
    expect((await listApiKeys({ db }, { accountId, status: "revoked" })).keys.map((k) => k.id)).toEqual([second.id]);
  });

  it("revokes only within the account; the operator's revoke by id alone still works; a second revoke keeps the first time", async () => {
    const accountId = await account();
    const otherAccount = await account();
    const key = await createApiKey({ db }, { actor: testActor, accountId, name: "ERP" });

    expect(await revokeApiKey({ db }, { actor: testActor, keyId: key.id, accountId: otherAccount })).toBeNull();
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).toBeNull();
    expect(await revokeApiKey({ db }, { actor: testActor, keyId: "não-é-um-id", accountId })).toBeNull();
    expect(await revokeApiKey({ db }, { actor: testActor, keyId: "00000000-0000-4000-8000-000000000000" })).toBeNull();

    const revoked = await revokeApiKey({ db }, { actor: testActor, keyId: key.id, accountId });
    expect(revoked).toMatchObject({ id: key.id, prefix: key.prefix, name: "ERP", newly_revoked: true });
    const again = await revokeApiKey({ db }, { actor: testActor, keyId: key.id });
    expect(again).toEqual({ ...revoked, newly_revoked: false });

    const cli = await createApiKey({ db }, { actor: testActor, accountId });
    expect(await revokeApiKey({ db }, { actor: testActor, keyId: cli.id })).toMatchObject({
      id: cli.id,
      newly_revoked: true,
    });
  });

  it("a key revoked through the account is forgotten by a following directory at once, long before its cache TTL", async () => {
    const accountId = await account();
    const key = await createApiKey({ db }, { actor: testActor, accountId, name: "Integração" });
    const directory = createAccountDirectory(db, {
      apiKeyTtlMs: 60_000,
      unknownKeyTtlMs: 1_000,
      numberTtlMs: 1_000,
      maxEntries: 100,
    });
    // A lookup in flight when the listener drops its entry rejects (lru-cache aborts the fetch): ask again then.
    const authenticate = async (presented: string) => {
      for (;;) {
        const found = await directory.authenticate(presented).then(
          (value) => ({ value }),
          () => null,
        );
        if (found) return found.value;
      }
    };
    const stop = directory.followRevocations();
    try {
      // A barrier key: once its cached entry is dropped, LISTEN is in place (only the listener drops entries of a
      // 60 s cache: on connecting, or on a NOTIFY).
      const barrier = await createApiKey({ db }, { actor: testActor, accountId });
      expect(await authenticate(barrier.key)).not.toBeNull();
      await revokeApiKey({ db }, { actor: testActor, keyId: barrier.id, accountId });
      await eventually(async () => (await authenticate(barrier.key)) === null, { what: "LISTEN in place" });

      expect(await authenticate(key.key)).toEqual({ keyId: key.id, accountId, scopes: null });
      await revokeApiKey({ db }, { actor: testActor, keyId: key.id, accountId });
      // Cached for 60 s after LISTEN was in place: only the NOTIFY can make this null within the deadline.
      await eventually(async () => (await authenticate(key.key)) === null, {
        timeoutMs: 5_000,
        what: "the revoked key to be forgotten",
      });
    } finally {
      await stop();
    }
  });
});
