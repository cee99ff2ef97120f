// jest's globalSetup for the tiers that spawn processes (jest.config.ts): builds the bundles those processes run
// (scripts/build.mjs, dist/<app>/main.mjs, as the image runs them) once per jest run, from the current sources.
// scripts/test.sh builds them before jest and says so with GW_BUNDLES_BUILT=1; a second tier's setup skips too.
import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export default function buildBundlesOnce() {
  if (process.env.GW_BUNDLES_BUILT === "1") return;
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const build = spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) throw new Error("scripts/build.mjs falhou");
  process.env.GW_BUNDLES_BUILT = "1";
}
