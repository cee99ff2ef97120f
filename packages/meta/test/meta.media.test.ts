import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { createLogger } from "@gw/logger";
import { startSandbox, type RunningSandbox } from "@gw/provider-sandbox";
import { createMetaClient, MetaApiError, MetaReadError, type MetaClient } from "../src/index.ts";
import { capturingLogger, control } from "./helpers.ts";

const TOKEN = "EAAG-media-token-77c1d0";
const PHONE_NUMBER_ID = "106540352242922";
const { logger, lines } = capturingLogger();
const sandboxLogger = createLogger({ service: "provider-sandbox", silent: true });

let sandbox: RunningSandbox;
let meta: MetaClient;

beforeAll(async () => {
  // No webhook URL: inbound messages are only built, which is what registers their media.
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
  expect(lines.some((line) => line.includes("meta.media.downloaded"))).toBe(true);
  for (const line of lines) expect(line).not.toContain(TOKEN);
});

beforeEach(async () => {
  await control(sandbox.url, "reset", { config: true });
});

/** An inbound media message through the sandbox; returns the media object of Meta's webhook. */
async function inbound(type: string, media: Record<string, unknown> = {}): Promise<{ id: string; sha256: string }> {
  const answer = (await control(sandbox.url, "inbound", {
    phone_number_id: PHONE_NUMBER_ID,
    from: "5511988887777",
    type,
    media,
  })) as {
    payload: { entry: { changes: { value: { messages: Record<string, { id: string; sha256: string }>[] } }[] }[] };
  };
  const message = answer.payload.entry[0]?.changes[0]?.value.messages[0];
  const item = message?.[type];
  if (!item) throw new Error("no media in the sandbox's payload");
  return item;
}

/** streamMedia read to the end: its type and bytes. */
async function download(
  client: MetaClient,
  url: string,
  options: { maxBytes?: number } = {},
): Promise<{ contentType: string; contentLength: number | null; bytes: Buffer }> {
  const file = await client.streamMedia(url, options);
  return { ...file, bytes: Buffer.concat((await file.body.toArray()) as Buffer[]) };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error,
  );
}

/** A loopback server that records requests and answers with `handle`. */
async function startServer(
  handle: (req: IncomingMessage, base: string) => { status: number; headers?: Record<string, string>; body: string },
): Promise<{ url: string; seen: { path: string; authorization: string | undefined }[]; close(): Promise<void> }> {
  const seen: { path: string; authorization: string | undefined }[] = [];
  let base = "";
  const server: Server = createServer((req, res) => {
    seen.push({ path: req.url ?? "", authorization: req.headers.authorization });
    const answer = handle(req, base);
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers }).end(answer.body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe("getMedia and streamMedia against the sandbox", () => {
  it("reads a media's metadata and downloads exactly its bytes with the token", async () => {
    const media = await inbound("image", { mime_type: "image/png" });
    const info = await meta.getMedia(media.id);
    expect(info).toEqual({
      id: media.id,
      url: expect.stringContaining(`${sandbox.url}/whatsapp_business/attachments/?mid=${media.id}`),
      mimeType: "image/png",
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      fileSize: expect.any(Number),
    });
    const file = await download(meta, info.url);
    expect(file.contentType).toBe("image/png");
    expect(file.bytes.length).toBe(info.fileSize);
    expect(createHash("sha256").update(file.bytes).digest("hex")).toBe(info.sha256);
    expect(createHash("sha256").update(file.bytes).digest("base64")).toBe(media.sha256);
  });

  it("an unknown media id is Meta's refusal (code 100, subcode 33), not a read failure", async () => {
    const media = await inbound("document");
    await control(sandbox.url, "reset", {});
    const error = await failure(meta.getMedia(media.id));
    expect(error).toBeInstanceOf(MetaApiError);
    expect(error).toMatchObject({ code: 100, subcode: 33, httpStatus: 400 });
  });

  it("an expired or unknown download URL is Meta's refusal with its HTTP status", async () => {
    const media = await inbound("image");
    const info = await meta.getMedia(media.id);
    await control(sandbox.url, "reset", {});
    const error = await failure(download(meta, info.url));
    expect(error).toBeInstanceOf(MetaApiError);
    expect(error).toMatchObject({ code: 100, httpStatus: 404 });
  });

  it("cuts a download off past the size cap, the client's or the call's", async () => {
    const data = Buffer.alloc(256 * 1024, 7);
    const media = await inbound("document", { mime_type: "application/pdf", data: data.toString("base64") });
    const info = await meta.getMedia(media.id);

    const small = createMetaClient({
      baseUrl: sandbox.url,
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 5_000,
      maxMediaBytes: 64 * 1024,
      logger,
    });
    const error = await failure(download(small, info.url));
    expect(error).toBeInstanceOf(MetaReadError);
    expect(error).toMatchObject({ kind: "too_large" });
    const perCall = await failure(download(meta, info.url, { maxBytes: data.length - 1 }));
    expect(perCall).toMatchObject({ kind: "too_large" });
    // At the cap exactly, it passes.
    expect((await download(meta, info.url, { maxBytes: data.length })).bytes).toEqual(data);
  });

  it("hands the bytes on as they come, and fails a body without Content-Length once it passes the cap", async () => {
    // A media host that sends 64 KiB, then waits to be told before sending more (chunked: no length announced).
    const chunk = Buffer.alloc(64 * 1024, 3);
    let sendMore: () => void = () => undefined;
    const server = createServer((req, res) => {
      res.writeHead(200, { "content-type": "video/mp4" });
      res.write(chunk);
      sendMore = () => {
        for (let i = 0; i < 4; i += 1) res.write(chunk);
        res.end();
      };
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const client = createMetaClient({ baseUrl: base, apiVersion: "v23.0", accessToken: TOKEN, timeoutMs: 5_000 });
      const file = await client.streamMedia(`${base}/file`, { maxBytes: 3 * chunk.length });
      expect(file).toMatchObject({ contentType: "video/mp4", contentLength: null });
      // The first bytes are readable while the host still holds the rest: nothing waits for the whole file.
      const iterator = file.body[Symbol.asyncIterator]();
      const first = (await iterator.next()) as IteratorResult<Buffer>;
      expect(first.value?.length).toBeGreaterThan(0);
      sendMore();
      const error = await failure(
        (async () => {
          for (let next = await iterator.next(); !next.done; next = await iterator.next());
        })(),
      );
      expect(error).toBeInstanceOf(MetaReadError);
      expect(error).toMatchObject({ kind: "too_large" });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("a 500 on the media node is a read failure (server_error), not Meta's refusal", async () => {
    const media = await inbound("image");
    await control(sandbox.url, "faults", { mode: "500", route: "media" });
    const error = await failure(meta.getMedia(media.id));
    expect(error).toBeInstanceOf(MetaReadError);
    expect(error).toMatchObject({ kind: "server_error", httpStatus: 500 });
  });

  it("a connection reset is retried once, like the other reads", async () => {
    const media = await inbound("image");
    await control(sandbox.url, "faults", { mode: "reset", route: "media", count: 1 });
    expect((await meta.getMedia(media.id)).id).toBe(media.id);
  });
});

describe("streamMedia sends the token only to trusted hosts", () => {
  it("refuses a URL on another origin without making any request", async () => {
    const foreign = await startServer(() => ({ status: 200, body: "{}" }));
    try {
      for (const url of [
        `${foreign.url}/whatsapp_business/attachments/?mid=1`,
        "http://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1",
        "https://lookaside.fbsbx.com.evil.example/whatsapp_business/attachments/?mid=1",
        "https://lookaside.fbsbx.com:8443/whatsapp_business/attachments/?mid=1",
        "not a url",
      ]) {
        const error = await failure(download(meta, url));
        expect(error).toBeInstanceOf(MetaReadError);
        expect(error).toMatchObject({ kind: "untrusted_url" });
      }
      expect(foreign.seen).toEqual([]);
    } finally {
      await foreign.close();
    }
  });

  it("does not follow a redirect from a trusted URL to another host", async () => {
    const foreign = await startServer(() => ({ status: 200, body: "stolen" }));
    const graph = await startServer((req, base) =>
      req.url?.startsWith("/v23.0/")
        ? { status: 200, body: JSON.stringify({ messaging_product: "whatsapp", url: `${base}/file`, id: "42" }) }
        : { status: 302, headers: { location: `${foreign.url}/file` }, body: "" },
    );
    try {
      const client = createMetaClient({
        baseUrl: graph.url,
        apiVersion: "v23.0",
        accessToken: TOKEN,
        timeoutMs: 5_000,
      });
      const info = await client.getMedia("42");
      expect(info).toMatchObject({ id: "42", mimeType: null, sha256: null, fileSize: null });
      const error = await failure(download(client, info.url));
      expect(error).toBeInstanceOf(MetaReadError);
      expect(error).toMatchObject({ kind: "bad_response", httpStatus: 302 });
      expect(graph.seen.map((s) => s.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
      expect(foreign.seen).toEqual([]);
    } finally {
      await graph.close();
      await foreign.close();
    }
  });

  it("treats a media answer without a url as a bad response", async () => {
    const graph = await startServer(() => ({
      status: 200,
      body: JSON.stringify({ id: "42", mime_type: "image/png" }),
    }));
    try {
      const client = createMetaClient({
        baseUrl: graph.url,
        apiVersion: "v23.0",
        accessToken: TOKEN,
        timeoutMs: 5_000,
      });
      const error = await failure(client.getMedia("42"));
      expect(error).toMatchObject({ kind: "bad_response" });
    } finally {
      await graph.close();
    }
  });
});
