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
  /**
   * When this session last proved its password (sign-in, a confirmation) or did a sensitive action: sensitive
   * actions ask for the password again once it is older than the panel's re-authentication idle time.
   */
  reauthenticatedAt: Date;
}

/** How long a session lives: idle expiry (sliding), and an absolute end counted from sign-in. */
export interface PanelSessionLifetime {
  /** Ends after this long without use; each use (at most once a minute) pushes the end further. */
  ttlMs: number;
  /** Ends this long after sign-in whatever the use: a stolen cookie is not good for ever. */
  maxAgeMs: number;
}

/** The session's end: its idle expiry from `from`, never past its absolute end. */
function expiryOf(createdAt: Date, from: number, lifetime: PanelSessionLifetime): Date {
  return new Date(Math.min(from + lifetime.ttlMs, createdAt.getTime() + lifetime.maxAgeMs));
}

const sessionId = (token: string) => createHash("sha256").update(token).digest("hex");
// last_seen_at and the sliding expiry are written at most once a minute per session, not on every page.
const TOUCH_EVERY_MS = 60_000;

/** A new session; the token goes to the cookie, only its hash to the database. */
export async function createPanelSession(
  deps: { db: Db },
  input: { userId: string } & PanelSessionLifetime,
): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(32).toString("base64url");
  const now = new Date();
  const expiresAt = expiryOf(now, now.getTime(), input);
  await deps.db.panelSession.create({
    data: {
      id: sessionId(token),
      userId: input.userId,
      csrfToken,
      createdAt: now,
      lastSeenAt: now,
      reauthenticatedAt: now,
      expiresAt,
    },
  });
  return { token, csrfToken, expiresAt };
}

export async function loadPanelSession(
  deps: { db: Db },
  input: { token: string } & PanelSessionLifetime,
): Promise<PanelSessionUser | null> {
  const id = sessionId(input.token);
  const row = await deps.db.panelSession.findUnique({
    where: { id },
    include: { user: { include: { account: { select: { name: true } } } } },
  });
  const now = Date.now();
  // The absolute end is checked on its own too: a row written before it existed may carry a later expiry.
  if (
    !row ||
    row.expiresAt.getTime() <= now ||
    row.createdAt.getTime() + input.maxAgeMs <= now ||
    !isPanelRole(row.user.role)
  )
    return null;
  if (now - row.lastSeenAt.getTime() > TOUCH_EVERY_MS)
    await deps.db.panelSession.update({
      where: { id },
      data: { lastSeenAt: new Date(now), expiresAt: expiryOf(row.createdAt, now, input) },
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
    reauthenticatedAt: row.reauthenticatedAt,
  };
}

/** The session proved its password again (or did a sensitive action): its re-authentication clock restarts. */
export async function markPanelSessionReauthenticated(
  deps: { db: Db },
  input: { sessionId: string; at?: Date },
): Promise<void> {
  await deps.db.panelSession.updateMany({
    where: { id: input.sessionId },
    data: { reauthenticatedAt: input.at ?? new Date() },
  });
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
