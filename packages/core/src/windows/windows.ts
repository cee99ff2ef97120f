import type { Db, DbTx } from "@gw/db";

export const WINDOW_MS = 24 * 3_600_000;

export interface WindowState {
  open: boolean;
  expiresAt: Date | null;
  lastInboundAt: Date | null;
}

/** The 24 h window of a contact on a business number (spec 4.3): only messages FROM the contact count. */
export async function getWindow(
  db: Db,
  phoneNumberId: string,
  contact: string,
  now = new Date(),
): Promise<WindowState> {
  const row = await db.contactWindow.findUnique({ where: { phoneNumberId_contact: { phoneNumberId, contact } } });
  if (!row) return { open: false, expiresAt: null, lastInboundAt: null };
  return { open: row.expiresAt.getTime() > now.getTime(), expiresAt: row.expiresAt, lastInboundAt: row.lastInboundAt };
}

/** Record an inbound message; events may arrive out of order, so the greatest times win (spec 6.3 rule 1). */
export async function extendWindow(tx: DbTx, phoneNumberId: string, contact: string, inboundAt: Date): Promise<void> {
  const expiresAt = new Date(inboundAt.getTime() + WINDOW_MS);
  await tx.$executeRaw`
    INSERT INTO contact_windows (phone_number_id, contact, last_inbound_at, expires_at)
    VALUES (${phoneNumberId}, ${contact}, ${inboundAt}, ${expiresAt})
    ON CONFLICT (phone_number_id, contact) DO UPDATE SET
      last_inbound_at = GREATEST(contact_windows.last_inbound_at, EXCLUDED.last_inbound_at),
      expires_at = GREATEST(contact_windows.expires_at, EXCLUDED.expires_at)`;
}
