import type { Db } from "@gw/db";
import type { Logger } from "@gw/logger";
import { rollupPricingDays } from "@gw/core";
import { periodicTask, type PeriodicTask } from "@gw/jobs";

/**
 * The cost ledger's daily rollup as a maintenance task (docs/decisions.md, "Per-message pricing and costs"). It
 * works once per São Paulo day (each run after that is one read of its state); any number of dispatcher pods may
 * run it (each account's days are replaced under an advisory lock). `stop()` lets the account in progress finish.
 */
export function createPricingRollupTask(deps: { db: Db; logger: Logger }): PeriodicTask<void> {
  const { db, logger } = deps;
  let abort = new AbortController();
  const task = periodicTask(
    async () => {
      const result = await rollupPricingDays({ db }, { signal: abort.signal });
      if (result.ran)
        logger.info("pricing rollup rolled the closed days", {
          rolledBefore: result.rolledBefore,
          accounts: result.accounts,
          accountDays: result.days,
        });
    },
    (error) => logger.warn("pricing rollup failed; trying again next cycle", { error: error.message }),
  );
  return {
    run: () => task.run(),
    start(intervalMs) {
      abort = new AbortController();
      task.start(intervalMs);
    },
    async stop() {
      abort.abort();
      await task.stop();
    },
  };
}
