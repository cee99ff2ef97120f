import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { eventually } from "@gw/testkit";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

// Requests the HTTP layer cannot read (an undecodable %-escape in the URL, a gzip body that does not inflate, a body
// cut short, send's refusals) are the client's fault: each answers the error envelope with a 4xx, never a 500.
// Meta's webhook keeps its own JSON answers. Sent with node:http so the bytes are exactly these.

const PORTUGUESE = /^[A-ZÀ-Ú].*[.!?]$/u;

interface Answer {
  status: number;
  contentType: string;
  body: unknown;
}

function send(
  baseUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer },
): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? "GET",
        path: options.path,
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const contentType = res.headers["content-type"] ?? "";
          resolve({
            status: res.statusCode ?? 0,
            contentType,
            body: contentType.startsWith("application/json") ? JSON.parse(text) : text,
          });
        });
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

function expectEnvelope(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status,
    body: { success: false, error: { code, message: expect.stringMatching(PORTUGUESE) } },
  });
  expect(answer.contentType).toMatch(/^application\/json/);
}

describe("bad input answers the envelope, never a 500", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  const json = (extra: Record<string, string> = {}) => ({
    Authorization: account.auth.Authorization,
    "Content-Type": "application/json",
    ...extra,
  });

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { META_WEBHOOK_BODY_LIMIT_BYTES: "1024" } });
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  it.each(["/docs/assets/%", "/docs/assets/%E0%A4%A", "/docs/assets/swagger-ui.css%"])(
    "GET %s: 400 bad_request (undecodable %-escape)",
    async (path) => {
      expectEnvelope(await send(gateway.apiUrl, { path }), 400, "bad_request");
    },
  );

  it.each(["/public/v1/window/%", "/public/v1/window/55%zz", "/public/v1/deliveries/%"])(
    "GET %s with a valid key: 400 bad_request",
    async (path) => {
      const answer = await send(gateway.apiUrl, { path, headers: { Authorization: account.auth.Authorization } });
      expectEnvelope(answer, 400, "bad_request");
      expect((answer.body as { error: { message: string } }).error.message).toMatch(/URL/);
    },
  );

  it("the same URL without a key is still a 401: the key is checked first", async () => {
    expectEnvelope(await send(gateway.apiUrl, { path: "/public/v1/window/%" }), 401, "invalid_api_key");
  });

  it.each([
    ["/public/v1/validate", Buffer.from('{"to":"11987654321"}')],
    ["/public/v1/messages", Buffer.from("not gzip at all")],
    ["/public/v1/validate", gzipSync(Buffer.from('{"to":"11987654321"}')).subarray(0, 15)],
  ])("POST %s with Content-Encoding: gzip that does not inflate: 400 bad_request", async (path, body) => {
    const answer = await send(gateway.apiUrl, {
      method: "POST",
      path,
      headers: json({ "Content-Encoding": "gzip" }),
      body,
    });
    expectEnvelope(answer, 400, "bad_request");
  });

  it("a gzip body that inflates is read as usual", async () => {
    const answer = await send(gateway.apiUrl, {
      method: "POST",
      path: "/public/v1/validate",
      headers: json({ "Content-Encoding": "gzip" }),
      body: gzipSync(Buffer.from('{"to":"11987654321"}')),
    });
    expect(answer.status).toBe(200);
  });

  it.each([
    ["an unsatisfiable Range", { Range: "bytes=999999999-" }],
    ["an If-Match no version has", { "If-Match": '"outra-versao"' }],
  ])("a docs asset with %s: a 4xx envelope", async (_case, headers) => {
    const answer = await send(gateway.apiUrl, { path: "/docs/assets/swagger-ui.css", headers });
    expectEnvelope(answer, 400, "bad_request");
  });

  it("Meta's webhook keeps its own JSON: a signed POST whose gzip body does not inflate is 400 {error}", async () => {
    const answer = await send(gateway.apiUrl, {
      method: "POST",
      path: "/provider/meta/webhook",
      headers: { "X-Hub-Signature-256": `sha256=${"0".repeat(64)}`, "Content-Encoding": "gzip" },
      body: Buffer.from("not gzip"),
    });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: "unreadable body" } });
  });

  it("Meta's webhook keeps its own JSON: a body over META_WEBHOOK_BODY_LIMIT_BYTES is 413 {error}", async () => {
    const answer = await send(gateway.apiUrl, {
      method: "POST",
      path: "/provider/meta/webhook",
      headers: { "X-Hub-Signature-256": `sha256=${"0".repeat(64)}`, "Content-Type": "application/json" },
      body: Buffer.alloc(2048, "a"),
    });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 413, body: { error: "body too large" } });
  });
});

describe("a body cut short by the client is a 400, not a 500 logged as an internal error", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  let server: Server;
  let port: number;
  const seen: { req: IncomingMessage; res: ServerResponse }[] = [];

  beforeAll(async () => {
    gateway = await startTestGateway();
    account = await createTestAccount(gateway.db);
    // The app behind a server of ours, so the status the app sets is visible even though nobody reads the answer.
    server = createServer((req, res) => {
      seen.push({ req, res });
      void gateway.app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await gateway.close();
  });

  /** Headers announcing 1000 bytes, 10 sent; the socket is destroyed once `ready(serverRequest)` holds. */
  async function cutShort(ready: (req: IncomingMessage) => boolean): Promise<number> {
    const before = seen.length;
    const client = httpRequest({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/public/v1/validate",
      headers: { ...account.auth, "Content-Type": "application/json", "Content-Length": "1000" },
    });
    client.on("error", () => undefined);
    client.write('{"to":"11');
    const exchange = await eventually(() => seen[before]);
    await eventually(() => ready(exchange.req));
    client.destroy();
    await eventually(() => exchange.res.statusCode !== 200, { timeoutMs: 5_000 });
    return exchange.res.statusCode;
  }

  it("cut while the JSON parser reads it", async () => {
    // raw-body listens for `aborted` once it reads the body.
    expect(await cutShort((req) => req.listenerCount("aborted") > 0)).toBe(400);
  });

  it("cut before the parser starts (while the key is being checked)", async () => {
    const directory = gateway.deps.directory;
    const authenticate = directory.authenticate.bind(directory);
    let clientGone: () => void = () => undefined;
    const gone = new Promise<void>((resolve) => (clientGone = resolve));
    // The key check waits until the client is gone, so the parser meets a request that is no longer readable.
    directory.authenticate = async (key) => {
      await gone;
      return authenticate(key);
    };
    try {
      const status = await cutShort((req) => {
        req.once("close", () => clientGone());
        return true;
      });
      expect(status).toBe(400);
    } finally {
      directory.authenticate = authenticate;
    }
  });
});
