// Run `pnpm gateway ...` as a child process, the way operators and scripts run it.
import { execFile } from "node:child_process";
import { testSecretsKeys } from "@gw/testkit";

export interface CliRun {
  /** Exit code. */
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      [...args],
      { env: { ...process.env, SECRETS_KEYS: testSecretsKeys(), ...env }, timeout: 25_000 },
      (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout, stderr });
        if (typeof error.code === "number") return resolve({ code: error.code, stdout, stderr });
        reject(new Error(`${file} não rodou (${String(error.code ?? error.signal)}): ${stderr}`));
      },
    );
    child.stdin?.end();
  });
}

/** `pnpm gateway <args>` with stdout and stderr piped: what a script sees (stdout is not a terminal). */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return run("pnpm", ["gateway", ...args], env);
}

const shellQuote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * `pnpm gateway <args>` on a pseudo-terminal (util-linux `script`): what an operator at a terminal sees. stdout and
 * stderr arrive merged in `stdout`, with the terminal's CRLF turned back into LF.
 */
export async function runCliOnTerminal(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const command = ["pnpm", "gateway", ...args].map(shellQuote).join(" ");
  const result = await run("script", ["--quiet", "--return", "--command", command, "/dev/null"], env);
  return { ...result, stdout: result.stdout.replace(/\r\n/g, "\n") };
}
