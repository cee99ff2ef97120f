import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { FIXTURE_TEMPLATES, type RunningSandbox, type SandboxTemplate } from "../src/index.ts";
import { getJson, start, TOKEN, type GraphBody } from "./helpers.ts";

const WABA = "102290129340398";

describe("GET /:version/:wabaId/message_templates", () => {
  let sandbox: RunningSandbox;
  let listUrl: string;

  beforeAll(async () => {
    sandbox = await start({ accessToken: TOKEN });
    listUrl = `${sandbox.url}/v23.0/${WABA}/message_templates`;
  });
  afterAll(() => sandbox.close());

  /** Follows `paging.next` until it is absent. */
  async function allPages(first: string): Promise<GraphBody[]> {
    const pages: GraphBody[] = [];
    let next: string | undefined = first;
    while (next) {
      const answer = await getJson(next, TOKEN);
      expect(answer.status).toBe(200);
      pages.push(answer.body);
      next = answer.body.paging?.next;
      if (pages.length > 50) throw new Error("paging does not end");
    }
    return pages;
  }

  it("pages through the whole catalogue with limit=5, each fixture exactly once", async () => {
    const pages = await allPages(`${listUrl}?limit=5`);
    expect(pages.length).toBe(Math.ceil(FIXTURE_TEMPLATES.length / 5));
    expect(pages.length).toBeGreaterThanOrEqual(3);
    const ids = pages.flatMap((p) => (p.data ?? []).map((t) => t.id));
    expect(ids).toEqual(FIXTURE_TEMPLATES.map((t) => t.id));
    for (const page of pages.slice(0, -1)) {
      expect(page.data).toHaveLength(5);
      const next = new URL(page.paging?.next ?? "");
      expect(`${next.origin}${next.pathname}`).toBe(listUrl);
      expect(next.searchParams.get("limit")).toBe("5");
      expect(next.searchParams.get("after")).toBe(page.paging?.cursors.after);
    }
    const last = pages[pages.length - 1];
    expect(last?.paging?.next).toBeUndefined();
    expect(last?.paging?.cursors).toEqual({ before: expect.any(String), after: expect.any(String) });
  });

  it("returns items exactly as the catalogue holds them, in Meta's item shape", async () => {
    const pages = await allPages(`${listUrl}?limit=7`);
    const items = pages.flatMap((p) => p.data ?? []);
    expect(items).toEqual(FIXTURE_TEMPLATES);
    for (const item of items) {
      expect(item).toMatchObject({
        id: expect.stringMatching(/^\d+$/),
        name: expect.any(String),
        language: expect.any(String),
        status: expect.any(String),
        category: expect.any(String),
        parameter_format: expect.stringMatching(/^(NAMED|POSITIONAL)$/),
        components: expect.any(Array),
        quality_score: { score: expect.any(String), date: expect.any(Number) },
        rejected_reason: expect.any(String),
      });
    }
  });

  it("keeps filters in `next` links and applies them on every page", async () => {
    const pages = await allPages(`${listUrl}?status=APPROVED&limit=4`);
    const items = pages.flatMap((p) => p.data ?? []);
    expect(items.map((t) => t.id)).toEqual(FIXTURE_TEMPLATES.filter((t) => t.status === "APPROVED").map((t) => t.id));
    for (const page of pages.slice(0, -1))
      expect(new URL(page.paging?.next ?? "").searchParams.get("status")).toBe("APPROVED");

    const byName = await getJson(`${listUrl}?name=pedido_confirmado`, TOKEN);
    expect(byName.body.data?.map((t) => t.language)).toEqual(["pt_BR", "en_US"]);
  });

  it("goes back with `previous`", async () => {
    const first = await getJson(`${listUrl}?limit=5`, TOKEN);
    expect(first.body.paging?.previous).toBeUndefined();
    const second = await getJson(first.body.paging?.next ?? "", TOKEN);
    const back = await getJson(second.body.paging?.previous ?? "", TOKEN);
    expect(back.body.data?.map((t) => t.id)).toEqual(first.body.data?.map((t) => t.id));
  });

  it("uses the default page size when `limit` is absent and projects `fields`", async () => {
    const all = await getJson(listUrl, TOKEN);
    expect(all.body.data).toHaveLength(FIXTURE_TEMPLATES.length);
    expect(all.body.paging?.next).toBeUndefined();
    const fields = await getJson(`${listUrl}?fields=name,status&limit=2`, TOKEN);
    expect(fields.body.data).toEqual(
      FIXTURE_TEMPLATES.slice(0, 2).map((t) => ({ name: t.name, status: t.status, id: t.id })),
    );
  });

  it("refuses a forged cursor with code 100", async () => {
    const answer = await getJson(`${listUrl}?after=bm90LWEtY3Vyc29y`, TOKEN);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe(100);
  });

  it("honours the pageSize option", async () => {
    const small = await start({ pageSize: 10 });
    try {
      const answer = await getJson(`${small.url}/v23.0/${WABA}/message_templates`);
      expect(answer.body.data).toHaveLength(10);
      expect(answer.body.paging?.next).toEqual(expect.any(String));
    } finally {
      await small.close();
    }
  });
});

describe("FIXTURE_TEMPLATES", () => {
  const find = (predicate: (t: SandboxTemplate) => boolean) => FIXTURE_TEMPLATES.filter(predicate);
  const component = (t: SandboxTemplate, type: string) => t.components.find((c) => c.type === type);
  const buttons = (t: SandboxTemplate) => component(t, "BUTTONS")?.buttons ?? [];

  it("has unique ids and at least 15 templates", () => {
    expect(FIXTURE_TEMPLATES.length).toBeGreaterThanOrEqual(15);
    expect(new Set(FIXTURE_TEMPLATES.map((t) => t.id)).size).toBe(FIXTURE_TEMPLATES.length);
    expect(new Set(FIXTURE_TEMPLATES.map((t) => `${t.name}/${t.language}`)).size).toBe(FIXTURE_TEMPLATES.length);
  });

  it("covers every shape of spec section 2.5", () => {
    const headerFormats = new Set(FIXTURE_TEMPLATES.map((t) => component(t, "HEADER")?.format).filter(Boolean));
    expect([...headerFormats].sort()).toEqual(["DOCUMENT", "IMAGE", "LOCATION", "TEXT", "VIDEO"]);
    expect(
      find(
        (t) =>
          /\{\{1\}\}/.test(component(t, "HEADER")?.text ?? "") &&
          buttons(t).some((b) => b.type === "QUICK_REPLY") &&
          !!component(t, "FOOTER"),
      ),
    ).not.toHaveLength(0);
    expect(
      find((t) => t.parameter_format === "NAMED" && !!component(t, "BODY")?.example?.body_text_named_params),
    ).not.toHaveLength(0);
    const auth = find((t) => t.category === "AUTHENTICATION");
    expect(auth).not.toHaveLength(0);
    for (const t of auth) {
      expect(buttons(t)[0]).toMatchObject({ type: "URL", url: expect.stringContaining("otp{{1}}") });
      expect(component(t, "FOOTER")?.code_expiration_minutes).toEqual(expect.any(Number));
      expect(t.message_send_ttl_seconds).toEqual(expect.any(Number));
    }
    expect(find((t) => buttons(t).some((b) => b.type === "COPY_CODE"))).not.toHaveLength(0);
    expect(
      find(
        (t) =>
          buttons(t).some((b) => b.type === "URL" && /\{\{1\}\}/.test(b.url ?? "")) && t.category !== "AUTHENTICATION",
      ),
    ).not.toHaveLength(0);
    expect(find((t) => buttons(t).some((b) => b.type === "PHONE_NUMBER"))).not.toHaveLength(0);
    expect(
      find((t) => buttons(t).some((b) => b.type === "ORDER_DETAILS" && b.text === "Copiar código Pix")),
    ).not.toHaveLength(0);
    expect(find((t) => !!component(t, "CAROUSEL"))).not.toHaveLength(0);
  });

  it("has every non-approved state and one name in two languages", () => {
    expect(find((t) => t.status === "PENDING")).not.toHaveLength(0);
    expect(find((t) => t.status === "REJECTED" && t.rejected_reason === "INVALID_FORMAT")).not.toHaveLength(0);
    expect(find((t) => t.status === "PAUSED" && t.quality_score.score === "RED")).not.toHaveLength(0);
    expect(find((t) => t.status === "DISABLED")).not.toHaveLength(0);
    expect(find((t) => t.status !== "REJECTED" && t.rejected_reason !== "NONE")).toEqual([]);
    const names = FIXTURE_TEMPLATES.map((t) => t.name);
    const twice = names.filter((name, i) => names.indexOf(name) !== i);
    expect(twice).toHaveLength(1);
    expect(
      find((t) => t.name === twice[0])
        .map((t) => t.language)
        .sort(),
    ).toEqual(["en_US", "pt_BR"]);
  });
});
