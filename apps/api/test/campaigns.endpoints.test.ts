import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { gzipSync } from "node:zlib";
import request from "supertest";
import { createNumberThroughput, setNumberMessagingRate } from "@gw/core/throughput";
import { createCampaignQueue } from "@gw/jobs";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { at, servedDocument, type ServedDocument } from "./support/openapi-schema.ts";
import { sandboxControl } from "./support/sandbox-control.ts";
import { testActor } from "@gw/testkit";

// /public/v1/campaigns over HTTP (supertest against the real app, templates from the provider sandbox): creation
// from a JSON list and from a CSV upload with its validation report, the controls and their refusals, the recipient
// list and its CSV export; every answer checked against the schema the OpenAPI document gives for its status. And
// the per-number pacing of the public send: over the number's rate, 429 rate_limited with Retry-After before the
// provider is called.

let gateway: TestGateway;
let account: TestAccount;
let document: ServedDocument;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
  account = await createTestAccount(gateway.db);
  document = await servedDocument(gateway);
});

afterAll(async () => {
  const queue = createCampaignQueue(gateway.redis, gateway.redisPrefix);
  await queue.obliterate({ force: true });
  await queue.close();
  await gateway.close();
});

/** The answer, checked against the document's schema for its operation and status. */
async function documented(method: "get" | "post", docPath: string, req: request.Test, status: number) {
  const res = await req;
  expect({ route: `${method} ${docPath}`, status: res.status, body: res.status === status ? null : res.body }).toEqual({
    route: `${method} ${docPath}`,
    status,
    body: null,
  });
  const schema = at(document.json, "paths", `/public/v1${docPath}`, method, "responses", String(status), "content");
  const json = schema["application/json"];
  if (json) {
    const validate = document.compile(at(json, "schema"));
    expect({ docPath, status, errors: validate(res.body) ? null : validate.errors }).toEqual({
      docPath,
      status,
      errors: null,
    });
  }
  return res;
}

const api = () => request(gateway.app);
const ROWS = [
  { to: "5511987651001", variables: ["Maria", "1", "2"], header_text: "1", client_ref: "c-1" },
  { to: "+55 11 98765-1002", variables: ["João", "2", "2"], header_text: "2", client_ref: "c-2" },
  { to: "11987651001", variables: ["Maria", "3", "2"], header_text: "3" },
  { to: "5511987651004", variables: ["Ana"], header_text: "4" },
];

describe("POST /public/v1/campaigns", () => {
  it("creates a draft from a JSON list, with a validation report of every bad row", async () => {
    const res = await documented(
      "post",
      "/campaigns",
      api()
        .post("/public/v1/campaigns")
        .set(account.auth)
        .send({ name: "Lista", template: "pedido_confirmado", language: "pt_BR", recipients: ROWS }),
      201,
    );
    expect(res.body.data).toMatchObject({
      status: "draft",
      phone_number_id: account.phoneNumberId,
      template: "pedido_confirmado",
      template_category: "UTILITY",
      total_rows: 4,
      accepted_recipients: 2,
      rejected_count: 2,
      progress: { queued: 2, sent: 0 },
      // Two utility templates at the default rate card's R$ 0,0364; nothing sent, nothing spent yet.
      estimated_cost: { currency: "BRL", amount_brl: "0.0728", rate_brl: "0.0364", category: "utility", recipients: 2 },
      running_cost: {
        currency: "BRL",
        amount_brl: "0.0000",
        priced_messages: 0,
        charged_messages: 0,
        failed_messages: 0,
      },
    });
    expect(res.body.data.rejected_rows).toEqual([
      {
        row: 3,
        to: "11987651001",
        code: "duplicate_recipient",
        message: "O número 5511987651001 já aparece na linha 1; cada destinatário recebe a campanha uma vez.",
      },
      {
        row: 4,
        to: "5511987651004",
        code: "template_params_mismatch",
        message: "O template pedido_confirmado espera 3 variáveis, mas 1 foi enviada.",
      },
    ]);
  });

  it("creates a draft from a CSV upload (text/csv, the campaign's fields in the query string)", async () => {
    const csv = "to;variable_1;variable_2;variable_3;header_text\r\n5511987652001;Bia;9;1;9\r\nabc;x;y;z;w\r\n";
    const res = await documented(
      "post",
      "/campaigns",
      api()
        .post("/public/v1/campaigns?name=CSV&template=pedido_confirmado&language=pt_BR")
        .set(account.auth)
        .set("Content-Type", "text/csv")
        .send(csv),
      201,
    );
    expect(res.body.data).toMatchObject({ name: "CSV", accepted_recipients: 1, rejected_count: 1 });
    expect(res.body.data.rejected_rows[0]).toMatchObject({ row: 2, to: "abc", code: "invalid_recipient" });
  });

  it("refuses a CSV it cannot read, a list without recipients and an unknown template before creating anything", async () => {
    const unreadable = await documented(
      "post",
      "/campaigns",
      api()
        .post("/public/v1/campaigns?name=X&template=pedido_confirmado")
        .set(account.auth)
        .set("Content-Type", "text/csv")
        .send("telefone\r\n5511987652001\r\n"),
      422,
    );
    expect(unreadable.body.detail[0]).toMatchObject({ loc: ["body"], type: "csv_column_unknown" });
    const empty = await documented(
      "post",
      "/campaigns",
      api()
        .post("/public/v1/campaigns")
        .set(account.auth)
        .send({ name: "X", template: "pedido_confirmado", recipients: [] }),
      422,
    );
    expect(empty.body.detail[0]).toMatchObject({ loc: ["body", "recipients"], type: "too_short" });
    const unknown = await documented(
      "post",
      "/campaigns",
      api()
        .post("/public/v1/campaigns")
        .set(account.auth)
        .send({ name: "X", template: "nao_existe", recipients: ROWS }),
      422,
    );
    expect(unknown.body).toEqual({
      success: false,
      error: {
        code: "template_not_found",
        message: "O template nao_existe não existe no idioma pt_BR para esta conta.",
      },
    });
  });
});

describe("POST /public/v1/campaigns with a CSV read as it arrives", () => {
  const CSV_QUERY = "/public/v1/campaigns?name=CSV&template=pedido_confirmado&language=pt_BR";
  const HEADER = "to;variable_1;variable_2;variable_3;header_text;client_ref\r\n";
  const csvPost = (mine: TestAccount, contentType = "text/csv") =>
    api().post(CSV_QUERY).set(mine.auth).set("Content-Type", contentType);
  const campaignsOf = async (mine: TestAccount) =>
    (
      await gateway.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM campaigns WHERE account_id = $1", [
        mine.accountId,
      ])
    ).rows[0]?.n;

  it("reads a gzip body and the charset Content-Type names (Windows-1252 from Excel in Portuguese)", async () => {
    const mine = await createTestAccount(gateway.db);
    const zipped = await documented(
      "post",
      "/campaigns",
      csvPost(mine)
        .set("Content-Encoding", "gzip")
        .send(gzipSync(Buffer.from(HEADER + "5511987653001;Bia;9;1;9;gz-1\r\n"))),
      201,
    );
    expect(zipped.body.data).toMatchObject({ accepted_recipients: 1, rejected_count: 0 });
    const latin = await documented(
      "post",
      "/campaigns",
      csvPost(mine, "text/csv; charset=windows-1252").send(
        Buffer.from(HEADER + "5511987653002;João;9;1;9;latin-1\r\n", "latin1"),
      ),
      201,
    );
    const { rows } = await gateway.db.sql.query<{ parameters: { variables: string[] } }>(
      "SELECT parameters FROM campaign_recipients WHERE campaign_id = $1",
      [latin.body.data.id],
    );
    expect(rows[0]?.parameters.variables).toEqual(["João", "9", "1"]);
  });

  it("refuses a file past the limits with the contract's answers, creating nothing", async () => {
    const mine = await createTestAccount(gateway.db);
    // Declared above 20 MiB: refused before a byte is read.
    const large = await documented(
      "post",
      "/campaigns",
      csvPost(mine).send(Buffer.alloc(20 * 1024 * 1024 + 1, "1")),
      413,
    );
    expect(large.body).toEqual({
      success: false,
      error: { code: "payload_too_large", message: "O corpo da requisição passa de 20 MiB." },
    });
    // Above 20 MiB once inflated (800 rows of 30 kB): refused as it is read.
    const bomb = await documented(
      "post",
      "/campaigns",
      csvPost(mine)
        .set("Content-Encoding", "gzip")
        .send(gzipSync(Buffer.from("to,variable_1\n" + `1,${"x".repeat(30_000)}\n`.repeat(800)))),
      413,
    );
    expect(bomb.body.error.code).toBe("payload_too_large");
    const tooMany = await documented("post", "/campaigns", csvPost(mine).send("to\n" + "1\n".repeat(100_001)), 422);
    expect(tooMany.body.detail).toEqual([
      {
        loc: ["body"],
        msg: "O CSV tem mais de 100000 linhas de destinatários; o máximo por campanha é 100000.",
        type: "too_long",
      },
    ]);
    const commas = await documented("post", "/campaigns", csvPost(mine).send("to\n" + ",".repeat(1_000_000)), 422);
    expect(commas.body.detail[0]).toMatchObject({
      type: "csv_invalid",
      msg: expect.stringMatching(/mais de 64 campos/),
    });
    const unknownEncoding = await documented(
      "post",
      "/campaigns",
      csvPost(mine).set("Content-Encoding", "x-unknown").send(HEADER),
      422,
    );
    expect(unknownEncoding.body.detail[0]).toMatchObject({ msg: "Codificação do corpo não suportada." });
    const broken = await documented(
      "post",
      "/campaigns",
      csvPost(mine)
        .set("Content-Encoding", "gzip")
        .send(gzipSync(Buffer.from(HEADER)).subarray(0, 12)),
      400,
    );
    expect(broken.body.error.code).toBe("bad_request");
    expect(await campaignsOf(mine)).toBe(0);
    // The same connection goes on serving after a refusal that left the rest of its body unread.
    await documented("post", "/campaigns", csvPost(mine).send(HEADER + "5511987653003;Bia;9;1;9;depois\r\n"), 201);
  }, 60_000);
});

describe("campaign controls over HTTP", () => {
  it("start (only with the accepted count), pause, resume, cancel; a control the status does not allow is 409", async () => {
    const created = await api()
      .post("/public/v1/campaigns")
      .set(account.auth)
      .send({ name: "Controles", template: "pedido_confirmado", recipients: ROWS });
    const id = created.body.data.id as string;
    const control = (verb: string, body?: object) => {
      const req = api().post(`/public/v1/campaigns/${id}/${verb}`).set(account.auth);
      return body ? req.send(body) : req;
    };

    const mismatch = await documented(
      "post",
      "/campaigns/{campaign_id}/start",
      control("start", { accepted_recipients: 4 }),
      409,
    );
    expect(mismatch.body.error.code).toBe("campaign_count_mismatch");
    const started = await documented(
      "post",
      "/campaigns/{campaign_id}/start",
      control("start", { accepted_recipients: 2 }),
      200,
    );
    expect(started.body.data).toMatchObject({ status: "running", eta_seconds: 1 });
    // 80/s, the number's default; 90 % of it where the API paces its sends (the headroom).
    expect(started.body.data.rate_per_second).toBeGreaterThanOrEqual(72);
    expect(started.body.data.rate_per_second).toBeLessThanOrEqual(80);
    expect(started.body.data.estimated_completion_at).not.toBeNull();
    expect((await documented("post", "/campaigns/{campaign_id}/pause", control("pause"), 200)).body.data.status).toBe(
      "paused",
    );
    expect((await documented("post", "/campaigns/{campaign_id}/resume", control("resume"), 200)).body.data.status).toBe(
      "running",
    );
    const cancelled = await documented("post", "/campaigns/{campaign_id}/cancel", control("cancel"), 200);
    expect(cancelled.body.data).toMatchObject({ status: "cancelled", progress: { cancelled: 2, queued: 0 } });
    const refused = await documented("post", "/campaigns/{campaign_id}/pause", control("pause"), 409);
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: "campaign_state_conflict",
        message: "A campanha está cancelada e não pode ser pausada (só quando em andamento ou agendada).",
      },
    });

    // The controls are in the account's audit, with the key that gave them.
    const audit = await gateway.db.auditEntry.findMany({ where: { target: `campaign:${id}` }, orderBy: { id: "asc" } });
    expect(audit.map((a) => a.action)).toEqual([
      "api.campaign.created",
      "api.campaign.started",
      "api.campaign.paused",
      "api.campaign.resumed",
      "api.campaign.cancelled",
    ]);
    expect(new Set(audit.map((a) => a.actor))).toEqual(new Set([`api_key:${account.keyId}`]));
  });

  it("Meta's offboarding pauses a scheduled campaign with its reason; starting or resuming one from that WABA is 422 account_disabled", async () => {
    const offboarded = await createTestAccount(gateway.db);
    // Scheduled for later: nothing is sent whatever runs campaigns meanwhile.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const create = async (name: string) =>
      (
        await api()
          .post("/public/v1/campaigns")
          .set(offboarded.auth)
          .send({ name, template: "pedido_confirmado", start_at: later, recipients: ROWS })
      ).body.data.id as string;
    const scheduled = await create("Agendada");
    const draft = await create("Rascunho");
    const started = await api()
      .post(`/public/v1/campaigns/${scheduled}/start`)
      .set(offboarded.auth)
      .send({ accepted_recipients: 2 });
    expect(started.body.data.status).toBe("scheduled");

    const webhook = await fetch(`${gateway.sandbox.url}/_sandbox/account-update`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ waba_id: offboarded.wabaId, event: "ACCOUNT_OFFBOARDED" }),
    });
    expect(((await webhook.json()) as { webhook_status: number }).webhook_status).toBe(200);

    const view = await documented(
      "get",
      "/campaigns/{campaign_id}",
      api().get(`/public/v1/campaigns/${scheduled}`).set(offboarded.auth),
      200,
    );
    expect(view.body.data).toMatchObject({
      status: "paused",
      pause_reason: `Pausada automaticamente: a conta WhatsApp Business ${offboarded.wabaId} foi desligada desta plataforma (ACCOUNT_OFFBOARDED). Os envios da conta estão bloqueados até a Meta reativá-la ou reconectá-la.`,
    });
    const resumed = await documented(
      "post",
      "/campaigns/{campaign_id}/resume",
      api().post(`/public/v1/campaigns/${scheduled}/resume`).set(offboarded.auth),
      422,
    );
    expect(resumed.body.error.code).toBe("account_disabled");
    const refused = await documented(
      "post",
      "/campaigns/{campaign_id}/start",
      api().post(`/public/v1/campaigns/${draft}/start`).set(offboarded.auth).send({ accepted_recipients: 2 }),
      422,
    );
    expect(refused.body.error.code).toBe("account_disabled");
    expect(refused.body.error.message).toContain("(ACCOUNT_OFFBOARDED)");
  });

  it("a campaign without accepted recipients never starts; another account's campaign is 404; a bad id is 422", async () => {
    const empty = await api()
      .post("/public/v1/campaigns")
      .set(account.auth)
      .send({ name: "Vazia", template: "pedido_confirmado", recipients: [{ to: "123" }] });
    const id = empty.body.data.id as string;
    const refused = await documented(
      "post",
      "/campaigns/{campaign_id}/start",
      api().post(`/public/v1/campaigns/${id}/start`).set(account.auth).send({ accepted_recipients: 0 }),
      422,
    );
    expect(refused.body.error.code).toBe("campaign_empty");

    const other = await createTestAccount(gateway.db);
    const notFound = await documented(
      "get",
      "/campaigns/{campaign_id}",
      api().get(`/public/v1/campaigns/${id}`).set(other.auth),
      404,
    );
    expect(notFound.body).toEqual({
      success: false,
      error: { code: "not_found", message: "A campanha não foi encontrada nesta conta." },
    });
    await documented("get", "/campaigns/{campaign_id}", api().get("/public/v1/campaigns/123").set(account.auth), 422);
    await documented("get", "/campaigns", api().get("/public/v1/campaigns"), 401);
  });
});

describe("campaign reads over HTTP", () => {
  it("lists campaigns newest first with paging, shows one, lists its recipients and exports them as CSV", async () => {
    const mine = await createTestAccount(gateway.db);
    const ids: string[] = [];
    for (const name of ["A", "B", "C"]) {
      const res = await api()
        .post("/public/v1/campaigns")
        .set(mine.auth)
        .send({ name, template: "pedido_confirmado", recipients: ROWS.slice(0, 2) });
      ids.push(res.body.data.id as string);
    }
    const page1 = await documented("get", "/campaigns", api().get("/public/v1/campaigns?limit=2").set(mine.auth), 200);
    expect(page1.body.data.campaigns.map((c: { name: string }) => c.name)).toEqual(["C", "B"]);
    // The list carries each campaign's estimate; its running cost (a pass over the recipients) is the detail's alone.
    expect(page1.body.data.campaigns[0]).toMatchObject({ estimated_cost: { amount_brl: "0.0728" } });
    expect(page1.body.data.campaigns[0]).not.toHaveProperty("running_cost");
    const page2 = await documented(
      "get",
      "/campaigns",
      api()
        .get(`/public/v1/campaigns?limit=2&before_id=${page1.body.data.next_before_id as string}`)
        .set(mine.auth),
      200,
    );
    expect(page2.body.data).toMatchObject({ campaigns: [{ name: "A" }], next_before_id: null });

    const id = ids[0] ?? "";
    await documented("get", "/campaigns/{campaign_id}", api().get(`/public/v1/campaigns/${id}`).set(mine.auth), 200);
    const listed = await documented(
      "get",
      "/campaigns/{campaign_id}/recipients",
      api().get(`/public/v1/campaigns/${id}/recipients?limit=1`).set(mine.auth),
      200,
    );
    expect(listed.body.data.recipients).toEqual([
      expect.objectContaining({ row: 1, to: "5511987651001", client_ref: "c-1", status: "queued", attempts: 0 }),
    ]);
    const rest = await api()
      .get(`/public/v1/campaigns/${id}/recipients?after_id=${listed.body.data.next_after_id as number}`)
      .set(mine.auth);
    expect(rest.body.data).toMatchObject({ recipients: [{ row: 2, to: "5511987651002" }], next_after_id: null });
    const filtered = await api().get(`/public/v1/campaigns/${id}/recipients?status=sent`).set(mine.auth);
    expect(filtered.body.data.recipients).toEqual([]);

    const csv = await documented(
      "get",
      "/campaigns/{campaign_id}/recipients/export",
      api().get(`/public/v1/campaigns/${id}/recipients/export`).set(mine.auth).buffer(true),
      200,
    );
    expect(csv.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(csv.headers["content-disposition"]).toBe(`attachment; filename="campanha-${id}.csv"`);
    const lines = csv.text.trimEnd().split("\r\n");
    // Every text cell quoted (a spreadsheet splitting on `;` never splits one), numbers bare.
    expect(lines[0]).toBe(
      '"row","to","client_ref","status","message_id","error_code","error_message","attempts","updated_at"',
    );
    expect(lines.slice(1).map((l) => l.split(",").slice(0, 5))).toEqual([
      ["1", '"5511987651001"', '"c-1"', '"queued"', ""],
      ["2", '"5511987651002"', '"c-2"', '"queued"', ""],
    ]);
    await documented(
      "get",
      "/campaigns/{campaign_id}/recipients/export",
      api().get(`/public/v1/campaigns/${id}/recipients/export`).set(account.auth),
      404,
    );
  });

  it("exports a client_ref made to run in a spreadsheet as text: quoted, a formula defused by an apostrophe", async () => {
    const mine = await createTestAccount(gateway.db);
    const refs = ["x;=cmd|' /C calc'!A0;", '=HYPERLINK("http://x")', "@SUM(1)", "-1+1"];
    const created = await api()
      .post("/public/v1/campaigns")
      .set(mine.auth)
      .send({
        name: "Fórmulas",
        template: "pedido_confirmado",
        recipients: refs.map((client_ref, i) => ({
          to: `551198765${2001 + i}`,
          variables: ["Maria", "1", "2"],
          header_text: "1",
          client_ref,
        })),
      });
    expect(created.body.data.accepted_recipients).toBe(4);
    const csv = await api()
      .get(`/public/v1/campaigns/${created.body.data.id as string}/recipients/export`)
      .set(mine.auth)
      .buffer(true);
    const lines = csv.text.trimEnd().split("\r\n").slice(1);
    expect(lines.map((line) => /^\d+,"\d+",("(?:[^"]|"")*")/.exec(line)?.[1])).toEqual([
      // The `;` Excel pt-BR splits on inside the quotes would start a cell `=cmd…`: it is defused too.
      `"x;'=cmd|' /C calc'!A0;"`,
      `"'=HYPERLINK(""http://x"")"`,
      `"'@SUM(1)"`,
      `"'-1+1"`,
    ]);
    // Outside the quotes only commas separate the cells: Excel in Portuguese (`;`) splits nothing.
    for (const line of lines) expect(line.replace(/"(?:[^"]|"")*"/g, "")).not.toMatch(/[;\t]/);
    // And cut on `;` or `,` ignoring the quotes, no piece starts a formula, past a leading quote either.
    for (const separator of [";", ","])
      for (const piece of lines.flatMap((line) => line.split(separator)))
        expect(piece.replace(/^[ "]+/, "")).not.toMatch(/^[=+\-@\t\r]/);
  });
});

describe("per-number pacing of POST /public/v1/messages", () => {
  it("answers 429 rate_limited with an exact Retry-After before the provider is called, and sends after it", async () => {
    // Wired as the API's container should wire it (createNumberThroughput on the API's Redis).
    const wired = gateway.deps.send.throughput;
    gateway.deps.send.throughput ??= createNumberThroughput({ redis: gateway.redis, keyPrefix: gateway.redisPrefix });
    const paced = await createTestAccount(gateway.db);
    await setNumberMessagingRate(
      { db: gateway.db },
      { phoneNumberId: paced.phoneNumberId, ratePerSecond: 1, actor: testActor },
    );
    const send = (n: number) =>
      api()
        .post("/public/v1/messages")
        .set(paced.auth)
        .send({ to: `551198765300${n}`, template: "hello_world", language: "en_US" });
    const requestsTo = async () =>
      (await sandboxControl.requests(gateway)).filter((r) => r.path.includes(`/${paced.phoneNumberId}/messages`))
        .length;

    // Both at once, so they ask for their turns together however slow the machine is: 1/s (with the pacer's
    // headroom, a turn every 1.1 s), the second turn is more than the 1 s a send may wait for.
    const [one, two] = await Promise.all([send(1), send(2)]);
    expect([one.status, two.status].sort()).toEqual([200, 429]);
    const [refused, refusedN] = one.status === 429 ? [one, 1] : [two, 2];
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: "rate_limited",
        message:
          "O número comercial atingiu a sua vazão de mensagens por segundo; nada foi enviado. Aguarde o tempo indicado em Retry-After e repita.",
      },
    });
    expect(await requestsTo()).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await send(refusedN)).status).toBe(200);
    expect(await requestsTo()).toBe(2);
    gateway.deps.send.throughput = wired;
  });
});
