// Issue 21, item 3, in the panel (supertest on the panel's app): Integrações shows each integration's endpoint health
// and, once the gateway disabled one, a notice with its reason; the re-enable button (admins and owners) resumes the
// waiting deliveries, audited with the user; a viewer and another account cannot.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import request from "supertest";
import { DEVELOPMENT_INTEGRATION_POLICY, setIntegration } from "@gw/core/accounts";
import { disableIfFailing } from "@gw/core/deliveries";
import { silentLogger, testActor, testSecretBox } from "@gw/testkit";
import { closePanelDeps, type PanelDeps } from "../src/container.ts";
import { createTenant, type TestTenant } from "@gw/test-stack";
import { signInHttp, startHttpPanel, type PanelApp, type SignedIn } from "./support/http.ts";

jest.setTimeout(60_000);

describe("panel Integrações: endpoint health", () => {
  let deps: PanelDeps;
  let app: PanelApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let integrationId: string;
  let waiting: bigint;
  let reason: string;
  let admin: SignedIn;
  let viewer: SignedIn;

  beforeAll(async () => {
    ({ deps, app } = startHttpPanel({ WEBHOOK_DISABLE_AFTER_FAILING_MS: "432000000" }));
    tenant = await createTenant(deps.db);
    other = await createTenant(deps.db);
    const integration = await setIntegration(
      { db: deps.db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: testSecretBox() },
      { accountId: tenant.accountId, url: "http://127.0.0.1:9/webhooks", events: ["message.status"], actor: testActor },
    );
    integrationId = integration.id;
    // Attempts as the dispatcher records them: every one failed, the first one two seconds ago.
    const delivery = await deps.db.delivery.create({
      data: {
        accountId: tenant.accountId,
        integrationId,
        event: "message.status",
        status: "pending",
        body: "{}",
        occurredAt: new Date(),
        attemptCount: 2,
        nextAttemptAt: new Date(Date.now() + 60_000),
      },
    });
    waiting = delivery.id;
    for (const [number, secondsAgo] of [
      [1, 2],
      [2, 0],
    ] as const) {
      await deps.db.deliveryAttempt.create({
        data: {
          deliveryId: delivery.id,
          number,
          integrationId,
          startedAt: new Date(Date.now() - secondsAgo * 1_000),
          durationMs: 40,
          statusCode: 503,
          errorKind: "http_status",
          responseBody: "em manutenção",
        },
      });
    }
    const disabled = await disableIfFailing(
      { db: deps.db, queue: deps.queue, logger: silentLogger },
      { integrationId, thresholdMs: 1_000, lastError: { statusCode: 503, errorKind: "http_status" } },
    );
    expect(disabled).toMatchObject({ integrationId, waiting: 1 });
    reason = disabled?.reason ?? "";
    expect(reason).toBe("desativada: todas as tentativas falharam por 1 segundo; último erro: HTTP 503");
    admin = await signInHttp(app, tenant.users.admin.email);
    viewer = await signInHttp(app, tenant.users.viewer.email);
  });

  afterAll(async () => {
    await closePanelDeps(deps);
  });

  it("lists the disabled integration with a notice giving its reason", async () => {
    const res = await request(app).get("/integracoes").set("Cookie", viewer.cookie);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<p class="notice error" role="alert">');
    expect(res.text).toContain(reason);
    expect(res.text).toContain('<span class="badge bad">desativada</span>');
  });

  it("shows the health figures, the notice and the re-enable button (not to a viewer)", async () => {
    const page = await request(app).get(`/integracoes/${integrationId}`).set("Cookie", admin.cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Saúde do endpoint");
    expect(page.text).toContain(reason);
    expect(page.text).toMatch(/1 entrega aguarda,/);
    // Two attempts in the hour, none succeeded; the last error with the endpoint's answer.
    expect(page.text).toMatch(/Última hora<\/td>\s*<td>2<\/td>\s*<td>0 %<\/td>/);
    expect(page.text).toContain("<code>em manutenção</code>");
    expect(page.text).toContain("5 dias");
    expect(page.text).toContain(`action="/integracoes/${integrationId}/reativar"`);
    const asViewer = await request(app).get(`/integracoes/${integrationId}`).set("Cookie", viewer.cookie);
    expect(asViewer.text).toContain(reason);
    expect(asViewer.text).not.toContain("/reativar");
  });

  it("re-enables only for an admin of the account, audited with the user, and the waiting delivery resumes", async () => {
    const post = (who: SignedIn, id = integrationId) =>
      request(app).post(`/integracoes/${id}/reativar`).set("Cookie", who.cookie).type("form").send({ _csrf: who.csrf });
    expect((await post(viewer)).status).toBe(403);
    const stranger = await signInHttp(app, other.users.admin.email);
    expect((await post(stranger)).status).toBe(404);
    expect((await post(admin, randomUUID())).status).toBe(404);
    expect((await deps.db.integration.findUniqueOrThrow({ where: { id: integrationId } })).disabledAt).not.toBeNull();

    const res = await post(admin);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/integracoes/${integrationId}?ok=reativada`);
    expect(await deps.db.integration.findUniqueOrThrow({ where: { id: integrationId } })).toMatchObject({
      disabledAt: null,
      disabledReason: null,
    });
    const row = await deps.db.delivery.findUniqueOrThrow({ where: { id: waiting } });
    expect(row).toMatchObject({ status: "pending", budgetStart: 2 });
    expect(row.nextAttemptAt).not.toBeNull();
    const audit = await deps.db.auditEntry.findMany({
      where: { target: `integration:${integrationId}` },
      orderBy: { id: "asc" },
    });
    expect(audit.map((entry) => [entry.action, entry.actor])).toEqual([
      ["system.integration.saved", "test"],
      ["system.integration.disabled", "dispatcher"],
      ["panel.integration.enabled", `panel:${tenant.users.admin.email}`],
    ]);
    const page = await request(app)
      .get(res.headers.location ?? "")
      .set("Cookie", admin.cookie);
    expect(page.text).toContain("Integração reativada");
    expect(page.text).not.toContain(reason);
    expect(page.text).not.toContain("/reativar");
  });
});
