import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { eventually } from "@gw/testkit";
import { closePanelDeps, type PanelDeps } from "../src/container.ts";
import { createTenant, type TestTenant } from "@gw/test-stack";
import { signInHttp, startHttpPanel, type PanelApp } from "./support/http.ts";

// Media opened through the panel: capped by the type's WhatsApp limit (images 5 MB, stickers 500 KB, ...), at most
// PANEL_MEDIA_MAX_CONCURRENT downloads from Meta at once per process, and streamed to the browser as the bytes come
// (never held whole in memory). Meta is a loopback server here, so files can be larger than the sandbox takes and
// held mid-download.

jest.setTimeout(90_000);

const KiB = 1024;
const MiB = 1024 * KiB;
const CHUNK = 64 * KiB;

interface FakeMedia {
  mime: string;
  size: number;
  /** What GET /{media-id} reports as file_size (null: nothing, as Meta sometimes). */
  reportedSize: number | null;
  /** Announce Content-Length on the download. */
  announce: boolean;
  /** Send the first chunk, then wait for `release(id)` before the rest. */
  hold: boolean;
}

/** Meta's media node and download host in one loopback server. */
async function startFakeMeta() {
  const media = new Map<string, FakeMedia>();
  const waiting = new Map<string, () => void>();
  const downloads: string[] = [];
  let active = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", base);
    const node = /^\/v23\.0\/(\w+)$/.exec(url.pathname);
    if (node?.[1] && media.has(node[1])) {
      const item = media.get(node[1])!;
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          messaging_product: "whatsapp",
          id: node[1],
          url: `${base}/download/${node[1]}`,
          mime_type: item.mime,
          ...(item.reportedSize === null ? {} : { file_size: item.reportedSize }),
        }),
      );
      return;
    }
    const download = /^\/download\/(\w+)$/.exec(url.pathname);
    const item = download?.[1] ? media.get(download[1]) : undefined;
    if (!download?.[1] || !item) {
      res.writeHead(404).end();
      return;
    }
    const id = download[1];
    downloads.push(id);
    // A download counts until its last byte was sent (or it was cut): before the panel can see its end.
    active += 1;
    let counted = true;
    const ended = () => {
      if (counted) active -= 1;
      counted = false;
    };
    res.on("finish", ended);
    res.on("close", ended);
    res.writeHead(200, {
      "content-type": item.mime,
      ...(item.announce ? { "content-length": String(item.size) } : {}),
    });
    const rest = () => void sendRest(res, item.size - Math.min(CHUNK, item.size));
    res.write(Buffer.alloc(Math.min(CHUNK, item.size), 1));
    if (item.hold) waiting.set(id, rest);
    else rest();
  });
  async function sendRest(res: ServerResponse, remaining: number) {
    while (remaining > 0 && !res.destroyed) {
      const size = Math.min(CHUNK, remaining);
      remaining -= size;
      if (!res.write(Buffer.alloc(size, 2))) await once(res, "drain").catch(() => undefined);
    }
    res.end();
  }
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    downloads,
    get active() {
      return active;
    },
    add(item: Partial<FakeMedia> & { mime: string; size: number }): string {
      const id = `${Date.now()}${randomBytes(3).readUIntBE(0, 3)}`;
      media.set(id, { reportedSize: item.size, announce: true, hold: false, ...item });
      return id;
    },
    release(id: string) {
      waiting.get(id)?.();
      waiting.delete(id);
    },
    releaseAll() {
      for (const id of [...waiting.keys()]) this.release(id);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let meta: Awaited<ReturnType<typeof startFakeMeta>>;
let deps: PanelDeps;
let app: PanelApp;
let panelUrl: string;
let closeServer: () => Promise<void>;
let tenant: TestTenant;
let cookie: string;

beforeAll(async () => {
  meta = await startFakeMeta();
  ({ deps, app } = startHttpPanel({ META_BASE_URL: meta.base, PANEL_MEDIA_MAX_CONCURRENT: "2" }));
  // A real listening panel: the browser's side of a stream is read with fetch, chunk by chunk.
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  panelUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closeServer = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  tenant = await createTenant(deps.db);
  cookie = (await signInHttp(app, tenant.users.viewer.email)).cookie;
});
afterAll(async () => {
  meta?.releaseAll();
  await closeServer?.();
  await meta?.close();
  await closePanelDeps(deps);
});

/** An inbound message of the tenant carrying the fake Meta's media `mediaId`; returns its id. */
async function inboundWith(type: string, mediaId: string, mime: string): Promise<string> {
  const row = await deps.db.inboundMessage.create({
    data: {
      accountId: tenant.accountId,
      phoneNumberId: tenant.phoneNumberId,
      from: "5511987654321",
      contactKey: "5511987654321",
      wamid: `wamid.media.${randomBytes(8).toString("hex")}`,
      type,
      mediaId,
      mediaMime: mime,
      occurredAt: new Date(),
      windowExpiresAt: new Date(Date.now() + 24 * 3600_000),
    },
  });
  return row.id;
}

async function media(type: string, item: Parameters<typeof meta.add>[0]): Promise<string> {
  return inboundWith(type, meta.add(item), item.mime);
}

const open = (id: string, signal?: AbortSignal) =>
  fetch(`${panelUrl}/conversas/midia/${id}`, { headers: { cookie }, ...(signal ? { signal } : {}) });

/** The whole body, or the error that broke it. */
async function readAll(res: Response): Promise<{ bytes: number } | { error: string }> {
  try {
    return { bytes: (await res.arrayBuffer()).byteLength };
  } catch (error) {
    return { error: String(error) };
  }
}

describe("size caps by media type", () => {
  it("refuses an image Meta reports over 5 MB with 413, without downloading it", async () => {
    const before = meta.downloads.length;
    const res = await open(await media("image", { mime: "image/jpeg", size: 5 * MiB + 1 }));
    expect(res.status).toBe(413);
    expect(await res.text()).toContain("grande demais");
    expect(meta.downloads.length).toBe(before);
  });

  it("refuses a sticker whose download announces more than 500 KB, Meta's metadata silent", async () => {
    const res = await open(
      await media("sticker", { mime: "image/webp", size: 500 * KiB + 1, reportedSize: null, announce: true }),
    );
    expect(res.status).toBe(413);
  });

  it("cuts an image that announces no length once it passes 5 MB: the browser gets a broken download", async () => {
    const res = await open(
      await media("image", { mime: "image/png", size: 6 * MiB, reportedSize: null, announce: false }),
    );
    expect(res.status).toBe(200);
    const outcome = await readAll(res);
    expect(outcome).toHaveProperty("error");
  });

  it("serves a document of 6 MB whole (documents may reach 100 MB)", async () => {
    const res = await open(await media("document", { mime: "application/pdf", size: 6 * MiB }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(6 * MiB));
    expect(await readAll(res)).toEqual({ bytes: 6 * MiB });
  });
});

describe("streaming and the per-process cap", () => {
  it("streams: the browser reads the first bytes while Meta still holds the rest", async () => {
    const id = await media("video", { mime: "video/mp4", size: 2 * MiB, hold: true });
    const mediaId = meta.downloads.length;
    // Buffering the whole file first would answer nothing while Meta holds the rest.
    const res = await open(id, AbortSignal.timeout(5_000));
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.value?.byteLength).toBeGreaterThan(0);
    meta.release(meta.downloads[mediaId] ?? "");
    let total = first.value?.byteLength ?? 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) total += next.value.byteLength;
    expect(total).toBe(2 * MiB);
  });

  it("runs at most 2 downloads at once; a third waits for a turn, and a full line is answered 503", async () => {
    const ids = await Promise.all(
      Array.from({ length: 11 }, () => media("audio", { mime: "audio/ogg", size: 256 * KiB, hold: true })),
    );
    const started = meta.downloads.length;
    const first = [open(ids[0]!), open(ids[1]!)];
    await eventually(() => meta.downloads.length === started + 2, { timeoutMs: 10_000, what: "two downloads" });
    // Eight more wait in line (four per slot); Meta sees none of them.
    const waiting = ids.slice(2, 10).map((id) => open(id));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(meta.downloads.length).toBe(started + 2);
    // The line is full: the eleventh is refused at once.
    const refused = await open(ids[10]!);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");

    // Each download that ends gives its turn to the next in line, never a third at once.
    for (let released = 0; released < 10; released += 1) {
      const expected = Math.min(released + 2, 10);
      await eventually(() => meta.downloads.length === started + expected, {
        timeoutMs: 10_000,
        what: `${expected} downloads started`,
      });
      expect(meta.active).toBeLessThanOrEqual(2);
      meta.release(meta.downloads[started + released]!);
    }
    expect(await readAll(await first[0]!)).toEqual({ bytes: 256 * KiB });
    const answers = await Promise.all([first[1]!, ...waiting]);
    for (const res of answers) expect(await readAll(res)).toEqual({ bytes: 256 * KiB });
    await eventually(() => deps.mediaSlots.active === 0, { timeoutMs: 5_000, what: "every turn given back" });
  });

  it("gives the turn back when the browser goes away mid-download", async () => {
    const id = await media("video", { mime: "video/mp4", size: 1 * MiB, hold: true });
    const abort = new AbortController();
    const res = await open(id, abort.signal);
    expect(res.status).toBe(200);
    await res.body!.getReader().read();
    expect(deps.mediaSlots.active).toBe(1);
    abort.abort();
    await eventually(() => deps.mediaSlots.active === 0, { timeoutMs: 5_000, what: "the turn given back" });
    await eventually(() => meta.active === 0, { timeoutMs: 5_000, what: "Meta's download closed" });
  });
});
