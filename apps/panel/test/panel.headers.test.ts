import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { silentLogger, testEnv } from "@gw/testkit";
import { createPanelApp } from "../src/app.ts";
import { loadPanelConfig } from "../src/config.ts";
import { buildPanelDeps, closePanelDeps, type PanelDeps } from "../src/container.ts";
import { createTenant, PASSWORD, type TestTenant } from "@gw/test-stack";

// The panel's security headers and cookie flags, read from the responses themselves (no browser needed).

function panel(secure: boolean): { deps: PanelDeps; app: ReturnType<typeof createPanelApp> } {
  const env = testEnv();
  const deps = buildPanelDeps(
    loadPanelConfig({
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_KEY_PREFIX: env.redisPrefix,
      META_ACCESS_TOKEN: "panel-test-access-token",
      PANEL_COOKIE_SECURE: String(secure),
      SECRETS_KEYS: env.secretsKeys,
    }),
    silentLogger,
  );
  return { deps, app: createPanelApp(deps) };
}

const setCookies = (res: request.Response): string[] => {
  const header = res.headers["set-cookie"] as string[] | string | undefined;
  return header === undefined ? [] : Array.isArray(header) ? header : [header];
};
const cookieNamed = (res: request.Response, name: string) => setCookies(res).find((c) => c.startsWith(`${name}=`));
const pair = (cookie: string) => cookie.split(";")[0] ?? "";
const csrfIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

/** Signs in through the forms (double-submit token first), returning the session's Cookie header. */
async function signIn(app: ReturnType<typeof createPanelApp>, email: string, names: { csrf: string; session: string }) {
  const form = await request(app).get("/entrar");
  const preSession = cookieNamed(form, names.csrf);
  expect(preSession).toBeDefined();
  const signedIn = await request(app)
    .post("/entrar")
    .set("Cookie", pair(preSession!))
    .type("form")
    .send({ email, password: PASSWORD, _csrf: csrfIn(form.text) });
  expect(signedIn.status).toBe(303);
  const session = cookieNamed(signedIn, names.session);
  expect(session).toBeDefined();
  return { form, signedIn, session: session!, cookie: pair(session!) };
}

function expectStrictHeaders(res: request.Response): void {
  const csp = String(res.headers["content-security-policy"]);
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|unsafe-hashes/);
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("style-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("form-action 'self'");
  expect(res.headers["x-frame-options"]).toMatch(/^(DENY|SAMEORIGIN)$/);
  expect(res.headers["x-content-type-options"]).toBe("nosniff");
  expect(res.headers["cache-control"]).toBe("no-store");
  expect(res.headers["x-powered-by"]).toBeUndefined();
}

describe("panel response headers and cookies", () => {
  let plain: ReturnType<typeof panel>;
  let secure: ReturnType<typeof panel>;
  let tenant: TestTenant;

  beforeAll(async () => {
    plain = panel(false);
    secure = panel(true);
    tenant = await createTenant(plain.deps.db);
  });
  afterAll(async () => {
    await closePanelDeps(plain.deps);
    await closePanelDeps(secure.deps);
  });

  it("serves every page with a strict CSP (no inline code), no framing and no caching, and pages that need no inline code", async () => {
    const { form, signedIn, cookie } = await signIn(plain.app, tenant.users.owner.email, {
      csrf: "gw_panel_csrf",
      session: "gw_panel",
    });
    expectStrictHeaders(form);
    expectStrictHeaders(signedIn);
    for (const path of ["/", "/chaves", "/usuarios", "/auditoria", "/pagina-que-nao-existe"]) {
      const res = await request(plain.app).get(path).set("Cookie", cookie);
      expect({ path, status: res.status }).toEqual({ path, status: path.startsWith("/pagina") ? 404 : 200 });
      expectStrictHeaders(res);
      // What the CSP would block silently must not be in the markup: inline scripts, style attributes, handlers.
      expect(res.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(res.text).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
    }
  });

  it("sets HttpOnly, SameSite=Strict cookies; without PANEL_COOKIE_SECURE, neither Secure nor the __Host- prefix", async () => {
    const { form, session } = await signIn(plain.app, tenant.users.viewer.email, {
      csrf: "gw_panel_csrf",
      session: "gw_panel",
    });
    for (const cookie of [cookieNamed(form, "gw_panel_csrf")!, session]) {
      expect(cookie).toMatch(/;\s*HttpOnly/i);
      expect(cookie).toMatch(/;\s*SameSite=Strict/i);
      expect(cookie).toMatch(/;\s*Path=\//i);
      expect(cookie).not.toMatch(/;\s*Secure/i);
    }
    expect(session).toMatch(/;\s*Max-Age=\d+/i);
  });

  it("with PANEL_COOKIE_SECURE=true, names cookies __Host- with Secure, path / and no domain, and sends HSTS", async () => {
    const { form, signedIn, session, cookie } = await signIn(secure.app, tenant.users.admin.email, {
      csrf: "__Host-gw_panel_csrf",
      session: "__Host-gw_panel",
    });
    expect(cookieNamed(signedIn, "gw_panel")).toBeUndefined();
    for (const set of [cookieNamed(form, "__Host-gw_panel_csrf")!, session]) {
      expect(set).toMatch(/;\s*Secure/i);
      expect(set).toMatch(/;\s*HttpOnly/i);
      expect(set).toMatch(/;\s*SameSite=Strict/i);
      expect(set).toMatch(/;\s*Path=\/(;|$)/i);
      expect(set).not.toMatch(/;\s*Domain=/i);
    }
    expect(signedIn.headers["strict-transport-security"]).toMatch(/max-age=\d+/);
    expect(String(signedIn.headers["content-security-policy"])).toContain("upgrade-insecure-requests");
    // The __Host- cookie is the session: a page answers with it, and not with the plain name.
    expect((await request(secure.app).get("/chaves").set("Cookie", cookie)).status).toBe(200);
    const plainName = cookie.replace("__Host-gw_panel=", "gw_panel=");
    expect((await request(secure.app).get("/chaves").set("Cookie", plainName)).status).toBe(303);
  });

  it("signs out by clearing the session cookie (Max-Age=0) with the same flags", async () => {
    const { cookie } = await signIn(plain.app, tenant.users.owner.email, {
      csrf: "gw_panel_csrf",
      session: "gw_panel",
    });
    const page = await request(plain.app).get("/").set("Cookie", cookie);
    const out = await request(plain.app)
      .post("/sair")
      .set("Cookie", cookie)
      .type("form")
      .send({ _csrf: csrfIn(page.text) });
    expect(out.status).toBe(303);
    const cleared = cookieNamed(out, "gw_panel");
    expect(cleared).toMatch(/^gw_panel=;/);
    expect(cleared).toMatch(/;\s*Max-Age=0/i);
    expect(cleared).toMatch(/;\s*HttpOnly/i);
    expect((await request(plain.app).get("/").set("Cookie", cookie)).status).toBe(303);
  });
});
