import { createServer } from "node:http";
import type { Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { createLogger } from "@gw/logger";
import { FIXTURE_TEMPLATES, startSandbox } from "@gw/provider-sandbox";
import type { RunningSandbox } from "@gw/provider-sandbox";
import { freePort } from "@gw/testkit";
import { createMetaClient, MetaApiError, MetaCatalogueUnavailableError } from "../src/index.ts";
import type { MetaClient } from "../src/index.ts";
import { capturingLogger, control } from "./helpers.ts";
import type { RecordedRequest } from "./helpers.ts";

const TOKEN = "EAAG-templates-token-9c1e77";
const WABA_ID = "102290129340398";
const { logger, lines } = capturingLogger();
const sandboxLogger = createLogger({ service: "provider-sandbox", silent: true });

let sandbox: RunningSandbox;
let meta: MetaClient;

// The client asks for explicit fields; `library_template_name` is not one of them.
const EXPECTED = FIXTURE_TEMPLATES.map(({ library_template_name: _omitted, ...rest }) => rest);

async function templateRequests(): Promise<RecordedRequest[]> {
  return ((await control(sandbox.url, "requests")) as RecordedRequest[]).filter((r) =>
    r.path.endsWith("/message_templates"),
  );
}

async function failure(promise: Promise<unknown>): Promise<MetaCatalogueUnavailableError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof MetaCatalogueUnavailableError))
    throw new Error(`expected MetaCatalogueUnavailableError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  sandbox = await startSandbox({
    appSecret: "app-secret",
    accessToken: TOKEN,
    autoStatuses: false,
    logger: sandboxLogger,
  });
  meta = createMetaClient({ baseUrl: sandbox.url, apiVersion: "v23.0", accessToken: TOKEN, timeoutMs: 5_000, logger });
});

afterAll(async () => {
  await sandbox.close();
  expect(lines.some((line) => line.includes("meta.templates.listed"))).toBe(true);
  for (const line of lines) expect(line).not.toContain(TOKEN);
});

beforeEach(async () => {
  await control(sandbox.url, "reset", { config: true });
});

describe("listTemplates: paging", () => {
  it("follows paging.next across 4 pages of 5 and returns every fixture once, in listing order", async () => {
    expect(FIXTURE_TEMPLATES.length).toBeGreaterThan(15);
    const templates = await meta.listTemplates(WABA_ID, { pageSize: 5 });
    expect(templates).toEqual(EXPECTED);
    expect(new Set(templates.map((t) => t.id)).size).toBe(FIXTURE_TEMPLATES.length);

    const calls = await templateRequests();
    expect(calls).toHaveLength(Math.ceil(FIXTURE_TEMPLATES.length / 5));
    expect(calls.every((c) => c.status === 200 && c.method === "GET")).toBe(true);
    // First page by our own URL, the others by the provider's absolute `next` links (cursor `after`).
    expect(calls[0]?.url).toMatch(new RegExp(`^/v23\\.0/${WABA_ID}/message_templates\\?`));
    expect(calls[0]?.url).toContain("limit=5");
    expect(calls.slice(1).every((c) => /[?&]after=/.test(c.url))).toBe(true);
  });

  it("pages of 4 (the sandbox configured alike) also come back whole", async () => {
    await control(sandbox.url, "config", { pageSize: 4 });
    const templates = await meta.listTemplates(WABA_ID, { pageSize: 4 });
    expect(templates.map((t) => t.id)).toEqual(FIXTURE_TEMPLATES.map((t) => t.id));
    expect(await templateRequests()).toHaveLength(Math.ceil(FIXTURE_TEMPLATES.length / 4));
  });

  it("asks for 100 per page by default: one call for the fixture catalogue", async () => {
    const templates = await meta.listTemplates(WABA_ID);
    expect(templates).toEqual(EXPECTED);
    const calls = await templateRequests();
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url).toContain("limit=100");
  });

  it("an empty catalogue is an empty list", async () => {
    await control(sandbox.url, "config", { templates: [] });
    expect(await meta.listTemplates(WABA_ID, { pageSize: 5 })).toEqual([]);
  });
});

describe("listTemplates: a failure on any page means no catalogue", () => {
  it("a 500 on page 2 -> MetaCatalogueUnavailableError (page 2), not a partial list", async () => {
    await control(sandbox.url, "faults", { mode: "500", route: "templates", after: 1 });
    const error = await failure(meta.listTemplates(WABA_ID, { pageSize: 5 }));
    expect(error.page).toBe(2);
    const calls = await templateRequests();
    // HTTP answers are not retried, and no page after the failed one is asked for.
    expect(calls.map((c) => c.status)).toEqual([200, 500]);
  });

  it("a hung page 2 -> MetaCatalogueUnavailableError after the one retry", async () => {
    await control(sandbox.url, "faults", { mode: "timeout", route: "templates", after: 1, count: 2, delay_ms: 10_000 });
    const impatient = createMetaClient({
      baseUrl: sandbox.url,
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 300,
      logger,
    });
    const error = await failure(impatient.listTemplates(WABA_ID, { pageSize: 5 }));
    expect(error.page).toBe(2);
    expect(await templateRequests()).toHaveLength(3);
  });

  it("one reset on page 2 is absorbed by the single retry of idempotent reads", async () => {
    await control(sandbox.url, "faults", { mode: "reset", route: "templates", after: 1, count: 1 });
    const templates = await meta.listTemplates(WABA_ID, { pageSize: 5 });
    expect(templates).toEqual(EXPECTED);
    const calls = await templateRequests();
    expect(calls.map((c) => c.fault)).toEqual([null, "reset", null, null, null]);
    // The retried call is the same page-2 URL.
    expect(calls[2]?.url).toBe(calls[1]?.url);
  });

  it("two resets on page 2 (retry exhausted) -> MetaCatalogueUnavailableError", async () => {
    await control(sandbox.url, "faults", { mode: "reset", route: "templates", after: 1, count: 2 });
    const error = await failure(meta.listTemplates(WABA_ID, { pageSize: 5 }));
    expect(error.page).toBe(2);
    expect(await templateRequests()).toHaveLength(3);
  });

  it("a refused token -> MetaCatalogueUnavailableError carrying Meta's 190", async () => {
    const client = createMetaClient({
      baseUrl: sandbox.url,
      apiVersion: "v23.0",
      accessToken: "wrong-token",
      timeoutMs: 5_000,
      logger,
    });
    const error = await failure(client.listTemplates(WABA_ID));
    expect(error.page).toBe(1);
    expect(error.cause).toBeInstanceOf(MetaApiError);
    expect(error.cause).toMatchObject({ code: 190, httpStatus: 401, reason: "provider_unavailable" });
  });

  it("the provider unreachable -> MetaCatalogueUnavailableError", async () => {
    const port = await freePort();
    const client = createMetaClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 2_000,
      logger,
    });
    const error = await failure(client.listTemplates(WABA_ID));
    expect(error.page).toBe(1);
  });
});

describe("listTemplates: paging links from a misbehaving server", () => {
  let server: Server;
  let url: string;
  let page: (req: URL) => { status: number; body: unknown };
  const seenAuth: (string | undefined)[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seenAuth.push(req.headers.authorization);
      const answer = page(new URL(req.url ?? "/", url));
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  });

  const item = {
    id: "1",
    name: "t",
    language: "pt_BR",
    status: "APPROVED",
    category: "UTILITY",
    components: [{ type: "BODY", text: "Oi" }],
  };

  it("a next link to another origin is never followed, so the token never leaves for it", async () => {
    // The "other origin" is the sandbox: it records every request it gets.
    page = () => ({
      status: 200,
      body: { data: [item], paging: { next: `${sandbox.url}/v23.0/${WABA_ID}/message_templates?after=x` } },
    });
    const client = createMetaClient({
      baseUrl: url,
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 2_000,
      logger,
    });
    const error = await failure(client.listTemplates(WABA_ID));
    expect(error.page).toBe(1);
    expect(await templateRequests()).toEqual([]);
    expect(seenAuth.at(-1)).toBe(`Bearer ${TOKEN}`);
  });

  it("a next link that loops back to a page already read -> MetaCatalogueUnavailableError", async () => {
    page = (req) => ({ status: 200, body: { data: [item], paging: { next: `${url}${req.pathname}?after=same` } } });
    const client = createMetaClient({
      baseUrl: url,
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 2_000,
      logger,
    });
    const error = await failure(client.listTemplates(WABA_ID));
    expect(error.page).toBe(3);
  });

  it.each([
    ["not JSON", "<html></html>"],
    ["no data array", { paging: {} }],
    ["an item without a name", { data: [{ ...item, name: 5 }] }],
    ["components that are not a list", { data: [{ ...item, components: "BODY" }] }],
  ])("a page with %s -> MetaCatalogueUnavailableError", async (_label, body) => {
    page = () => ({ status: 200, body });
    const client = createMetaClient({
      baseUrl: url,
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 2_000,
      logger,
    });
    await failure(client.listTemplates(WABA_ID));
  });

  it("items without components or category still list (category empty, components [])", async () => {
    page = () => ({ status: 200, body: { data: [{ id: "9", name: "x", language: "pt_BR", status: "PENDING" }] } });
    const client = createMetaClient({
      baseUrl: url,
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 2_000,
      logger,
    });
    expect(await client.listTemplates(WABA_ID)).toEqual([
      { id: "9", name: "x", language: "pt_BR", status: "PENDING", category: "", components: [] },
    ]);
  });
});
