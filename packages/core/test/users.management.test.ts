import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { createDb, type Db } from "@gw/db";
import { testEnv, testActor } from "@gw/testkit";
import { createAccount } from "../src/accounts/accounts.ts";
import { createPanelSession, loadPanelSession } from "../src/users/sessions.ts";
import {
  PanelUserError,
  acceptPanelInvite,
  cancelPanelInvite,
  changePanelUserRole,
  createPanelUser,
  findPanelInvite,
  invitePanelUser,
  listPanelInvites,
  listPanelUsers,
  removePanelUser,
  type PanelRole,
} from "../src/users/users.ts";

let db: Db;

beforeAll(() => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 4 });
});
afterAll(async () => {
  await db.$disconnect();
});

const PASSWORD = "senha-de-teste-123";
const tag = () => randomBytes(3).toString("hex");

async function member(accountId: string, role: PanelRole, name: string = role) {
  return createPanelUser(
    { db },
    {
      accountId,
      email: `${name}-${tag()}@exemplo.com.br`,
      name,
      role,
      password: PASSWORD,
      actor: testActor,
    },
  );
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PanelUserError);
  return (error as PanelUserError).code;
}

describe("panel users of an account", () => {
  it("lists users oldest first, filtered by role or by part of name or email, in keyset pages", async () => {
    const { id: accountId } = await createAccount({ db }, { actor: testActor, name: "Equipe" });
    const owner = await member(accountId, "owner", "Ana");
    const admin = await member(accountId, "admin", "Bia");
    const viewer = await member(accountId, "viewer", "Caio");
    await member((await createAccount({ db }, { actor: testActor, name: "Outra" })).id, "viewer", "Bia");

    const first = await listPanelUsers({ db }, { accountId, limit: 2 });
    expect(first.users.map((u) => u.id)).toEqual([owner.id, admin.id]);
    const second = await listPanelUsers({ db }, { accountId, limit: 2, cursor: first.next_cursor! });
    expect(second).toEqual({ users: [viewer], next_cursor: null });

    expect((await listPanelUsers({ db }, { accountId, role: "admin" })).users.map((u) => u.id)).toEqual([admin.id]);
    expect((await listPanelUsers({ db }, { accountId, query: "bI" })).users.map((u) => u.id)).toEqual([admin.id]);
    expect((await listPanelUsers({ db }, { accountId, query: "caio-" })).users.map((u) => u.id)).toEqual([viewer.id]);
  });

  it("changes a role within the account only, and never leaves the account without an owner", async () => {
    const { id: accountId } = await createAccount({ db }, { actor: testActor, name: "Papéis" });
    const owner = await member(accountId, "owner");
    const admin = await member(accountId, "admin");
    const stranger = await member((await createAccount({ db }, { actor: testActor, name: "Outra" })).id, "viewer");

    expect(
      await refusal(
        changePanelUserRole(
          { db },
          { accountId, userId: owner.id, role: "admin", actor: { id: "panel:t", origin: "panel" } },
        ),
      ),
    ).toBe("last_owner");
    expect(
      await refusal(
        changePanelUserRole(
          { db },
          { accountId, userId: stranger.id, role: "owner", actor: { id: "panel:t", origin: "panel" } },
        ),
      ),
    ).toBe("not_found");
    expect(
      await refusal(
        changePanelUserRole(
          { db },
          { accountId, userId: "123", role: "owner", actor: { id: "panel:t", origin: "panel" } },
        ),
      ),
    ).toBe("not_found");
    expect((await db.panelUser.findUniqueOrThrow({ where: { id: stranger.id } })).role).toBe("viewer");

    await changePanelUserRole(
      { db },
      { accountId, userId: admin.id, role: "owner", actor: { id: "panel:t", origin: "panel", requestId: "req-9" } },
    );
    const demoted = await changePanelUserRole(
      { db },
      { accountId, userId: owner.id, role: "viewer", actor: { id: "panel:t", origin: "panel" } },
    );
    expect(demoted.role).toBe("viewer");
    const audit = await db.auditEntry.findFirstOrThrow({
      where: { accountId, action: "panel.user.role_changed", target: admin.id },
    });
    expect(audit).toMatchObject({ requestId: "req-9", details: { email: admin.email, from: "admin", to: "owner" } });
  });

  it("removes a user with their sessions at once, but not the last owner nor another account's user", async () => {
    const { id: accountId } = await createAccount({ db }, { actor: testActor, name: "Remoções" });
    const owner = await member(accountId, "owner");
    const viewer = await member(accountId, "viewer");
    const stranger = await member((await createAccount({ db }, { actor: testActor, name: "Outra" })).id, "viewer");
    const { token } = await createPanelSession({ db }, { userId: viewer.id, ttlMs: 3600_000, maxAgeMs: 3600_000 });
    expect(await loadPanelSession({ db }, { token, ttlMs: 3600_000, maxAgeMs: 3600_000 })).not.toBeNull();

    expect(
      await refusal(
        removePanelUser({ db }, { accountId, userId: owner.id, actor: { id: "panel:t", origin: "panel" } }),
      ),
    ).toBe("last_owner");
    expect(
      await refusal(
        removePanelUser({ db }, { accountId, userId: stranger.id, actor: { id: "panel:t", origin: "panel" } }),
      ),
    ).toBe("not_found");
    expect(await db.panelUser.findUnique({ where: { id: stranger.id } })).not.toBeNull();

    await removePanelUser({ db }, { accountId, userId: viewer.id, actor: { id: "panel:t", origin: "panel" } });
    expect(await loadPanelSession({ db }, { token, ttlMs: 3600_000, maxAgeMs: 3600_000 })).toBeNull();
    expect((await listPanelUsers({ db }, { accountId })).users.map((u) => u.id)).toEqual([owner.id]);
  });

  it("an invite can be cancelled by its account only, and its link then stops working", async () => {
    const { id: accountId } = await createAccount({ db }, { actor: testActor, name: "Convites" });
    const { id: otherId } = await createAccount({ db }, { actor: testActor, name: "Outra" });
    const owner = await member(accountId, "owner");
    const invited = await invitePanelUser(
      { db },
      {
        accountId,
        email: `novo-${tag()}@exemplo.com.br`,
        role: "admin",
        invitedBy: owner.id,
        actor: { id: "panel:t", origin: "panel" },
      },
    );
    expect(await findPanelInvite({ db }, { token: invited.token })).toMatchObject({ role: "admin" });

    expect(
      await refusal(
        cancelPanelInvite(
          { db },
          { accountId: otherId, inviteId: invited.invite.id, actor: { id: "panel:t", origin: "panel" } },
        ),
      ),
    ).toBe("not_found");
    await cancelPanelInvite(
      { db },
      { accountId, inviteId: invited.invite.id, actor: { id: "panel:t", origin: "panel" } },
    );
    expect(await findPanelInvite({ db }, { token: invited.token })).toBeNull();
    expect(await listPanelInvites({ db }, { accountId })).toEqual([]);
    expect(await refusal(acceptPanelInvite({ db }, { token: invited.token, name: "X", password: PASSWORD }))).toBe(
      "invite_invalid",
    );

    // An accepted invite is no longer pending: cancelling it is not found, and the user stays.
    const other = await invitePanelUser(
      { db },
      {
        accountId,
        email: `outro-${tag()}@exemplo.com.br`,
        role: "viewer",
        invitedBy: owner.id,
        actor: { id: "panel:t", origin: "panel" },
      },
    );
    const user = await acceptPanelInvite({ db }, { token: other.token, name: "Outro", password: PASSWORD });
    expect(
      await refusal(
        cancelPanelInvite({ db }, { accountId, inviteId: other.invite.id, actor: { id: "panel:t", origin: "panel" } }),
      ),
    ).toBe("not_found");
    expect(user).toMatchObject({ account_id: accountId, role: "viewer" });
  });
});
