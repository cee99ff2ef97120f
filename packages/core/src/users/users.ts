import { createHash, randomBytes } from "node:crypto";
import type { Db } from "@gw/db";
import type { Logger } from "@gw/logger";
import { recordAudit, recordAuditAs, type Actor } from "../audit/audit.ts";
import { MIN_PASSWORD_LENGTH, decoyHash, hashPassword, verifyPassword } from "./passwords.ts";

/**
 * owner: everything, users and keys included; admin: integrations, deliveries, templates, conversations; viewer: read;
 * agente (issue 39): reads and answers conversations, and reads orders and templates, nothing else.
 */
export const PANEL_ROLES = ["owner", "admin", "viewer", "agente"] as const;
export type PanelRole = (typeof PANEL_ROLES)[number];

export function isPanelRole(value: string): value is PanelRole {
  return (PANEL_ROLES as readonly string[]).includes(value);
}

export interface PanelUserView {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: PanelRole;
  created_at: string;
  last_login_at: string | null;
}

/** A refused user operation; `message` is a Portuguese sentence shown as is. */
export class PanelUserError extends Error {
  constructor(
    readonly code:
      | "email_taken"
      | "weak_password"
      | "invalid_email"
      | "not_found"
      | "last_owner"
      | "invite_invalid"
      | "invalid_role",
    message: string,
  ) {
    super(message);
    this.name = "PanelUserError";
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `<created_at ISO>_<id>` of the last user of a page. */
const USER_CURSOR = /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)_([0-9a-f-]{36})$/i;
const INVITE_TTL_MS = 7 * 24 * 3600_000;

function normalizeEmail(email: string): string {
  const normalized = email.trim().toLowerCase();
  if (!EMAIL.test(normalized) || normalized.length > 254)
    throw new PanelUserError("invalid_email", "Informe um e-mail válido.");
  return normalized;
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new PanelUserError("weak_password", `A senha deve ter pelo menos ${MIN_PASSWORD_LENGTH} caracteres.`);
}

function checkRole(role: string): PanelRole {
  if (!isPanelRole(role))
    throw new PanelUserError("invalid_role", "Papel inválido: use owner, admin, viewer ou agente.");
  return role;
}

function view(row: {
  id: string;
  accountId: string;
  email: string;
  name: string;
  role: string;
  createdAt: Date;
  lastLoginAt: Date | null;
}): PanelUserView {
  return {
    id: row.id,
    account_id: row.accountId,
    email: row.email,
    name: row.name,
    role: checkRole(row.role),
    created_at: row.createdAt.toISOString(),
    last_login_at: row.lastLoginAt?.toISOString() ?? null,
  };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

export interface CreateUserInput {
  accountId: string;
  email: string;
  name: string;
  role: PanelRole;
  password: string;
  actor: Actor;
}

/** The operator's `gateway user create` (the account's first owner) and an accepted invite end here. */
export async function createPanelUser(deps: { db: Db }, input: CreateUserInput): Promise<PanelUserView> {
  const email = normalizeEmail(input.email);
  checkPassword(input.password);
  const role = checkRole(input.role);
  const passwordHash = await hashPassword(input.password);
  try {
    return await deps.db.$transaction(async (tx) => {
      const row = await tx.panelUser.create({
        data: { accountId: input.accountId, email, name: input.name.trim() || email, role, passwordHash },
      });
      await recordAuditAs(tx, input, "user.created", {
        target: row.id,
        details: { role },
      });
      return view(row);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new PanelUserError("email_taken", "Já existe um usuário com este e-mail.");
    throw error;
  }
}

/** Why a password was checked: a sign-in, or its re-entry before a sensitive action. */
export type PasswordCheckPurpose = "sign_in" | "confirmation";

/**
 * One line per password checked with scrypt (the throttle's budget is counted in these), without the email: it
 * is personal data, and people type their password in the email field.
 */
function logPasswordCheck(
  logger: Logger | undefined,
  fields: { purpose: PasswordCheckPurpose; accepted: boolean; userId: string | null },
): void {
  logger?.info("panel password checked", {
    purpose: fields.purpose,
    outcome: fields.accepted ? "accepted" : "refused",
    userId: fields.userId,
  });
}

/**
 * The user for this email and password, or null; an unknown email costs the same time as a wrong password. A
 * success is a sign-in: audited as `panel.login` by the user it authenticates.
 */
export async function authenticatePanelUser(
  deps: { db: Db; logger?: Logger | undefined },
  input: { email: string; password: string; requestId?: string | undefined },
): Promise<PanelUserView | null> {
  const email = input.email.trim().toLowerCase();
  const row = await deps.db.panelUser.findUnique({ where: { email } });
  if (!row) {
    await verifyPassword(input.password, await decoyHash());
    logPasswordCheck(deps.logger, { purpose: "sign_in", accepted: false, userId: null });
    return null;
  }
  const accepted = await verifyPassword(input.password, row.passwordHash);
  logPasswordCheck(deps.logger, { purpose: "sign_in", accepted, userId: row.id });
  if (!accepted) return null;
  return deps.db.$transaction(async (tx) => {
    const updated = await tx.panelUser.update({ where: { id: row.id }, data: { lastLoginAt: new Date() } });
    await recordAudit(tx, {
      accountId: row.accountId,
      actor: { id: `panel:${row.email}`, origin: "panel", requestId: input.requestId },
      action: "panel.login",
    });
    return view(updated);
  });
}

/** Re-entering the password before a sensitive action (revealing a signing secret, managing users). */
export async function confirmPanelPassword(
  deps: { db: Db; logger?: Logger | undefined },
  input: { userId: string; password: string },
): Promise<boolean> {
  const row = await deps.db.panelUser.findUnique({ where: { id: input.userId } });
  // A user removed meanwhile costs the same check, like an unknown email at sign-in.
  const accepted = await verifyPassword(input.password, row?.passwordHash ?? (await decoyHash()));
  logPasswordCheck(deps.logger, { purpose: "confirmation", accepted: row !== null && accepted, userId: input.userId });
  return row !== null && accepted;
}

/**
 * The account's users, oldest first, with keyset paging on (created_at, id): `cursor` is the previous page's
 * `next_cursor`. `role` keeps one role; `query` matches part of the email or the name, any case.
 */
export async function listPanelUsers(
  deps: { db: Db },
  input: {
    accountId: string;
    role?: string | undefined;
    query?: string | undefined;
    limit?: number | undefined;
    cursor?: string | undefined;
  },
): Promise<{ users: PanelUserView[]; next_cursor: string | null }> {
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  const after = input.cursor ? USER_CURSOR.exec(input.cursor) : null;
  const query = input.query?.trim();
  const rows = await deps.db.panelUser.findMany({
    where: {
      accountId: input.accountId,
      ...(input.role ? { role: checkRole(input.role) } : {}),
      ...(query
        ? {
            OR: [
              { email: { contains: query, mode: "insensitive" as const } },
              { name: { contains: query, mode: "insensitive" as const } },
            ],
          }
        : {}),
      ...(after?.[1] && after[2]
        ? {
            AND: [
              {
                OR: [
                  { createdAt: { gt: new Date(after[1]) } },
                  { createdAt: new Date(after[1]), id: { gt: after[2].toLowerCase() } },
                ],
              },
            ],
          }
        : {}),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    // One more than asked tells whether another page exists.
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    users: page.map(view),
    next_cursor: rows.length > limit && last ? `${last.createdAt.toISOString()}_${last.id}` : null,
  };
}

/** Refuses to leave the account without an owner. */
async function ensureAnotherOwner(
  tx: Parameters<Parameters<Db["$transaction"]>[0]>[0],
  accountId: string,
  userId: string,
) {
  const owners = await tx.panelUser.count({ where: { accountId, role: "owner", id: { not: userId } } });
  if (owners === 0) throw new PanelUserError("last_owner", "A conta precisa de pelo menos um proprietário.");
}

export async function changePanelUserRole(
  deps: { db: Db },
  input: { accountId: string; userId: string; role: string; actor: Actor },
): Promise<PanelUserView> {
  const role = checkRole(input.role);
  // Not an id at all (a hand-edited URL) is simply not found, never a database error.
  if (!UUID.test(input.userId)) throw new PanelUserError("not_found", "Usuário não encontrado.");
  return deps.db.$transaction(async (tx) => {
    // FOR UPDATE on the account's owners: two concurrent demotions cannot both see "another owner".
    await tx.$queryRaw`SELECT id FROM panel_users WHERE account_id = ${input.accountId}::uuid AND role = 'owner' FOR UPDATE`;
    const row = await tx.panelUser.findFirst({ where: { id: input.userId, accountId: input.accountId } });
    if (!row) throw new PanelUserError("not_found", "Usuário não encontrado.");
    if (row.role === "owner" && role !== "owner") await ensureAnotherOwner(tx, input.accountId, row.id);
    const updated = await tx.panelUser.update({ where: { id: row.id }, data: { role } });
    await recordAuditAs(tx, input, "user.role_changed", {
      target: row.id,
      details: { email: row.email, from: row.role, to: role },
    });
    return view(updated);
  });
}

export async function removePanelUser(
  deps: { db: Db },
  input: { accountId: string; userId: string; actor: Actor },
): Promise<void> {
  if (!UUID.test(input.userId)) throw new PanelUserError("not_found", "Usuário não encontrado.");
  await deps.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM panel_users WHERE account_id = ${input.accountId}::uuid AND role = 'owner' FOR UPDATE`;
    const row = await tx.panelUser.findFirst({ where: { id: input.userId, accountId: input.accountId } });
    if (!row) throw new PanelUserError("not_found", "Usuário não encontrado.");
    if (row.role === "owner") await ensureAnotherOwner(tx, input.accountId, row.id);
    // Sessions and notice reads go with the user (ON DELETE CASCADE): a removed user is signed out at once.
    await tx.panelUser.delete({ where: { id: row.id } });
    await recordAuditAs(tx, input, "user.removed", {
      target: row.id,
      details: { email: row.email },
    });
  });
}

const inviteHash = (token: string) => createHash("sha256").update(token).digest("hex");

export interface PanelInviteView {
  id: string;
  email: string;
  role: PanelRole;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

/** An invite; the token is returned once (the owner is shown the link) and only its hash is stored. */
export async function invitePanelUser(
  deps: { db: Db },
  input: {
    accountId: string;
    email: string;
    role: string;
    invitedBy: string;
    actor: Actor;
  },
): Promise<{ invite: PanelInviteView; token: string }> {
  const email = normalizeEmail(input.email);
  const role = checkRole(input.role);
  // A user of THIS account is refused (the owner sees them in the list anyway). A user of another account is
  // invited exactly like a new email: the same answer after the same statements, so the invite form cannot tell
  // whether an email has access to some other tenant. Accepting such an invite is refused (one email, one account).
  const existing = await deps.db.panelUser.findUnique({ where: { email }, select: { accountId: true } });
  if (existing?.accountId === input.accountId)
    throw new PanelUserError("email_taken", "Já existe um usuário com este e-mail.");
  const token = randomBytes(24).toString("base64url");
  return deps.db.$transaction(async (tx) => {
    const row = await tx.panelInvite.create({
      data: {
        accountId: input.accountId,
        email,
        role,
        tokenHash: inviteHash(token),
        invitedBy: input.invitedBy,
        expiresAt: new Date(Date.now() + INVITE_TTL_MS),
      },
    });
    await recordAuditAs(tx, input, "user.invited", {
      target: row.id,
      details: { email, role },
    });
    return { invite: inviteView(row), token };
  });
}

function inviteView(row: {
  id: string;
  email: string;
  role: string;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
}): PanelInviteView {
  return {
    id: row.id,
    email: row.email,
    role: checkRole(row.role),
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    accepted_at: row.acceptedAt?.toISOString() ?? null,
  };
}

export async function listPanelInvites(deps: { db: Db }, input: { accountId: string }): Promise<PanelInviteView[]> {
  const rows = await deps.db.panelInvite.findMany({
    where: { accountId: input.accountId, acceptedAt: null, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
  });
  return rows.map(inviteView);
}

/** Withdraws a pending invite: its link stops working at once. Another account's invite is not found. */
export async function cancelPanelInvite(
  deps: { db: Db },
  input: { accountId: string; inviteId: string; actor: Actor },
): Promise<void> {
  if (!UUID.test(input.inviteId)) throw new PanelUserError("not_found", "Convite não encontrado.");
  await deps.db.$transaction(async (tx) => {
    const where = { id: input.inviteId, accountId: input.accountId, acceptedAt: null };
    const row = await tx.panelInvite.findFirst({ where, select: { id: true, email: true } });
    // deleteMany with the same condition: an invite accepted meanwhile is not withdrawn.
    const deleted = row ? await tx.panelInvite.deleteMany({ where }) : { count: 0 };
    if (!row || deleted.count !== 1) throw new PanelUserError("not_found", "Convite não encontrado.");
    await recordAuditAs(tx, input, "user.invite_cancelled", {
      target: row.id,
      details: { email: row.email },
    });
  });
}

/** The pending invite behind a link, or null when it is unknown, used or expired. */
export async function findPanelInvite(deps: { db: Db }, input: { token: string }): Promise<PanelInviteView | null> {
  const row = await deps.db.panelInvite.findUnique({ where: { tokenHash: inviteHash(input.token) } });
  if (!row || row.acceptedAt || row.expiresAt <= new Date()) return null;
  return inviteView(row);
}

export async function acceptPanelInvite(
  deps: { db: Db },
  input: { token: string; name: string; password: string; requestId?: string | undefined },
): Promise<PanelUserView> {
  checkPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  try {
    return await deps.db.$transaction(async (tx) => {
      // The UPDATE … WHERE accepted_at IS NULL claims the invite: a link works once even if opened twice at once.
      const claimed = await tx.panelInvite.updateMany({
        where: { tokenHash: inviteHash(input.token), acceptedAt: null, expiresAt: { gt: new Date() } },
        data: { acceptedAt: new Date() },
      });
      const invite = await tx.panelInvite.findUnique({ where: { tokenHash: inviteHash(input.token) } });
      if (claimed.count !== 1 || !invite)
        throw new PanelUserError("invite_invalid", "Este convite não é válido: já foi usado ou expirou.");
      const row = await tx.panelUser.create({
        data: {
          accountId: invite.accountId,
          email: invite.email,
          name: input.name.trim() || invite.email,
          role: invite.role,
          passwordHash,
        },
      });
      await recordAudit(tx, {
        accountId: invite.accountId,
        actor: { id: `user:${row.id}`, origin: "panel", requestId: input.requestId },
        action: "panel.user.invite_accepted",
        target: row.id,
        details: { role: invite.role },
      });
      return view(row);
    });
  } catch (error) {
    // The email has access through another account (invitePanelUser invites it like any new email).
    if (isUniqueViolation(error))
      throw new PanelUserError(
        "email_taken",
        "Este e-mail já tem acesso ao painel por outra conta, e um e-mail entra em uma conta só. Entre com ele, ou peça o convite para outro e-mail.",
      );
    throw error;
  }
}
