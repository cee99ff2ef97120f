// The SDK as an integrator gets it: both packages packed (pnpm pack, which builds them), installed from the tarballs
// into a fresh npm project outside the workspace, a plain-Node program sending a message through the running gateway
// and verifying its real signed deliveries (both schemes), and the same project typechecked under moduleResolution
// node16 and bundler. No package in the tarballs may depend on a private workspace package.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createTestAccount, seedIntegration, startStack, type Stack } from "@gw/test-stack";
import { freePort, REPO_ROOT } from "@gw/testkit";

const run = promisify(execFile);
const PUBLISHED = ["webhooks", "client"] as const;
const RUNTIME_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies"] as const;

type Manifest = { name: string; private?: boolean } & Partial<Record<string, Record<string, string>>>;

/** Every workspace package marked private (apps and packages). */
async function privateWorkspacePackages(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const kind of ["apps", "packages"]) {
    for (const folder of await readdir(join(REPO_ROOT, kind))) {
      const manifest = JSON.parse(
        await readFile(join(REPO_ROOT, kind, folder, "package.json"), "utf8").catch(() => "{}"),
      ) as Partial<Manifest>;
      if (manifest.private === true && manifest.name) names.add(manifest.name);
    }
  }
  return names;
}

/** Every package installed in the project's node_modules (scoped ones as `@scope/name`), at any depth. */
async function installedPackages(folder: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (modules: string): Promise<void> => {
    const entries = await readdir(modules, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const names = entry.name.startsWith("@")
        ? (await readdir(join(modules, entry.name))).map((name) => `${entry.name}/${name}`)
        : [entry.name];
      for (const name of names) {
        found.push(name);
        await walk(join(modules, name, "node_modules"));
      }
    }
  };
  await walk(join(folder, "node_modules"));
  return found;
}

const TSCONFIGS = {
  node16: { module: "node16", moduleResolution: "node16" },
  bundler: { module: "esnext", moduleResolution: "bundler" },
};

describe("@pt-gateway/client and @pt-gateway/webhooks installed from their tarballs", () => {
  let project: string;
  let stack: Stack;
  let tarballs: string[];

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), "pt-gateway-integrator-"));
    // The gateway starts once the packing builds (two tsup runs, side by side) have left the cores.
    await Promise.all(
      PUBLISHED.map((name) =>
        run("pnpm", ["pack", "--pack-destination", project], { cwd: join(REPO_ROOT, "packages", name) }),
      ),
    );
    tarballs = (await readdir(project)).filter((file) => file.endsWith(".tgz")).sort();
    const integratorFiles = join(REPO_ROOT, "packages/webhooks/test/integrator");
    await copyFile(join(integratorFiles, "integrate.mjs"), join(project, "integrate.mjs"));
    await copyFile(join(integratorFiles, "check.mts"), join(project, "check.mts"));
    const dependencies = Object.fromEntries(
      tarballs.map((file) => [file.replace(/^pt-gateway-(.+)-\d+\.\d+\.\d+\.tgz$/, "@pt-gateway/$1"), `file:${file}`]),
    );
    await writeFile(
      join(project, "package.json"),
      JSON.stringify({
        name: "integrator",
        private: true,
        type: "module",
        dependencies,
        devDependencies: { "@types/node": "^20" },
      }),
    );
    for (const [name, options] of Object.entries(TSCONFIGS)) {
      await writeFile(
        join(project, `tsconfig.${name}.json`),
        JSON.stringify({
          compilerOptions: {
            ...options,
            target: "es2022",
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ["node"],
          },
          files: ["check.mts"],
        }),
      );
    }
    [stack] = await Promise.all([
      startStack({ sandbox: true, api: true, dispatcher: true }),
      run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: project }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it("packs both packages with built entry points and no dependency on a private workspace package", async () => {
    expect(tarballs).toEqual(["pt-gateway-client-1.0.0.tgz", "pt-gateway-webhooks-1.0.0.tgz"]);
    const privateNames = await privateWorkspacePackages();
    expect(privateNames).toContain("@gw/receiver");
    for (const name of ["client", "webhooks"]) {
      const manifest = JSON.parse(
        await readFile(join(project, "node_modules/@pt-gateway", name, "package.json"), "utf8"),
      ) as Manifest;
      expect(manifest.private).toBeUndefined();
      const runtime = RUNTIME_FIELDS.flatMap((field) => Object.entries(manifest[field] ?? {}));
      expect(
        runtime.filter(([dependency, range]) => privateNames.has(dependency) || range.startsWith("workspace:")),
      ).toEqual([]);
      expect(manifest.exports).toMatchObject({
        ".": { import: { types: "./dist/index.d.ts", default: "./dist/index.js" } },
      });
      const dist = await readdir(join(project, "node_modules/@pt-gateway", name, "dist"));
      expect(dist.sort()).toEqual(["index.cjs", "index.d.cts", "index.d.ts", "index.js"]);
      for (const file of dist) {
        const text = await readFile(join(project, "node_modules/@pt-gateway", name, "dist", file), "utf8");
        expect(text).not.toMatch(/(from\s*|require\(|import\()["']@gw\//);
      }
    }
    const installed = await installedPackages(project);
    expect(installed).toEqual(expect.arrayContaining(["@pt-gateway/client", "@pt-gateway/webhooks", "openapi-fetch"]));
    expect(installed.filter((name) => privateNames.has(name) || name.startsWith("@gw/"))).toEqual([]);
  });

  it("sends through the running gateway with the client and verifies its signed deliveries under plain Node", async () => {
    const [ptPort, standardPort] = [await freePort(), await freePort()];
    const account = await createTestAccount(stack.db);
    const pt = await seedIntegration(stack.db, {
      accountId: account.accountId,
      url: `http://127.0.0.1:${ptPort}/webhooks`,
      events: ["message.status"],
    });
    const standard = await seedIntegration(stack.db, {
      accountId: account.accountId,
      url: `http://127.0.0.1:${standardPort}/webhooks`,
      events: ["message.status"],
      scheme: "standard-webhooks",
    });
    expect(standard.secret).toMatch(/^whsec_/);
    const { stdout } = await run(process.execPath, ["integrate.mjs"], {
      cwd: project,
      timeout: 40_000,
      env: {
        PATH: process.env.PATH,
        GATEWAY_URL: stack.api?.url ?? "",
        API_KEY: account.apiKey,
        TO: "5511987654321",
        PT_PORT: String(ptPort),
        PT_SECRET: pt.secret,
        STANDARD_PORT: String(standardPort),
        STANDARD_SECRET: standard.secret,
      },
    });
    const seen = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
      cjs: Record<string, string>;
      forgedStatus: number;
      messageId: string;
      pt: Array<{ status: string; deliveryId: string; attempt: number | null }>;
      standard: Array<{ status: string; deliveryId: string; attempt: number | null }>;
    };
    expect(seen.cjs).toEqual({ client: "function", webhooks: "function" });
    expect(seen.forgedStatus).toBe(401);
    expect(seen.messageId).toMatch(/^wamid\./);
    const stored = await stack.db.message.findUnique({ where: { wamid: seen.messageId } });
    expect(stored?.accountId).toBe(account.accountId);
    for (const scheme of ["pt", "standard"] as const) {
      expect(seen[scheme].length).toBeGreaterThan(0);
      expect(seen[scheme][0]).toEqual({
        status: expect.any(String),
        deliveryId: expect.stringMatching(/^\d+$/),
        attempt: 1,
      });
    }
  }, 60_000);

  it.each(Object.keys(TSCONFIGS))(
    "typechecks the integrator's project with moduleResolution %s",
    async (name) => {
      const tsc = join(REPO_ROOT, "node_modules/typescript/bin/tsc");
      const result = await run(process.execPath, [tsc, "-p", `tsconfig.${name}.json`], { cwd: project }).catch(
        (error: Error & { stdout?: string }) => ({ stdout: error.stdout || error.message }),
      );
      expect(result.stdout).toBe("");
    },
    30_000,
  );
});
