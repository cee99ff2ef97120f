// What `pnpm gateway` prints: JSON for scripts (--json, or stdout not a terminal), readable text for a person (a
// terminal, or --no-json). The terminal case runs under a real pseudo-terminal (util-linux `script`).
import { afterAll, describe, expect, it } from "@jest/globals";
import { recordAudit } from "@gw/core/audit";
import { createDb } from "@gw/db";
import { testEnv } from "@gw/testkit";
import { runCli, runCliOnTerminal } from "./run-cli.ts";

const env = { DATABASE_URL: testEnv().databaseUrl };
const db = createDb({ url: env.DATABASE_URL, poolSize: 2 });
afterAll(async () => {
  await db.$disconnect();
});

function expectReadableText(text: string): void {
  expect(text).not.toContain("\\n");
  expect(text).not.toMatch(/[{}]/);
  expect(() => JSON.parse(text) as unknown).toThrow();
}

describe("pnpm gateway output for scripts: JSON", () => {
  it("--json prints the result as JSON on stdout", async () => {
    const { code, stdout, stderr } = await runCli(["account", "create", "--name", "Formato JSON", "--json"], env);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(stdout)).toMatchObject({ id: expect.any(String), name: "Formato JSON" });
  });

  it("without a flag, a stdout that is not a terminal gets JSON (what existing scripts parse)", async () => {
    const { code, stdout } = await runCli(["account", "create", "--name", "Formato pipe"], env);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ name: "Formato pipe" });
  });
});

describe("pnpm gateway output for people: text", () => {
  it("on a terminal the result is a readable key/value block", async () => {
    const { code, stdout } = await runCliOnTerminal(["account", "create", "--name", "No terminal"], env);
    expect(code).toBe(0);
    expectReadableText(stdout);
    expect(stdout).toMatch(/^Conta criada\.\n\n {2}id +[0-9a-f-]{36}\n {2}name +No terminal\n {2}created_at +\S+\n$/);
  });

  it("on a terminal a usage error is readable too (exit 2), and --json still gives JSON", async () => {
    const [error, json] = await Promise.all([
      runCliOnTerminal(["account", "create"], env),
      runCliOnTerminal(["account", "create", "--name", "Terminal com --json", "--json"], env),
    ]);
    expect(error.code).toBe(2);
    expect(error.stdout).toBe("erro: Opção obrigatória ausente: --name\nVeja: pnpm gateway account create --help\n");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ name: "Terminal com --json" });
  });

  it("--no-json forces text into a pipe", async () => {
    const { code, stdout } = await runCli(["account", "create", "--name", "Texto forçado", "--no-json"], env);
    expect(code).toBe(0);
    expectReadableText(stdout);
    expect(stdout).toMatch(/^ {2}name +Texto forçado$/m);
  });

  it("key create shows the new key once, with the warning that it will not be shown again", async () => {
    const account = await db.account.create({ data: { name: "Chave em texto" } });
    const { code, stdout } = await runCli(["key", "create", "--account", account.id, "--no-json"], env);
    expect(code).toBe(0);
    expectReadableText(stdout);
    const keys = stdout.match(/pt_live_[A-Za-z0-9_-]{43}/g) ?? [];
    expect(keys).toHaveLength(1);
    expect(stdout).toMatch(/^ {2}key +pt_live_/m);
    expect(stdout).toMatch(/^Guarde a chave agora: ela não será mostrada de novo\.$/m);
  });

  it("integration set shows the signing secret when it creates the integration; an update shows none and says how to get a new one", async () => {
    const account = await db.account.create({ data: { name: "Segredo só na criação" } });
    const args = (events: string) => [
      ...["integration", "set", "--account", account.id, "--url", "https://exemplo.com.br/uma-vez"],
      ...["--events", events],
    ];
    const created = await runCli([...args("message.status"), "--no-json"], env);
    expect(created.code).toBe(0);
    const secret = /^ {2}signing_secret +(whsec_\S+)$/m.exec(created.stdout)?.[1];
    const id = /^ {2}id +(\S+)$/m.exec(created.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(created.stdout).toMatch(/^Entregue o signing_secret ao integrador por um canal seguro\.$/m);

    const updated = await runCli([...args("message.status,message.received"), "--no-json"], env);
    expect(updated.code).toBe(0);
    expectReadableText(updated.stdout);
    expect(updated.stdout).not.toContain(secret);
    expect(updated.stdout).not.toMatch(/^ {2}signing_secret/m);
    expect(updated.stdout).toMatch(/^ {2}events +message\.status, message\.received$/m);
    const hint =
      /^Integração atualizada: .*Para um novo: pnpm gateway (integration rotate-secret --integration \S+)$/m.exec(
        updated.stdout,
      );
    expect(hint?.[1]).toBe(`integration rotate-secret --integration ${id}`);

    const json = await runCli([...args("message.received"), "--json"], env);
    expect(JSON.parse(json.stdout)).toEqual(expect.not.objectContaining({ signing_secret: expect.anything() }));
    expect(JSON.parse(json.stdout)).toMatchObject({ id, events: ["message.received"] });
    // The hint works as printed: a new secret, shown.
    const rotated = await runCli([...(hint?.[1] ?? "").split(" "), "--json"], env);
    expect(rotated.code).toBe(0);
    expect((JSON.parse(rotated.stdout) as { signing_secret: string }).signing_secret).toMatch(/^whsec_/);
    expect((JSON.parse(rotated.stdout) as { signing_secret: string }).signing_secret).not.toBe(secret);
  });

  it("lists are tables; nested values are key=value, lists comma-separated, no JSON", async () => {
    const account = await db.account.create({ data: { name: "Auditoria em texto" } });
    await recordAudit(db, {
      accountId: account.id,
      actor: { id: "cli", origin: "cli" },
      action: "webhook.retry",
      target: "delivery:7",
      details: { previous_status: "failed", next_attempt: 3 },
    });
    const [list, empty] = await Promise.all([
      runCli(["audit", "list", "--account", account.id, "--no-json"], env),
      runCli(
        ["audit", "list", "--account", (await db.account.create({ data: { name: "Sem auditoria" } })).id, "--no-json"],
        env,
      ),
    ]);
    expect(list.code).toBe(0);
    expectReadableText(list.stdout);
    const lines = list.stdout.split("\n");
    expect(lines[2]).toMatch(/^ {2}id +actor +action +target +request_id +details +created_at$/);
    // jsonb keeps its own key order (shorter keys first).
    expect(lines[3]).toMatch(
      /^ {2}\d+ +cli +webhook\.retry +delivery:7 +- +next_attempt=3, previous_status=failed +\S+$/,
    );
    expect(list.stdout).toMatch(/^1 registro\.$/m);
    expect(empty).toMatchObject({ code: 0, stdout: "Nenhum registro de auditoria para esta conta.\n" });
  });

  it("control characters in stored values are shown, not sent to the terminal", async () => {
    const { code, stdout } = await runCli(["account", "create", "--name", "A\u001b[2JB", "--no-json"], env);
    expect(code).toBe(0);
    expect(stdout).not.toContain("\u001b");
    expect(stdout).toMatch(/^ {2}name +A\\x1b\[2JB$/m);
  });
});
