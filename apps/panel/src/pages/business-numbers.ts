import { listAccountNumbers } from "@gw/core/accounts";
import type { PanelDeps } from "../container.ts";
import { FIELD_LABELS } from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";

/**
 * The business number as every page spells it (issue 38, item 6): the display number people dial ("+55 11
 * 4000-0001"), with Meta's phone_number_id as a smaller detail for integrators.
 */

/** The account's numbers by phone_number_id → display number. */
export async function accountNumberNames(
  deps: Pick<PanelDeps, "db">,
  accountId: string,
): Promise<ReadonlyMap<string, string>> {
  const numbers = await listAccountNumbers({ db: deps.db }, { accountId });
  return new Map(numbers.map((number) => [number.phone_number_id, number.display_number]));
}

/** "+55 11 4000-0001" and, below, its phone_number_id; a number removed since says so. */
export function businessNumber(names: ReadonlyMap<string, string>, phoneNumberId: string): SafeHtml {
  return numberWithId(names.get(phoneNumberId) ?? null, phoneNumberId);
}

/**
 * A display number (null: removed from the account) with its phone_number_id as a detail on the next line; `after`
 * follows the number on its line ("(8 msg/s)").
 */
export function numberWithId(display: string | null, phoneNumberId: string, after?: string): SafeHtml {
  return html`<span class="number">${display ?? "número removido"}${after ? ` ${after}` : ""}</span>
    <small class="code" title="${FIELD_LABELS.phone_number_id}">phone_number_id <code>${phoneNumberId}</code></small>`;
}
