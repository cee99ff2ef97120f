// The CLI's other tests run it in process (run-cli.ts); this one runs `pnpm gateway` as operators and scripts do,
// through pnpm's script and tsx, with stdout piped: help is text on stdout (exit 0), and a usage error is JSON on
// stderr (exit 2, a pipe's default format), so main.ts wires argv, the streams, the environment and the exit code.
import { expect, it } from "@jest/globals";
import { runPnpmGateway } from "./run-cli.ts";

const NO_DATABASE = { DATABASE_URL: "postgresql://postgres@127.0.0.1:1/nenhum" };

it("`pnpm gateway --help` prints the usage and exits 0; `pnpm gateway nada` is a usage error, exit 2", async () => {
  const [help, unknown] = await Promise.all([
    runPnpmGateway(["--help"], NO_DATABASE),
    runPnpmGateway(["nada"], NO_DATABASE),
  ]);
  expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: "" });
  expect(help.stdout).toMatch(/^Uso:$/m);
  expect(help.stdout).toContain("pnpm gateway <comando> [opções]");
  expect({ code: unknown.code, stdout: unknown.stdout }).toEqual({ code: 2, stdout: "" });
  expect(JSON.parse(unknown.stderr)).toEqual({ error: "Comando desconhecido: nada" });
}, 120_000);
