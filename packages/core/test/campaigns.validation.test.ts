import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { createRedis, type Redis } from "@gw/jobs";
import { createMetaClient } from "@gw/meta";
import { startSandbox, type RunningSandbox } from "@gw/provider-sandbox";
import { silentLogger, testEnv, testActor } from "@gw/testkit";
import { addBusinessNumber, createAccount, createAccountDirectory } from "../src/accounts/index.ts";
import { RecipientsFileError, createCampaign, getCampaign, startCampaign } from "../src/campaigns/index.ts";
import { readCsv, type CsvRecord } from "../src/csv/index.ts";
import { TemplateCache } from "../src/templates/index.ts";

// Validation before anything is sent: every row of a CSV (or list) is checked on its own against the template of
// the provider's catalogue (the sandbox's fixtures), and the report names each bad row with a code and a Portuguese
// sentence. A file that cannot be read at all is refused as a whole.

const TOKEN = "sandbox-token";
let sandbox: RunningSandbox;
let db: Db;
let redis: Redis;
let deps: Parameters<typeof createCampaign>[0];
let accountId: string;

beforeAll(async () => {
  const env = testEnv();
  sandbox = await startSandbox({
    appSecret: "app-secret",
    accessToken: TOKEN,
    autoStatuses: false,
    logger: silentLogger,
  });
  db = createDb({ url: env.databaseUrl, poolSize: 3 });
  redis = createRedis(env.redisUrl);
  const meta = createMetaClient({ baseUrl: sandbox.url, apiVersion: "v23.0", accessToken: TOKEN, timeoutMs: 5_000 });
  const templates = new TemplateCache({
    redis,
    keyPrefix: env.redisPrefix,
    ttlSeconds: 60,
    source: { listTemplates: (wabaId) => meta.listTemplates(wabaId) },
    logger: silentLogger,
  });
  deps = { db, directory: createAccountDirectory(db), templates };
  accountId = (await createAccount({ db }, { actor: testActor, name: `campanhas-${randomBytes(3).toString("hex")}` }))
    .id;
  await addBusinessNumber(
    { db },
    {
      actor: testActor,
      accountId,
      phoneNumberId: `9${randomBytes(6).readUIntBE(0, 6).toString().slice(0, 14)}`,
      wabaId: "102290129340398",
      displayNumber: "+55 11 4000-0000",
    },
  );
});

afterAll(async () => {
  await sandbox.close();
  await db.$disconnect();
  redis.disconnect();
});

const who = { actor: { id: "cli", origin: "api" as const, requestId: "req-campanha" } };
const create = (recipients: Parameters<typeof createCampaign>[1]["recipients"], template = "pedido_confirmado") =>
  createCampaign(deps, { ...who, accountId, name: "Teste", template, language: "pt_BR", recipients });

describe("campaign CSV validation", () => {
  it("reports each bad row with its code and keeps the good ones as recipients", async () => {
    const csv = [
      "to;variable_1;variable_2;variable_3;header_text;client_ref",
      "5511987650001;Maria;100;3;100;ok-1",
      "12345;João;101;3;101;numero-invalido",
      "5511987650003;Ana;102;;102;falta-variavel",
      "+55 (11) 98765-0001;Maria;103;3;103;duplicado",
      '"5511987650005";"Rua ""A"", 10";104;2;104;aspas-ok',
      "5511987650006;Bia;105;1;105;" + "x".repeat(65),
      "5511987650007;Caio;106;1;;sem-cabecalho",
      "5511987650008;Duda;107;1;107;ok-2;sobra",
      "",
    ].join("\r\n");
    const campaign = await create({ kind: "csv", text: csv });

    expect(campaign).toMatchObject({ status: "draft", total_rows: 8, accepted_recipients: 2, rejected_count: 6 });
    expect(campaign.progress.queued).toBe(2);
    const byRow = Object.fromEntries(campaign.rejected_rows.map((r) => [r.row, r]));
    expect(Object.keys(byRow).map(Number)).toEqual([2, 3, 4, 6, 7, 8]);
    expect(byRow[2]).toEqual({
      row: 2,
      to: "12345",
      code: "invalid_recipient",
      message: "O número 12345 não é válido para envio.",
    });
    expect(byRow[3]).toMatchObject({ code: "template_params_mismatch" });
    expect(byRow[3]?.message).toBe("O template pedido_confirmado espera 3 variáveis, mas 2 foram enviadas.");
    expect(byRow[4]).toMatchObject({ code: "duplicate_recipient", to: "+55 (11) 98765-0001" });
    expect(byRow[4]?.message).toBe(
      "O número 5511987650001 já aparece na linha 1; cada destinatário recebe a campanha uma vez.",
    );
    expect(byRow[6]).toMatchObject({ code: "invalid_parameter" });
    expect(byRow[6]?.message).toMatch(/^Coluna client_ref: O texto deve ter no máximo 64 caracteres\.$/);
    expect(byRow[7]).toMatchObject({ code: "template_params_mismatch" });
    expect(byRow[7]?.message).toMatch(/cabeçalho .* tem uma variável; informe header_text/);
    expect(byRow[8]).toMatchObject({ code: "csv_extra_fields" });
    for (const row of campaign.rejected_rows) expect(row.message).toMatch(/^[A-ZÀ-Ú].*[.!?]$/u);

    // The accepted rows are stored as sent later: digits, quotes undone, parameters kept.
    const { rows } = await db.sql.query<{
      row_number: number;
      contact: string;
      parameters: unknown;
      client_ref: string;
    }>(
      `SELECT row_number, contact, parameters, client_ref FROM campaign_recipients WHERE campaign_id = $1 ORDER BY id`,
      [campaign.id],
    );
    expect(rows).toEqual([
      {
        row_number: 1,
        contact: "5511987650001",
        parameters: { variables: ["Maria", "100", "3"], header_text: "100" },
        client_ref: "ok-1",
      },
      {
        row_number: 5,
        contact: "5511987650005",
        parameters: { variables: ['Rua "A", 10', "104", "2"], header_text: "104" },
        client_ref: "aspas-ok",
      },
    ]);
  });

  it("refuses a file it cannot read, or with unknown or missing columns, as a whole (RecipientsFileError)", async () => {
    const cases: [string, string][] = [
      ['to,variable_1\r\n5511987650001,"sem fim\r\n', "csv_invalid"],
      ["to,varaible_1\r\n5511987650001,Maria\r\n", "csv_column_unknown"],
      ["telefone,variable_1\r\n5511987650001,Maria\r\n", "csv_column_unknown"],
      ["variable_1\r\nMaria\r\n", "csv_column_missing"],
      ["to,variable_1,to\r\n1,2,3\r\n", "csv_column_duplicate"],
      ["to\r\n", "csv_empty"],
      ["", "csv_empty"],
    ];
    for (const [text, type] of cases) {
      const error = await create({ kind: "csv", text }).then(
        () => null,
        (e: unknown) => e,
      );
      expect({ text, error: error instanceof RecipientsFileError }).toEqual({ text, error: true });
      expect({ text, problem: (error as RecipientsFileError).problem }).toEqual({ text, problem: type });
      expect((error as RecipientsFileError).message).toMatch(/^[A-ZÀ-Ú].*[.!?]$/u);
    }
  });

  it("refuses a template that is not approved, or that a campaign cannot fill, before looking at any row", async () => {
    const rows = [{ to: "5511987650001", variables: ["Maria"] }];
    for (const [template, code] of [
      ["aviso_promocao", "template_paused"],
      ["campanha_antiga", "invalid_template"],
      ["nao_existe", "template_not_found"],
      ["codigo_verificacao", "template_format_unsupported"],
      ["cobranca_pix", "template_format_unsupported"],
    ] as const) {
      const error = await create({ kind: "list", rows }, template).then(
        () => null,
        (e: unknown) => e,
      );
      expect({ template, code: error instanceof ApiError ? error.code : error }).toEqual({ template, code });
    }
  });

  it("starts only with the accepted count, and never a campaign without recipients", async () => {
    const campaign = await create({
      kind: "list",
      rows: [
        { to: "5511987650011", variables: ["A", "1", "1"], header_text: "1" },
        { to: "5511987650012", variables: ["B", "2", "2"] },
      ],
    });
    expect(campaign.accepted_recipients).toBe(1);
    const control = { db, logger: silentLogger };
    const mismatch = await startCampaign(control, {
      ...who,
      accountId,
      campaignId: campaign.id,
      acceptedRecipients: 2,
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(mismatch).toMatchObject({ code: "campaign_count_mismatch", status: 409 });
    expect((await getCampaign({ db }, { accountId, campaignId: campaign.id })).status).toBe("draft");

    const empty = await create({ kind: "list", rows: [{ to: "123" }] });
    expect(empty.accepted_recipients).toBe(0);
    const refused = await startCampaign(control, {
      ...who,
      accountId,
      campaignId: empty.id,
      acceptedRecipients: 0,
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ code: "campaign_empty", status: 422 });

    const started = await startCampaign(control, { ...who, accountId, campaignId: campaign.id, acceptedRecipients: 1 });
    expect(started.status).toBe("running");
    expect(started.eta_seconds).toBe(1);
  });
});

/** Every record of `text`, read with the campaign upload's limits. */
async function parseCsv(text: string): Promise<CsvRecord[]> {
  const records: CsvRecord[] = [];
  for await (const record of readCsv(text, { maxFields: 64, maxFieldLength: 32_768 })) records.push(record);
  return records;
}

describe("readCsv (RFC 4180, as spreadsheets write it)", () => {
  it("reads quotes, doubled quotes, line breaks inside quotes, CRLF/LF, a BOM and `;` separators", async () => {
    expect(await parseCsv('\uFEFFa,b\r\n"x, y","say ""hi"""\n"multi\nline",2\n\n')).toEqual([
      { line: 1, fields: ["a", "b"] },
      { line: 2, fields: ["x, y", 'say "hi"'] },
      { line: 3, fields: ["multi\nline", "2"] },
    ]);
    expect((await parseCsv("a;b\r\n1;2,5\r\n")).map((r) => r.fields)).toEqual([
      ["a", "b"],
      ["1", "2,5"],
    ]);
  });

  it("names the line of a quote left open or a field that goes on after its closing quote", async () => {
    await expect(parseCsv('a,b\n1,"2\n3,4\n')).rejects.toThrow("As aspas abertas na linha 2 nunca são fechadas.");
    await expect(parseCsv('a,b\n1,"2"x\n')).rejects.toThrow(/^Na linha 2, um campo entre aspas continua/);
  });
});
