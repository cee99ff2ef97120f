// `pnpm gateway number marketing-messages` (issue 37): the operator turns a number's Marketing Messages API route on
// or off, for the account that owns the number, audited as cli.number.marketing_messages; `number list` shows it. Run
// in process (run-cli.ts), as a script reads it (JSON) and as a person does (--no-json).
import { randomBytes, randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { addBusinessNumber, createAccount } from "@gw/core/accounts";
import { createDb } from "@gw/db";
import { testActor, testEnv } from "@gw/testkit";
import { runCli } from "./run-cli.ts";

const env = { DATABASE_URL: testEnv().databaseUrl };
const db = createDb({ url: env.DATABASE_URL, poolSize: 2 });
afterAll(async () => {
  await db.$disconnect();
});

/** A phone_number_id no other test uses (they are unique across accounts). */
const phoneNumberId = () => `7${Date.now()}${randomInt(1000, 9999)}`;

const setting = (id: string, state: string, ...format: string[]) =>
  runCli(["number", "marketing-messages", "--phone-number-id", id, "--state", state, ...format], env);

describe("pnpm gateway number marketing-messages", () => {
  let accountId: string;
  let number: string;
  const audits = () =>
    db.auditEntry.findMany({
      where: { accountId, action: "cli.number.marketing_messages" },
      orderBy: { id: "asc" },
    });

  beforeAll(async () => {
    accountId = (await createAccount({ db }, { actor: testActor, name: `Marketing ${randomBytes(3).toString("hex")}` }))
      .id;
    number = phoneNumberId();
    await addBusinessNumber(
      { db },
      {
        actor: testActor,
        accountId,
        phoneNumberId: number,
        wabaId: "300000000000037",
        displayNumber: "+55 11 4000-0137",
      },
    );
  });

  const stored = async () =>
    (await db.businessNumber.findUniqueOrThrow({ where: { phoneNumberId: number } })).marketingMessages;

  it("turns it on and off for the number's account, printing the number; each change audited once", async () => {
    const on = await setting(number, "on", "--json");
    expect({ code: on.code, stderr: on.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(on.stdout)).toEqual({
      account_id: accountId,
      phone_number_id: number,
      waba_id: "300000000000037",
      display_number: "+55 11 4000-0137",
      is_default: true,
      messaging_rate_per_second: 80,
      marketing_messages: "on",
    });
    expect(await stored()).toBe(true);
    const listed = await runCli(["number", "list", "--account", accountId, "--json"], env);
    expect(JSON.parse(listed.stdout)).toEqual([
      { phone_number_id: number, display_number: "+55 11 4000-0137", is_default: true, marketing_messages: "on" },
    ]);

    // Asked again, nothing changes and nothing more is audited.
    expect((await setting(number, "on", "--json")).code).toBe(0);
    expect(await audits()).toHaveLength(1);

    // As a person reads it.
    const off = await setting(number, "off", "--no-json");
    expect({ code: off.code, stderr: off.stderr }).toEqual({ code: 0, stderr: "" });
    expect(off.stdout).toMatch(/^API de Mensagens de Marketing do número alterada\.\n\n/);
    expect(off.stdout).toMatch(new RegExp(`^ {2}phone_number_id +${number}$`, "m"));
    expect(off.stdout).toMatch(/^ {2}marketing_messages +off$/m);
    expect(await stored()).toBe(false);

    const entries = await audits();
    expect(entries).toEqual([
      expect.objectContaining({ target: `number:${number}`, details: { from: "off", to: "on" } }),
      expect.objectContaining({ target: `number:${number}`, details: { from: "on", to: "off" } }),
    ]);
    for (const entry of entries) expect(entry.actor).toMatch(/^cli:\S+$/);
  });

  it("refuses an unknown number and a state other than on or off (exit 2, in Portuguese), changing nothing", async () => {
    const before = await audits();
    const unknown = await setting(phoneNumberId(), "on", "--json");
    expect(unknown).toEqual({
      code: 2,
      stdout: "",
      stderr: `${JSON.stringify({ error: "Número não encontrado: confira --phone-number-id." })}\n`,
    });
    const readable = await setting(phoneNumberId(), "off", "--no-json");
    expect(readable.code).toBe(2);
    expect(readable.stderr).toBe(
      "erro: Número não encontrado: confira --phone-number-id.\nVeja: pnpm gateway number marketing-messages --help\n",
    );

    const mistakes: [string[], string][] = [
      [["--phone-number-id", number, "--state", "sim"], "Estado desconhecido: sim (use on ou off)"],
      [["--phone-number-id", number], "Opção obrigatória ausente: --state"],
      [["--state", "on"], "Opção obrigatória ausente: --phone-number-id"],
    ];
    for (const [options, message] of mistakes) {
      const run = await runCli(["number", "marketing-messages", ...options, "--json"], env);
      expect({ options, code: run.code, stderr: run.stderr }).toEqual({
        options,
        code: 2,
        stderr: `${JSON.stringify({ error: message })}\n`,
      });
    }
    expect(await stored()).toBe(false);
    expect(await audits()).toEqual(before);
  });

  it("explains itself in --help, in Portuguese", async () => {
    const help = await runCli(["number", "marketing-messages", "--help"], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      "pnpm gateway number marketing-messages --phone-number-id ID --state on|off [--json | --no-json]",
    );
    expect(help.stdout).toContain("Liga ou desliga a API de Mensagens de Marketing da Meta");
    expect(help.stdout).toContain("nunca é reenviada pela Cloud API");
  });
});
