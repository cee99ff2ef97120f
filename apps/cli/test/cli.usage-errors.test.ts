// `pnpm gateway --help` is readable text (exit 0); operator mistakes are readable errors with a hint to --help
// (exit 2); failures while running exit 1. Run in process (run-cli.ts: what main.ts runs), stdout captured as a
// pipe gets it (a script's view); cli.process.smoke.test.ts runs `pnpm gateway` itself.
import { describe, expect, it } from "@jest/globals";
import { WEBHOOK_EVENTS } from "@gw/core/accounts";
import { runCli } from "./run-cli.ts";

const COMMANDS = [
  "account list",
  "account create",
  "account unblock",
  "number list",
  "number add",
  "number marketing-messages",
  "key list",
  "key create",
  "key revoke",
  "integration list",
  "integration set",
  "integration rotate-secret",
  "audit list",
  "delivery retry",
];
const ACCOUNT = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
// Help and usage errors are answered before any connection: a database nobody listens on proves it.
const NO_DATABASE = { DATABASE_URL: "postgresql://postgres@127.0.0.1:1/nenhum" };

function expectReadableText(text: string): void {
  expect(text).not.toContain("\\n");
  expect(text).not.toContain('\\"');
  expect(() => JSON.parse(text) as unknown).toThrow();
}

describe("pnpm gateway: help", () => {
  it.each(["--help", "-h", "help"])("`pnpm gateway %s` prints readable usage on stdout and exits 0", async (flag) => {
    const { code, stdout, stderr } = await runCli([flag], NO_DATABASE);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expectReadableText(stdout);
    expect(stdout).toMatch(/^Uso:$/m);
    for (const command of COMMANDS) expect(stdout).toMatch(new RegExp(`^  ${command} +\\S`, "m"));
    expect(stdout).toMatch(/^Exemplos:$/m);
    // The output contract and the exit codes are in the help itself.
    expect(stdout).toContain("--json");
    expect(stdout).toContain("--no-json");
    expect(stdout).toMatch(/^ {2}2 +erro de uso/m);
  });

  it("help stays text with --json: it is for people, never a JSON string", async () => {
    const { code, stdout } = await runCli(["--json", "--help"], NO_DATABASE);
    expect(code).toBe(0);
    expectReadableText(stdout);
    expect(stdout).toMatch(/^Comandos:$/m);
  });

  it("`<command> --help` and `help <command>` print that command's usage, options and example", async () => {
    const [flag, word] = await Promise.all([
      runCli(["key", "create", "--help"], NO_DATABASE),
      runCli(["help", "key", "create"], NO_DATABASE),
    ]);
    expect(flag.code).toBe(0);
    expectReadableText(flag.stdout);
    expect(flag.stdout).toContain("pnpm gateway key create --account ID");
    expect(flag.stdout).toMatch(/^ {2}--account ID +\(obrigatória\)/m);
    expect(flag.stdout).toMatch(/^Exemplo:\n {2}pnpm gateway key create --account [0-9a-f-]{36}$/m);
    expect(word).toEqual(flag);
  });

  it("`integration set --help` names every webhook event the gateway knows", async () => {
    const { code, stdout } = await runCli(["integration", "set", "--help"], NO_DATABASE);
    expect(code).toBe(0);
    for (const event of WEBHOOK_EVENTS) expect(stdout).toContain(event);
  });

  it("a group's --help lists its commands", async () => {
    const { code, stdout } = await runCli(["integration", "--help"], NO_DATABASE);
    expect(code).toBe(0);
    expect(stdout).toContain("pnpm gateway integration set --account ID --url URL --events EVENTOS [--inactive]");
    expect(stdout).toContain("pnpm gateway integration rotate-secret --integration ID");
    expect(stdout).not.toContain("key create");
  });
});

describe("pnpm gateway: usage errors exit 2", () => {
  it("an unknown command: a readable message naming it and a hint to --help on stderr, nothing on stdout", async () => {
    const { code, stdout, stderr } = await runCli(["nada", "--no-json"], NO_DATABASE);
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    expect(stderr).toBe("erro: Comando desconhecido: nada\nVeja: pnpm gateway --help\n");
  });

  it("with --json the same error is one JSON object on stderr", async () => {
    const { code, stdout, stderr } = await runCli(["nada", "--json"], NO_DATABASE);
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    expect(JSON.parse(stderr)).toEqual({ error: "Comando desconhecido: nada" });
  });

  it("an unknown subcommand names the group's commands and points at the group's help", async () => {
    const { code, stderr } = await runCli(["key", "apagar", "--no-json"], NO_DATABASE);
    expect(code).toBe(2);
    expect(stderr).toContain("Comando desconhecido: key apagar (os de key são: list, create, revoke)");
    expect(stderr).toContain("Veja: pnpm gateway key --help");
  });

  it("no command at all lists the commands", async () => {
    const { code, stderr } = await runCli(["--no-json"], NO_DATABASE);
    expect(code).toBe(2);
    for (const command of COMMANDS) expect(stderr).toContain(command);
  });

  it("an unknown option is named, with the command's --help as the hint", async () => {
    const { code, stderr } = await runCli(["account", "create", "--nome", "Padaria", "--no-json"], NO_DATABASE);
    expect(code).toBe(2);
    expect(stderr).toBe("erro: Opção desconhecida: --nome\nVeja: pnpm gateway account create --help\n");
  });

  it("an option of another command is refused, not ignored", async () => {
    const { code, stderr } = await runCli(["account", "create", "--name", "P", "--url", "https://a.b"], NO_DATABASE);
    expect(code).toBe(2);
    expect(JSON.parse(stderr)).toEqual({ error: "A opção --url não se aplica a account create." });
  });

  it("missing required options are all named at once", async () => {
    const { code, stderr } = await runCli(["number", "add", "--account", ACCOUNT, "--no-json"], NO_DATABASE);
    expect(code).toBe(2);
    expect(stderr).toContain("Opções obrigatórias ausentes: --phone-number-id, --waba-id, --display");
    expect(stderr).toContain("Veja: pnpm gateway number add --help");
  });

  it("an option without its value, and an id that is not a UUID, are usage errors", async () => {
    const [noValue, badId] = await Promise.all([
      runCli(["account", "create", "--name"], NO_DATABASE),
      runCli(["key", "revoke", "--id", "12"], NO_DATABASE),
    ]);
    expect(noValue.code).toBe(2);
    expect((JSON.parse(noValue.stderr) as { error: string }).error).toMatch(/^A opção --name precisa de um valor/);
    expect(badId.code).toBe(2);
    expect((JSON.parse(badId.stderr) as { error: string }).error).toMatch(/^--id deve ser um UUID/);
  });

  it("an invalid environment variable is named (exit 2), without echoing its value", async () => {
    const { code, stderr } = await runCli(["account", "create", "--name", "P", "--no-json"], {
      DATABASE_URL: "mysql://root:senha-do-mysql@db/gateway",
    });
    expect(code).toBe(2);
    expect(stderr).toContain("DATABASE_URL: deve ser uma URL postgresql://");
    expect(stderr).not.toContain("senha-do-mysql");
  });

  it("API keys and signing secrets typed by mistake are not echoed in errors", async () => {
    const key = `pt_live_${"A".repeat(43)}`;
    const secret = `whsec_${"b".repeat(43)}`;
    const [text, json] = await Promise.all([
      runCli(["account", "create", "--name", "P", key, "--no-json"], NO_DATABASE),
      runCli(["account", "create", "--name", "P", secret, "--json"], NO_DATABASE),
    ]);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain("Argumento inesperado: pt_live_***");
    expect(text.stderr).not.toContain("A".repeat(43));
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({ error: "Argumento inesperado: whsec_***" });
  });
});

describe("pnpm gateway: failures while running exit 1", () => {
  it("an unreachable database: a readable error without the password and without a --help hint", async () => {
    const env = { DATABASE_URL: "postgresql://postgres:senha-do-banco@127.0.0.1:1/gateway" };
    const [text, json] = await Promise.all([
      runCli(["account", "create", "--name", "P", "--no-json"], env),
      runCli(["account", "create", "--name", "P", "--json"], env),
    ]);
    expect({ code: text.code, stdout: text.stdout }).toEqual({ code: 1, stdout: "" });
    expect(text.stderr).toMatch(/^erro: Não foi possível usar o banco de dados \(DATABASE_URL\): .+\n$/);
    expect(text.stderr).not.toContain("senha-do-banco");
    expect(text.stderr).not.toContain("--help");
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stderr) as { error: string }).error).toMatch(/^Não foi possível usar o banco de dados/);
  });
});
