import type { MarketingMessagesSetting, NumberView } from "@gw/contracts";
import { inTransaction, type Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { recordAuditAs, type Actor } from "../audit/audit.ts";
import { announceNumberChange } from "./directory.ts";

// A business number's settings the account changes itself (issue 37): through the API (PATCH /numbers/{id}), the
// panel (Números) and the CLI (`number marketing-messages`), one service for all three.

interface NumberRow {
  phone_number_id: string;
  waba_id: string;
  display_number: string;
  is_default: boolean;
  messaging_rate_per_second: number;
  marketing_messages: boolean;
}

const COLUMNS = `phone_number_id, waba_id, display_number, is_default, messaging_rate_per_second, marketing_messages`;

function view(row: NumberRow): NumberView {
  return {
    phone_number_id: row.phone_number_id,
    waba_id: row.waba_id,
    display_number: row.display_number,
    is_default: row.is_default,
    messaging_rate_per_second: row.messaging_rate_per_second,
    marketing_messages: row.marketing_messages ? "on" : "off",
  };
}

/** GET /public/v1/numbers: the account's business numbers and their settings, the default first. */
export async function listNumberSettings(deps: { db: Db }, input: { accountId: string }) {
  const { rows } = await deps.db.sql.query<NumberRow>({
    name: "number-settings-list",
    text: `SELECT ${COLUMNS} FROM business_numbers WHERE account_id = $1::uuid
      ORDER BY is_default DESC, created_at, id`,
    values: [input.accountId],
  });
  return rows.map(view);
}

export interface NumberSettingsChange {
  accountId: string;
  phoneNumberId: string;
  marketingMessages: MarketingMessagesSetting;
  actor: Actor;
}

/**
 * Turns the number's Marketing Messages API route on or off: set, audited (`<origin>.number.marketing_messages`, with
 * the value before and after) and announced to every pod's directory in one transaction, so the next send of every
 * pod routes by it. Another account's number, or one that does not exist, is `not_found`.
 */
export async function updateNumberSettings(deps: { db: Db }, input: NumberSettingsChange): Promise<NumberView> {
  const on = input.marketingMessages === "on";
  return inTransaction(deps.db.sql, async (client) => {
    const { rows } = await client.query<NumberRow & { previous: boolean }>({
      name: "number-settings-update",
      text: `WITH before AS (
          SELECT id, marketing_messages AS previous FROM business_numbers
          WHERE account_id = $1::uuid AND phone_number_id = $2 FOR UPDATE)
        UPDATE business_numbers n SET marketing_messages = $3 FROM before WHERE n.id = before.id
        RETURNING ${COLUMNS.split(", ")
          .map((column) => `n.${column}`)
          .join(", ")}, before.previous`,
      values: [input.accountId, input.phoneNumberId, on],
    });
    const row = rows[0];
    if (!row) throw new ApiError("not_found", { message: `O número ${input.phoneNumberId} não existe nesta conta.` });
    if (row.previous !== on) {
      await recordAuditAs(client, input, "number.marketing_messages", {
        target: `number:${input.phoneNumberId}`,
        details: { from: row.previous ? "on" : "off", to: input.marketingMessages },
      });
      await announceNumberChange(client, input.accountId);
    }
    return view(row);
  });
}
