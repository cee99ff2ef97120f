// The CLI's other tests run it in process (run-cli.ts); this one runs `pnpm gateway` as operators and scripts do,
// through pnpm's script and tsx, with stdout piped: help is text on stdout (exit 0), and a usage error is JSON on
// stderr (exit 2, a pipe's default format), so main.ts wires argv, the streams, the environment and the exit code.
// Also the first lines a newcomer reads from `npm start`: npm and pnpm themselves print no warning.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "@jest/globals";
import { REPO_ROOT } from "@gw/testkit";
import { parse } from "yaml";
import { runPnpmGateway } from "./run-cli.ts";

const exec = promisify(execFile);
const NO_DATABASE = { DATABASE_URL: "postgresql://postgres@127.0.0.1:1/nenhum" };

it("`pnpm gateway --help` prints the usage and exits 0; `pnpm gateway nada` is a usage error, exit 2", async () => {
  const [help, unknown] = await Promise.all([
    runPnpmGateway(["--help"], NO_DATABASE),
    runPnpmGateway(["nada"], NO_DATABASE),
  ]);
  expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: "" });
  // The help's own first line: no "> messaging-gateway@1.0.0 gateway" banner of pnpm's (reporter: silent).
  expect(help.stdout).toMatch(/^pnpm gateway: CLI /);
  expect(help.stdout).toMatch(/^Uso:$/m);
  expect(help.stdout).toContain("pnpm gateway <comando> [opções]");
  expect({ code: unknown.code, stdout: unknown.stdout }).toEqual({ code: 2, stdout: "" });
  expect(JSON.parse(unknown.stderr)).toEqual({ error: "Comando desconhecido: nada" });
}, 120_000);

/** The environment of a newcomer's shell: none of the npm_config_* variables pnpm sets for the scripts it runs. */
function shellEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

/** The workspace's manifests, lockfile and package-manager settings, copied: pnpm install rewrites its lockfile. */
function copyWorkspaceManifests(): string {
  const copy = mkdtempSync(join(tmpdir(), "gw-workspace-"));
  const workspace = parse(readFileSync(join(REPO_ROOT, "pnpm-workspace.yaml"), "utf8")) as { packages: string[] };
  const projects = workspace.packages.flatMap((pattern) => {
    // Every pattern is "<folder>/*".
    const folder = pattern.replace(/\/\*$/, "");
    return readdirSync(join(REPO_ROOT, folder)).map((name) => `${folder}/${name}`);
  });
  const files = ["package.json", "pnpm-workspace.yaml", "pnpm-lock.yaml", ".npmrc"];
  for (const project of projects) files.push(`${project}/package.json`);
  for (const file of files) {
    if (!existsSync(join(REPO_ROOT, file))) continue;
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    copyFileSync(join(REPO_ROOT, file), join(copy, file));
  }
  return copy;
}

it("`npm run` and a fresh clone's `pnpm install` print no warning: no pnpm setting in .npmrc, no workspace cycle", async () => {
  const copy = copyWorkspaceManifests();
  try {
    const [npm, pnpm] = await Promise.all([
      exec("npm", ["run"], { cwd: REPO_ROOT, env: shellEnv() }),
      // scripts/lib.sh's install, without the network and without touching node_modules.
      exec("pnpm", ["install", "--frozen-lockfile", "--offline", "--lockfile-only", "--reporter", "default"], {
        cwd: copy,
        env: { ...shellEnv(), CI: "true" },
      }),
    ]);
    // npm: `Unknown project config "reporter"` (a pnpm key in .npmrc).
    expect(npm.stderr).not.toMatch(/npm warn/i);
    // pnpm: "There are cyclic workspace dependencies: …".
    expect(`${pnpm.stdout}${pnpm.stderr}`).not.toMatch(/WARN|cyclic/);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}, 60_000);
