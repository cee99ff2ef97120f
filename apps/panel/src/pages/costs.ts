import type { Router } from "express";
import { listAccountNumbers } from "@gw/core/accounts";
import { addDays, daysInRange, isCalendarDay, saoPauloDay, usageBreakdown } from "@gw/core/pricing";
import type { PanelDeps } from "../container.ts";
import { currentUser } from "../http/context.ts";
import { requireCapability } from "../http/roles.ts";
import { queryText } from "../views/components.ts";
import { page } from "../views/layout.ts";
import { costsPageBody } from "./costs-views.ts";
import type { PanelPage } from "./types.ts";

/** Days shown when the filter gives none, and the most one view covers (as GET /public/v1/usage). */
const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;

interface Range {
  since: string;
  until: string;
  /** Why the range typed was not used as typed (a Portuguese sentence), or null. */
  problem: string | null;
}

/** The range of the filter: both days checked, the last 30 days by default, at most 366 days. */
function rangeOf(de: string | undefined, ate: string | undefined, today: string): Range {
  const invalid = (de !== undefined && !isCalendarDay(de)) || (ate !== undefined && !isCalendarDay(ate));
  const until = ate !== undefined && isCalendarDay(ate) ? ate : today;
  const since = de !== undefined && isCalendarDay(de) ? de : addDays(until, -(DEFAULT_DAYS - 1));
  if (invalid)
    return {
      since,
      until,
      problem: "Data inválida: use o seletor de data (dia/mês/ano). A data inválida foi ignorada.",
    };
  if (daysInRange(since, until) < 1)
    return {
      since: addDays(until, -(DEFAULT_DAYS - 1)),
      until,
      problem: "A data inicial é posterior à final: mostrando os 30 dias até a data final.",
    };
  if (daysInRange(since, until) > MAX_DAYS)
    return {
      since: addDays(until, -(MAX_DAYS - 1)),
      until,
      problem: `O período pode ter no máximo ${MAX_DAYS} dias: mostrando os ${MAX_DAYS} dias até a data final.`,
    };
  return { since, until, problem: null };
}

/** The account's cost ledger (docs/panel.md, "Custos"): every role reads it (http/roles.ts, `costs.view`). */
export const costsPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    router.get("/custos", requireCapability("costs.view"), async (req, res) => {
      const user = currentUser(req);
      const range = rangeOf(queryText(req, "de"), queryText(req, "ate"), saoPauloDay(new Date()));
      const numbers = await listAccountNumbers({ db: deps.db }, { accountId: user.accountId });
      const asked = queryText(req, "numero");
      // Only one of the account's numbers filters; anything else shows them all.
      const numero = numbers.some((number) => number.phone_number_id === asked) ? asked : undefined;
      const report = await usageBreakdown(
        { db: deps.db },
        {
          accountId: user.accountId,
          since: range.since,
          until: range.until,
          phoneNumberId: numero,
          groupings: [["day", "category"], ["day"], ["category", "type"], ["number"]],
        },
      );
      const days = Array.from({ length: daysInRange(range.since, range.until) }, (_, index) =>
        addDays(range.since, index),
      );
      res.type("html").send(
        page(req, {
          title: "Custos",
          section: "/custos",
          notice: range.problem ? { kind: "error", text: range.problem } : null,
          body: costsPageBody({
            report,
            days,
            numbers,
            filter: { de: range.since, ate: range.until, numero },
          }),
        }).value,
      );
    });
  },
};
