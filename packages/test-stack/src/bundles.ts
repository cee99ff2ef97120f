// The bundles the image runs (scripts/build.mjs → dist/<app>/main.mjs), which every process a test spawns runs.
// They are built once per jest run, by jest's globalSetup (scripts/jest-global-setup.mjs); a bundle missing when a
// test spawns it (jest run with another config) is built then.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@gw/testkit";

/** scripts/build.mjs's app names, the folders under dist/. */
export type AppName = "api" | "dispatcher" | "provider-sandbox" | "panel" | "campaign-worker" | "cli" | "migrate";

/** The bundle of `app`, relative to the repository root (as the Dockerfile's CMDs name them). */
export function bundleOf(app: AppName): string {
  return `dist/${app}/main.mjs`;
}

/** Builds the named bundles (all with none) from the current sources; throws with the build's output on failure. */
export function buildBundles(apps: readonly AppName[] = []): void {
  const build = spawnSync(process.execPath, ["scripts/build.mjs", ...apps], { cwd: REPO_ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`scripts/build.mjs ${apps.join(" ")} falhou:\n${build.stderr}`);
}

/** The bundle's path, built first when missing. */
export function ensureBundle(app: AppName): string {
  const bundle = bundleOf(app);
  if (!existsSync(join(REPO_ROOT, bundle))) buildBundles([app]);
  return bundle;
}
