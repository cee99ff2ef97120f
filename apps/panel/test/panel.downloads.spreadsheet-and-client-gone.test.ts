import { once } from "node:events";
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { DEVELOPMENT_INTEGRATION_POLICY, setIntegration } from "@gw/core/accounts";
import { eventually, testActor, testSecretBox } from "@gw/testkit";
import { closePanelDeps, type PanelDeps } from "../src/container.ts";
import { capturingLogger, signInHttp, startHttpPanel } from "./support/http.ts";
import { createTenant, type TestTenant } from "@gw/test-stack";

// The panel's two CSV downloads (Campanhas "Exportar CSV", Entregas "Exportar CSV") are for a person opening them in
// Excel in Brazilian Portuguese: `;` between cells and a UTF-8 byte order mark, so the file opens in columns with its
// accents, and no cell a spreadsheet cuts out of a line starts a formula. Streamed with `sendCsv`, a download whose
// browser goes away mid-file ends (waiting for `drain` on a gone socket waited for ever).

jest.setTimeout(90_000);

const DAY = 86_400_000;
let deps: PanelDeps;
let lines: string[];
let panelUrl: string;
let closeServer: () => Promise<void>;
let tenant: TestTenant;
let cookie: string;

beforeAll(async () => {
  const logger = capturingLogger();
  lines = logger.lines;
  const panel = startHttpPanel({}, logger.logger);
  deps = panel.deps;
  const server = panel.app.listen(0, "127.0.0.1");
  await once(server, "listening");
  panelUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closeServer = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  tenant = await createTenant(deps.db);
  cookie = (await signInHttp(panel.app, tenant.users.admin.email)).cookie;
});

afterAll(async () => {
  await closeServer();
  await closePanelDeps(deps);
});

/** A draft campaign of the tenant with `refs.length` recipients (client_ref `refs[i]`), or `count` plain ones. */
async function campaignWith(refs: readonly string[], count = refs.length): Promise<string> {
  const campaign = await deps.db.campaign.create({
    data: {
      accountId: tenant.accountId,
      name: "Exportação",
      phoneNumberId: tenant.phoneNumberId,
      templateName: "pedido_confirmado",
      templateLanguage: "pt_BR",
      status: "draft",
      createdBy: "test",
    },
  });
  await deps.db.sql.query(
    `INSERT INTO campaign_recipients (campaign_id, row_number, contact, client_ref, status)
     SELECT $1::uuid, g, '55119' || lpad(g::text, 8, '0'), coalesce(($2::text[])[g], 'cliente-' || g), 'queued'
     FROM generate_series(1, $3::int) AS g`,
    [campaign.id, refs, count],
  );
  return campaign.id;
}

/** GETs `path` signed in; reads it whole, or destroys the connection at its first bytes when `leave`. */
function get(path: string, leave = false): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${panelUrl}${path}`, { headers: { Cookie: cookie }, agent: false });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      const done = () =>
        resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"] ?? "", body: Buffer.concat(chunks) });
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        if (leave) {
          req.destroy();
          done();
        }
      });
      res.on("end", done);
    });
    req.on("error", (error) => (leave ? undefined : reject(error)));
    req.end();
  });
}

const stopped = (download: string) =>
  lines.filter(
    (line) =>
      line.includes('"message":"csv download stopped: the client went away"') &&
      line.includes(`"download":"${download}"`),
  ).length;

describe("the panel's CSV downloads", () => {
  it("open in columns in Excel pt-BR: a UTF-8 BOM, `;` between cells, and no formula however a line is cut", async () => {
    const id = await campaignWith(["x;=cmd|' /C calc'!A0;", "=1+1", "João, São Paulo", "ok,-2"]);
    const file = await get(`/campanhas/${id}/exportar`);
    expect(file.status).toBe(200);
    expect(file.type).toBe("text/csv; charset=utf-8");
    expect([...file.body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = file.body.toString("utf8").slice(1);
    const rows = text.trimEnd().split("\r\n");
    expect(rows[0]).toBe(
      '"row";"to";"client_ref";"status";"message_id";"error_code";"error_message";"attempts";"updated_at"',
    );
    expect(rows.slice(1).map((row) => row.split(";").slice(0, 2))).toEqual([
      ["1", '"5511900000001"'],
      ["2", '"5511900000002"'],
      ["3", '"5511900000003"'],
      ["4", '"5511900000004"'],
    ]);
    expect(rows[1]).toContain(`;"x;'=cmd|' /C calc'!A0;";`);
    expect(rows[2]).toContain(`;"'=1+1";`);
    expect(rows[3]).toContain(`;"João, São Paulo";`);
    expect(rows[4]).toContain(`;"ok,'-2";`);
    // Cut on `;` or `,` ignoring the quotes, past a leading quote: no piece starts a formula.
    for (const separator of [";", ","])
      for (const piece of text.split(/\r\n/).flatMap((row) => row.split(separator)))
        expect(piece.replace(/^[ "]+/, "")).not.toMatch(/^[=+\-@\t\r]/);
  });

  it("the campaign download: 30 000 recipients, the browser leaves after the first bytes, the download stops", async () => {
    const id = await campaignWith([], 30_000);
    const before = stopped("campaign");
    const left = await get(`/campanhas/${id}/exportar`, true);
    expect(left.status).toBe(200);
    await eventually(() => stopped("campaign") > before, { what: "the download ended after the browser left" });
  });

  it("the delivery log download: 20 000 deliveries, the browser leaves after the first bytes, the download stops", async () => {
    const integration = await setIntegration(
      { db: deps.db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: testSecretBox() },
      { actor: testActor, accountId: tenant.accountId, url: "http://127.0.0.1:9/hook", events: ["message.status"] },
    );
    await deps.db.sql.query(
      `INSERT INTO deliveries (account_id, integration_id, event, status, body, attempt_count, occurred_at, created_at, updated_at)
       SELECT $1::uuid, $2::uuid, 'message.status', 'delivered', '{"event":"message.status","data":{"message_id":"wamid.x"}}',
         1, $3::timestamptz + g * interval '1 second', $3::timestamptz + g * interval '1 second', now()
       FROM generate_series(1, 20000) AS g`,
      [tenant.accountId, integration.id, new Date(Date.now() - DAY)],
    );
    const before = stopped("deliveries");
    const left = await get("/entregas/exportar", true);
    expect(left.status).toBe(200);
    expect(left.body.toString("utf8")).toMatch(/^\uFEFF"delivery_id";"event"/);
    await eventually(() => stopped("deliveries") > before, { what: "the download ended after the browser left" });
  });
});
