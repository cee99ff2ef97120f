import { createHash, randomBytes } from "node:crypto";
import type { Db } from "@gw/db";
import { recordAudit } from "../audit/audit.ts";
import type { PanelRole } from "./users.ts";
import { isPanelRole } from "./users.ts";

/** The signed-in user as every panel request sees it: role and account read from the database each time. */
export interface PanelSessionUser {
  sessionId: string;
  csrfToken: string;
  userId: string;
  accountId: string;
  accountName: string;
  email: string;
  name: string;
  role: PanelRole;
}

const sessionId = (token: string) => createHash("sha256").update(token).digest("hex");
// last_seen_at and the sliding expiry are written at most once a minute per session, not on every page.
const TOUCH_EVERY_MS = 60_000;

/** A new session; the token goes to the cookie, only its hash to the database. */
export async function createPanelSession(
  deps: { db: Db },
  input: { userId: string; ttlMs: number },
): Promise<{ token: string; csrfToken: string }> {
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(32).toString("base64url");
  await deps.db.panelSession.create({
    data: { id: sessionId(token), userId: input.userId, csrfToken, expiresAt: new Date(Date.now() + input.ttlMs) },
  });
  return { token, csrfToken };
}

export async function loadPanelSession(
  deps: { db: Db },
  input: { token: string; ttlMs: number },
): Promise<PanelSessionUser | null> {
  const id = sessionId(input.token);
  const row = await deps.db.panelSession.findUnique({
    where: { id },
    include: { user: { include: { account: { select: { name: true } } } } },
  });
  if (!row || row.expiresAt <= new Date() || !isPanelRole(row.user.role)) return null;
  if (Date.now() - row.lastSeenAt.getTime() > TOUCH_EVERY_MS)
    await deps.db.panelSession.update({
      where: { id },
      data: { lastSeenAt: new Date(), expiresAt: new Date(Date.now() + input.ttlMs) },
    });
  return {
    sessionId: id,
    csrfToken: row.csrfToken,
    userId: row.userId,
    accountId: row.user.accountId,
    accountName: row.user.account.name,
    email: row.user.email,
    name: row.user.name,
    role: row.user.role,
  };
}

/** Signs out: the session goes, and its user's sign-out is audited (`panel.logout`) when there was one. */
export async function deletePanelSession(
  deps: { db: Db },
  input: { token: string; requestId?: string | undefined },
): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    const deleted = await tx.panelSession.findUnique({
      where: { id: sessionId(input.token) },
      select: { user: { select: { accountId: true, email: true } } },
    });
    if (!deleted) return;
    await tx.panelSession.deleteMany({ where: { id: sessionId(input.token) } });
    await recordAudit(tx, {
      accountId: deleted.user.accountId,
      actor: { id: `panel:${deleted.user.email}`, origin: "panel", requestId: input.requestId },
      action: "panel.logout",
    });
  });
}
