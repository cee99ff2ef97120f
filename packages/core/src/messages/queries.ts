import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { resolveBusinessNumber } from "../accounts/accounts.ts";
import type { CatalogueCache } from "../catalogue/catalogue.ts";
import { normalizePhone } from "../phones/normalize.ts";
import { toCatalogueItem } from "../templates/index.ts";
import { getWindow } from "../windows/windows.ts";

/** POST /public/v1/validate (spec 4.2): `valid=false` is an answer, not an error. */
export function validatePhone(to: string, country?: string | null) {
  const phone = normalizePhone(to, country);
  return {
    to: phone.digits,
    valid: phone.valid,
    country: phone.country,
    type: phone.type,
    e164: phone.e164,
    national_format: phone.nationalFormat,
  };
}

/**
 * GET /public/v1/window/{to} (spec 4.3). An account without any business number has no open window with
 * anyone (`open: false`, which the spec says is not an error). Returns null when `phoneNumberId` is given but
 * is not one of the account's numbers: the route answers that as a validation error of the query.
 */
export async function windowStatus(db: Db, accountId: string, to: string, phoneNumberId?: string) {
  const number = await resolveBusinessNumber(db, accountId, phoneNumberId);
  if (!number && phoneNumberId) return null;
  const phone = normalizePhone(to);
  const contact = phone.valid ? phone.digits : phone.digits || to;
  const window = number
    ? await getWindow(db, number.phoneNumberId, contact)
    : { open: false, expiresAt: null, lastInboundAt: null };
  return {
    to: contact,
    phone_number_id: number?.phoneNumberId ?? null,
    open: window.open,
    expires_at: window.expiresAt?.toISOString() ?? null,
    last_inbound_at: window.lastInboundAt?.toISOString() ?? null,
  };
}

/** Statuses Meta reports for templates; `ALL` lists every one of them. */
export const TEMPLATE_STATUSES = [
  "APPROVED",
  "PENDING",
  "REJECTED",
  "PAUSED",
  "DISABLED",
  "IN_APPEAL",
  "PENDING_DELETION",
  "DELETED",
  "LIMIT_EXCEEDED",
  "ARCHIVED",
] as const;

/** GET /public/v1/templates (spec 4.4). */
export async function templateCatalogue(
  deps: { db: Db; catalogue: CatalogueCache },
  accountId: string,
  query: { status: string; phone_number_id?: string | undefined },
) {
  const status = query.status.toUpperCase();
  if (status !== "ALL" && !(TEMPLATE_STATUSES as readonly string[]).includes(status))
    throw new ApiError("invalid_template_status");
  const number = await resolveBusinessNumber(deps.db, accountId, query.phone_number_id);
  if (!number) throw new ApiError("no_connected_number");
  const templates = await deps.catalogue.get(number.wabaId);
  return templates.filter((t) => status === "ALL" || t.status === status).map(toCatalogueItem);
}
