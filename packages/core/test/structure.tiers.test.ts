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

/** An import from a concern's folder that lint refuses, and the words of the zone that refuses it. */
interface Probe {
  name: string;
  dir: string;
  code: string;
  refusal: string;
}

const refused = (refusal: string) => ({ rules: [RESTRICTED], message: expect.stringContaining(refusal) });
const passed = { rules: [], message: null };

async function verdict(dir: string, code: string) {
  const { rules, messages } = await lint(dir, `${code}\n`);
  return { rules, message: messages[0] ?? null };
}

const PROBES: Probe[] = [
  // The three upward imports this structure removed.
  {
    name: "fails health importing campaigns (health is handed the pause instead)",
    dir: "health",
    code: 'export { pauseCampaignsOfNumbers } from "../campaigns/index.ts";',
    refusal: "Core's health is in tier 4",
  },
  {
    name: "fails health importing events, the outbox's old home",
    dir: "health",
    code: 'export { applyStatuses } from "../events/statuses.ts";',
    refusal: "Core's health is in tier 4",
  },
  {
    name: "fails the deliveries importing accounts, the signing secrets' old home",
    dir: "deliveries/attempt",
    code: 'export { createAccount } from "../../accounts/accounts.ts";',
    refusal: "Core's deliveries is in tier 1",
  },
  {
    name: "fails an import within one tier (events and health)",
    dir: "events",
    code: 'export { listWabaHealth } from "../health/blocks.ts";',
    refusal: "Core's events is in tier 4",
  },
  {
    name: "fails an upward import through a concern's entry point by name",
    dir: "throughput",
    code: 'export { sendMessage } from "@gw/core/messages";',
    refusal: "Core's throughput is in tier 3",
  },
];

describe("core's tiers (eslint.config.js)", () => {
  it.each(PROBES)("$name", async ({ dir, code, refusal }) => {
    expect(await verdict(dir, code)).toEqual(refused(refusal));
  });

  it("lets a concern import a lower tier, and refuses the same import the other way (health and throughput)", async () => {
    expect(await verdict("health", 'export { applyMessagingRate } from "../throughput/rates.ts";')).toEqual(passed);
    expect(await verdict("throughput", 'export { listWabaHealth } from "../health/blocks.ts";')).toEqual(
      refused("Core's throughput is in tier 3"),
    );
  });

  it("lets the deliveries' administration use their attempt core, and refuses the reverse", async () => {
    expect(await verdict("deliveries/admin", 'export { ensureAttemptQueued } from "../attempt/queueing.ts";')).toEqual(
      passed,
    );
    expect(await verdict("deliveries/attempt", 'export { retryDelivery } from "../admin/retry.ts";')).toEqual(
      refused("attempt core never imports their administration"),
    );
  });

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
