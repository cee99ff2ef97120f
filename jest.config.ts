/** @jest-config-loader-options {"transpileOnly": true, "skipProject": true} */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "jest";

// Run through `npm test` (scripts/test.sh): it starts PostgreSQL and Redis, migrates a template database, copies the
// run's test database from it, builds the apps' bundles and exports DATABASE_URL / REDIS_URL before handing over.
//
// One jest project per tier (`pnpm jest --selectProjects unit`; a folder still selects by path:
// `npm test -- apps/api`). A test file's tier follows from what it starts, read from its source:
// - browser: `*.browser.test.ts`, the panel driven by Chromium (one Chromium per jest worker, @gw/test-stack);
// - process: it spawns processes (the apps' bundles, the CLI, throwaway PostgreSQL or Redis servers);
// - integration: it uses the test PostgreSQL or Redis, or starts a stack in this process;
// - unit: none of these.
// Every test file is in exactly one tier.
export type Tier = "unit" | "integration" | "process" | "browser";

const PROCESS =
  /\b(spawnApp|spawnScript|spawnSandbox|startApi|startApiPods|startPanel|startSandboxProcess|launchDispatcher|startThrowaway\w+|runPnpmGateway|runCliOnTerminal|runCliProcess|execFile|spawnSync|spawn)\(|sandboxProcess: true/;
const INTEGRATION =
  /\b(testEnv|isolatedDatabase|createTempDatabase|startStack|startTestGateway|startPanelStack|startCampaignStack|startHttpPanel|createDb|createRedis|createSqlPool)\(|DATABASE_URL|REDIS_URL/;

export function tierOf(file: string): Tier {
  if (file.endsWith(".browser.test.ts")) return "browser";
  const source = readFileSync(file, "utf8");
  if (PROCESS.test(source)) return "process";
  if (INTEGRATION.test(source)) return "integration";
  return "unit";
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".test.ts"))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !file.includes("/node_modules/") && !file.includes("/generated/"));
}

const files = ["apps", "packages"]
  .flatMap((kind) => readdirSync(kind).map((name) => `${kind}/${name}/test`))
  .filter((dir) => existsSync(dir))
  .flatMap(testFiles)
  .sort();

const tiers: Tier[] = ["unit", "integration", "process", "browser"];
const byTier = new Map<Tier, string[]>(tiers.map((tier) => [tier, []]));
for (const file of files) byTier.get(tierOf(file))?.push(file);

const config: Config = {
  projects: tiers.map((tier) => ({
    displayName: tier,
    testEnvironment: "node",
    // Exact paths: a file is matched by its own tier only.
    testMatch: (byTier.get(tier) ?? []).map((file) => `<rootDir>/${file}`),
    testPathIgnorePatterns: ["/node_modules/", "/generated/"],
    // Long-lived workers that load the modules under test once; tsx compiles the TypeScript there
    // (scripts/jest/runner.mjs), so jest itself transforms nothing.
    runner: "<rootDir>/scripts/jest/runner.mjs",
    transform: {},
    // The tiers that spawn the apps build their bundles once per run (scripts/test.sh already did: then a no-op).
    ...(tier === "process" || tier === "browser" ? { globalSetup: "<rootDir>/scripts/jest-global-setup.mjs" } : {}),
  })),
  testTimeout: 30_000,
  // Three workers on two cores: the fault and campaign files mostly wait (leases running out, pacing, statuses Meta
  // sends 15 s late), and a third worker runs another file meanwhile (docs/performance.md, "The suite's time").
  maxWorkers: 3,
  // A worker keeps what its files leave reachable. One that grew to 3-4 GB made a CPU-heavy file landing on it late
  // several times slower in garbage collection (csv.streaming-and-formulas: 22 s alone, 174 s there), so a worker
  // above this after a file is replaced (scripts/jest/runner.mjs). Four workers ran no faster than three: the two
  // cores are 96 % busy through the run.
  workerIdleMemoryLimit: "1GB",
};

export default config;
