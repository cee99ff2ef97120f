// Issue 35, item 1, in the panel: Integrações creates through the same service as the API, so the cap
// (MAX_INTEGRATIONS_PER_ACCOUNT) binds it too: beyond it the form answers 422 with a Portuguese sentence and stores
// nothing, and concurrent submissions cannot pass it together.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import request from "supertest";
import { closePanelDeps, type PanelDeps } from "../src/container.ts";
import { createTenant, type TestTenant } from "@gw/test-stack";
import { signInHttp, startHttpPanel, type PanelApp, type SignedIn } from "./support/http.ts";

jest.setTimeout(60_000);

const CAP = 2;

describe("panel Integrações: integrations per account", () => {
  let deps: PanelDeps;
  let app: PanelApp;

  beforeAll(() => {
    ({ deps, app } = startHttpPanel({ MAX_INTEGRATIONS_PER_ACCOUNT: String(CAP) }));
  });
  afterAll(async () => {
    await closePanelDeps(deps);
  });

  const submit = (who: SignedIn) =>
    request(app)
      .post("/integracoes")
      .set("Cookie", who.cookie)
      .type("form")
      .send({
        _csrf: who.csrf,
        url: `https://painel-${randomUUID()}.example.com.br/webhooks`,
        events: "message.status",
      });
  const count = (tenant: TestTenant) => deps.db.integration.count({ where: { accountId: tenant.accountId } });

  it("refuses the form beyond the cap with the reason, and stores nothing", async () => {
    const tenant = await createTenant(deps.db);
    const admin = await signInHttp(app, tenant.users.admin.email);
    for (let i = 0; i < CAP; i++) expect((await submit(admin)).status).toBe(303);
    const refused = await submit(admin);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain(`máximo de ${CAP} integrações`);
    expect(await count(tenant)).toBe(CAP);
  });

  it("lets one of concurrent submissions take the last place", async () => {
    const tenant = await createTenant(deps.db);
    const admin = await signInHttp(app, tenant.users.admin.email);
    expect((await submit(admin)).status).toBe(303);
    const answers = await Promise.all(Array.from({ length: 5 }, () => submit(admin)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 422, 422, 422, 422]);
    expect(await count(tenant)).toBe(CAP);
  });
});
