// Core's concerns point one way (ARCHITECTURE.md, "Tiers inside core"): the lint zones of eslint.config.js fail an
// import from a concern to one of its own or a higher tier, and every folder of packages/core/src has a tier. Probes
// are linted in memory (no tracked file changes), in the style of packages/testkit's tooling.static-checks test.
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { ESLint } from "eslint";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const CORE_SRC = "packages/core/src";
const SLOW = 60_000;
const PROBE = "tier-probe.ts";

// Only the import rule is run, without type information (probe files do not exist, and the zones need none):
// every zone is the real configuration's.
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfig: { files: ["**/*.ts"], languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => ruleId === "import-x/no-restricted-paths",
});

async function lint(dir: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, CORE_SRC, dir, PROBE) });
  if (!result) throw new Error("ESLint returned no result");
  return { rules: result.messages.map((m) => m.ruleId), messages: result.messages.map((m) => m.message) };
}

const RESTRICTED = "import-x/no-restricted-paths";

describe("core's tiers (eslint.config.js)", () => {
  it(
    "fails the three upward imports this structure removed: health → campaigns, health → the outbox's old home in events, deliveries → accounts",
    async () => {
      const campaigns = await lint("health", 'export { pauseCampaignsOfNumbers } from "../campaigns/index.ts";\n');
      expect(campaigns.rules).toEqual([RESTRICTED]);
      expect(campaigns.messages[0]).toContain("Core's health is in tier 4");
      const events = await lint("health", 'export { applyStatuses } from "../events/statuses.ts";\n');
      expect(events.rules).toEqual([RESTRICTED]);
      const accounts = await lint(
        "deliveries/attempt",
        'export { createAccount } from "../../accounts/accounts.ts";\n',
      );
      expect(accounts.rules).toEqual([RESTRICTED]);
      expect(accounts.messages[0]).toContain("Core's deliveries is in tier 1");
    },
    SLOW,
  );

  it(
    "fails an import within the same tier, and one through a concern's entry point by name",
    async () => {
      const sameTier = await lint("events", 'export { listWabaHealth } from "../health/blocks.ts";\n');
      expect(sameTier.rules).toEqual([RESTRICTED]);
      const byName = await lint("throughput", 'export { sendMessage } from "@gw/core/messages";\n');
      expect(byName.rules).toEqual([RESTRICTED]);
    },
    SLOW,
  );

  // While core's root index re-exports every concern (until the consumers move off it, then it goes with its zone).
  it("fails a concern importing core's root index", async () => {
    const root = await lint("audit", 'export { recordAudit } from "../index.ts";\n');
    expect(root.rules).toEqual([RESTRICTED]);
    expect(root.messages[0]).toContain("never core's root index");
  });

  it(
    "passes an import of a lower tier and the deliveries' administration using their attempt core, never the reverse",
    async () => {
      expect(await lint("health", 'export { applyMessagingRate } from "../throughput/rates.ts";\n')).toEqual({
        rules: [],
        messages: [],
      });
      expect(await lint("deliveries/admin", 'export { ensureAttemptQueued } from "../attempt/queueing.ts";\n')).toEqual(
        {
          rules: [],
          messages: [],
        },
      );
      const reverse = await lint("deliveries/attempt", 'export { retryDelivery } from "../admin/retry.ts";\n');
      expect(reverse.rules).toEqual([RESTRICTED]);
      expect(reverse.messages[0]).toContain("attempt core never imports their administration");
    },
    SLOW,
  );

  it("gives every folder of packages/core/src a tier (a new concern must be placed)", async () => {
    const folders = readdirSync(join(ROOT, CORE_SRC), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.length).toBeGreaterThan(10);
    const config = (await eslint.calculateConfigForFile(join(ROOT, CORE_SRC, "index.ts"))) as {
      rules: Record<string, [unknown, { zones: { target: string | string[] }[] }]>;
    };
    const zones = config.rules[RESTRICTED]?.[1].zones ?? [];
    const placed = new Set(zones.flatMap((zone) => zone.target).filter((target) => target.startsWith(`${CORE_SRC}/`)));
    expect(folders.filter((folder) => !placed.has(`${CORE_SRC}/${folder}`))).toEqual([]);
  });
});
