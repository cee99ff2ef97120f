// What each runtime image holds (docker/Dockerfile): its own app's tree, staged by `scripts/build.mjs --stage`, and
// nothing of the other apps, the TypeScript sources, packages/testkit or the provider sandbox. Offline: the
// Dockerfile's targets, and one app's staged tree built here (the migration runner's, the smallest). The built images
// themselves are inspected by the topology run (`pnpm test:deploy`, its first step).
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { REPO_ROOT } from "../src/index.ts";

const run = promisify(execFile);
const TARGETS = ["api", "dispatcher", "campaign-worker", "panel", "migrate", "provider-sandbox", "receiver"];

/** Every file under `dir`, relative to it, not descending into node_modules. */
function filesOutsideNodeModules(dir: string, under = dir): string[] {
  return readdirSync(under, { withFileTypes: true }).flatMap((entry) => {
    const path = join(under, entry.name);
    if (entry.name === "node_modules") return [];
    return entry.isDirectory() ? filesOutsideNodeModules(dir, path) : [relative(dir, path)];
  });
}

describe("docker/Dockerfile", () => {
  const dockerfile = readFileSync(join(REPO_ROOT, "docker/Dockerfile"), "utf8");
  /** The instructions of one stage, from its FROM to the next. */
  const stage = (name: string) => {
    const start = dockerfile.indexOf(` AS ${name}\n`);
    expect(start).toBeGreaterThan(0);
    const next = dockerfile.indexOf("\nFROM ", start);
    return dockerfile.slice(start, next < 0 ? undefined : next);
  };

  it("gives each target its own staged tree, and the shared runtime stage nothing of the build", () => {
    for (const target of TARGETS) {
      const copies = stage(target)
        .split("\n")
        .filter((line) => line.startsWith("COPY"));
      expect(copies).toEqual([`COPY --from=build /stage/${target} /app`]);
    }
    expect(stage("runtime")).not.toMatch(/^COPY/m);
    expect(dockerfile).not.toMatch(/COPY --from=build \/app/);
    expect(dockerfile).toContain("node scripts/build.mjs --stage /stage api dispatcher provider-sandbox panel");
  });
});

describe("scripts/build.mjs --stage", () => {
  const stageDir = mkdtempSync(join(tmpdir(), "gw-stage-"));
  const tree = join(stageDir, "migrate");
  let output = "";

  beforeAll(async () => {
    // Outside the repository: a module missing from the tree cannot be found in a parent's node_modules either.
    const result = await run(process.execPath, ["scripts/build.mjs", "--stage", stageDir, "migrate"], {
      cwd: REPO_ROOT,
    });
    output = result.stderr;
  }, 120_000);

  afterAll(() => rmSync(stageDir, { recursive: true, force: true }));

  it("holds the app's bundle and the files it reads, and no source, test or other app", () => {
    const files = filesOutsideNodeModules(tree);
    expect(files).toContain("dist/migrate/main.mjs");
    expect(files).toContain("prisma/migrations/migration_lock.toml");
    const migrations = readdirSync(join(REPO_ROOT, "prisma/migrations"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(migrations.length).toBeGreaterThan(0);
    for (const name of migrations) expect(files).toContain(`prisma/migrations/${name}/migration.sql`);
    expect(files.filter((file) => !file.startsWith("dist/migrate/") && !file.startsWith("prisma/migrations/"))).toEqual(
      [],
    );
    expect(existsSync(join(tree, "apps"))).toBe(false);
    expect(existsSync(join(tree, "packages"))).toBe(false);
  });

  it("holds from node_modules only what the bundle imports and its dependencies, no dev tool", () => {
    const installed = readdirSync(join(tree, "node_modules/.pnpm"));
    expect(installed.some((name) => name.startsWith("pg@"))).toBe(true);
    for (const tool of ["typescript@", "jest@", "esbuild@", "eslint@", "tsx@", "prettier@", "prisma@", "express@"]) {
      expect(installed.filter((name) => name.startsWith(tool))).toEqual([]);
    }
    // Far fewer than the workspace's: the migration runner needs the PostgreSQL client and the config parser.
    expect(installed.length).toBeLessThan(readdirSync(join(REPO_ROOT, "node_modules/.pnpm")).length / 10);
  });

  it("loads alone: the bundle ran from the tree up to its configuration check", () => {
    expect(output).toMatch(/\[stage\] migrate: \d+ pacotes de node_modules/);
  });
});
