// The operator CLI as the tests run it: in this process (runCli of src/run.ts, what main.ts runs, with the output
// captured), as its bundle in a process of its own, or on a pseudo-terminal. One smoke test runs `pnpm gateway`
// itself (cli.process.smoke.test.ts).
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleOf, ensureBundle } from "@gw/test-stack";
import { REPO_ROOT, testSecretsKeys } from "@gw/testkit";
import { runCli as run } from "../src/run.ts";

export interface CliRun {
  /** Exit code. */
  code: number;
  stdout: string;
  stderr: string;
}

/** A directory without a `.data/`, so that no test picks up the key ring of a developer's `npm start`. */
let emptyDirectory: string | undefined;

/**
 * `pnpm gateway <args>` in this process, with stdout and stderr captured as a pipe gets them (stdout is not a
 * terminal, as for a script). `env` is the whole environment the CLI reads over the test's (SECRETS_KEYS included);
 * `cwd` the directory it runs in (an empty one unless given: see dev-key-ring.ts).
 */
export async function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  options: { cwd?: string } = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await run(args, {
    stdout: { write: (text: string) => (stdout += text), isTTY: false },
    stderr: { write: (text: string) => (stderr += text) },
    env: { ...process.env, SECRETS_KEYS: testSecretsKeys(), ...env },
    cwd: options.cwd ?? (emptyDirectory ??= mkdtempSync(join(tmpdir(), "gw-cli-"))),
  });
  return { code, stdout, stderr };
}

function spawnCli(file: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd = REPO_ROOT): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      [...args],
      { cwd, env: { ...process.env, SECRETS_KEYS: testSecretsKeys(), ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout, stderr });
        if (typeof error.code === "number") return resolve({ code: error.code, stdout, stderr });
        reject(new Error(`${file} não rodou (${String(error.code ?? error.signal)}): ${stderr}`));
      },
    );
    child.stdin?.end();
  });
}

/** `pnpm gateway <args>` as a process, run as operators and scripts run it (stdout piped). */
export function runPnpmGateway(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return spawnCli("pnpm", ["gateway", ...args], env);
}

/** The CLI's bundle (`node dist/cli/main.mjs <args>`, what `pnpm gateway` runs) as a process in `cwd`, stdout piped. */
export function runCliProcess(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  return spawnCli(process.execPath, [join(REPO_ROOT, ensureBundle("cli")), ...args], env, cwd);
}

const shellQuote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * The CLI's bundle (`node dist/cli/main.mjs <args>`, what `pnpm gateway` runs, without pnpm's and tsx's start-up)
 * on a pseudo-terminal (util-linux `script`): what an operator at a terminal sees. stdout and stderr arrive merged
 * in `stdout`, with the terminal's CRLF turned back into LF.
 */
export async function runCliOnTerminal(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  ensureBundle("cli");
  const command = [process.execPath, bundleOf("cli"), ...args].map(shellQuote).join(" ");
  const result = await spawnCli("script", ["--quiet", "--return", "--command", command, "/dev/null"], env);
  return { ...result, stdout: result.stdout.replace(/\r\n/g, "\n") };
}

/** `integration set` for an account, a URL and one event type, followed by `extra` options. */
export function integrationSetArgs(accountId: string, url: string, event: string, ...extra: string[]): string[] {
  return ["integration", "set", "--account", accountId, "--url", url, "--events", event, ...extra];
}
