import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { isolatedDatabase } from "@gw/testkit";
import { runCommand, UsageError } from "../src/commands.ts";
import { runCli } from "./run-cli.ts";

// `pnpm gateway pricing ...`: the rate card listed, a rate set from a date (audited as the operator) and removed,
// operator mistakes as usage errors (exit 2) with a Portuguese reason. A database of its own: the card is global.

let database: Awaited<ReturnType<typeof isolatedDatabase>>;

beforeAll(async () => {
  database = await isolatedDatabase();
});
afterAll(async () => {
  await database.drop();
});

const operator = { id: "cli:ana", origin: "cli" as const };
const run = (...argv: string[]) => runCommand(argv, { db: database.db, actor: operator });

describe("pnpm gateway pricing", () => {
  it("lists the default card, sets a rate from a date, removes it; each change audited as the operator", async () => {
    const listed = (await run("pricing", "rates")) as Record<string, unknown>[];
    expect(listed.find((rate) => rate.category === "marketing")).toEqual({
      scope: "deployment",
      account_id: null,
      category: "marketing",
      effective_from: "2025-07-01",
      rate_brl: "0.3350",
    });
    expect(
      await run("pricing", "set-rate", "--category", "marketing", "--rate", "0.3125", "--from", "2027-01-01"),
    ).toEqual({
      scope: "deployment",
      account_id: null,
      category: "marketing",
      effective_from: "2027-01-01",
      rate_brl: "0.3125",
      previous_rate_brl: null,
    });
    expect(await run("pricing", "remove-rate", "--category", "marketing", "--from", "2027-01-01")).toMatchObject({
      rate_brl: "0.3125",
    });
    const audit = await database.db.auditEntry.findMany({ where: { actor: "cli:ana" }, orderBy: { id: "asc" } });
    expect(audit.map((entry) => entry.action)).toEqual(["cli.pricing_rate.set", "cli.pricing_rate.removed"]);
  });

  it("refuses what the operator got wrong as a usage error with the reason, changing nothing", async () => {
    const mistakes: [string[], RegExp][] = [
      [["--category", "marketing", "--rate", "0,30", "--from", "2027-01-01"], /^Tarifa inválida: 0,30/],
      [["--category", "marketing", "--rate", "0.3", "--from", "01/01/2027"], /^Data inválida/],
      [["--category", "Marketing", "--rate", "0.3", "--from", "2027-01-01"], /^Categoria inválida/],
      [["--category", "marketing", "--rate", "0.3"], /^Opção obrigatória ausente: --from/],
      [
        [
          "--category",
          "marketing",
          "--rate",
          "0.3",
          "--from",
          "2027-01-01",
          "--account",
          "7c9e6679-7425-40de-944b-e07fc1f90ae7",
        ],
        /^Conta não encontrada/,
      ],
    ];
    for (const [options, reason] of mistakes) {
      const error = await run("pricing", "set-rate", ...options).catch((e: unknown) => e);
      expect({ options, usage: error instanceof UsageError, reason: reason.test((error as Error).message) }).toEqual({
        options,
        usage: true,
        reason: true,
      });
    }
    const missing = await run("pricing", "remove-rate", "--category", "marketing", "--from", "2031-01-01").catch(
      (e: unknown) => e,
    );
    expect(missing).toEqual(new UsageError("Tarifa não encontrada: confira --category, --from e --account."));
    expect(await database.db.pricingRate.count()).toBe(6);
  });

  it("prints the card as a table on a terminal's text output", async () => {
    const { code, stdout, stderr } = await runCli(["pricing", "rates", "--no-json"], { DATABASE_URL: database.url });
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toMatch(/^Tabela de preços \(por categoria e data de início\):/);
    expect(stdout).toMatch(/deployment\s+-\s+marketing\s+2025-07-01\s+0\.3350/);
  });
});
