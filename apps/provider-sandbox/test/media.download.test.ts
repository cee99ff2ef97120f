import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import type { RunningSandbox } from "../src/index.ts";
import { control, PHONE_ID, start, startReceiver, TOKEN } from "./helpers.ts";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface MediaNode {
  messaging_product: string;
  url: string;
  mime_type: string;
  sha256: string;
  file_size: number;
  id: string;
}

interface ErrorBody {
  error: { message: string; type: string; code: number; error_subcode?: number };
}

async function get(url: string, token?: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

function json<T>(bytes: Buffer): T {
  return JSON.parse(bytes.toString("utf8")) as T;
}

describe("media of inbound messages", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;
  let now = Date.parse("2026-11-25T12:00:00Z");

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({ webhookUrl: receiver.url, webhookRetries: false, accessToken: TOKEN, now: () => now });
  });
  afterEach(() => {
    sandbox.sandbox.reset();
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  async function inboundMedia(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    await control(sandbox.url, "/inbound", { phone_number_id: PHONE_ID, from: "5511988887777", ...body });
    const message = receiver.received.at(-1)?.body.entry[0]?.changes[0]?.value.messages?.[0];
    return (message?.[String(body.type)] ?? {}) as Record<string, unknown>;
  }

  it("serves an inbound PNG through GET /{media-id} and its Bearer-only download URL, with matching hashes", async () => {
    const media = await inboundMedia({ type: "image", media: { mime_type: "image/png" } });
    const id = String(media.id);

    const node = await get(`${sandbox.url}/v23.0/${id}`, TOKEN);
    expect(node.status).toBe(200);
    const body = json<MediaNode>(node.bytes);
    expect(Object.keys(body)).toEqual(["messaging_product", "url", "mime_type", "sha256", "file_size", "id"]);
    expect(body).toMatchObject({ messaging_product: "whatsapp", mime_type: "image/png", id });
    const url = new URL(body.url);
    expect(url.origin).toBe(sandbox.url);
    expect(url.pathname).toBe("/whatsapp_business/attachments/");
    expect(url.searchParams.get("mid")).toBe(id);

    const file = await get(body.url, TOKEN);
    expect(file.status).toBe(200);
    expect(file.type).toBe("image/png");
    expect(file.bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(file.bytes.length).toBe(body.file_size);
    expect(createHash("sha256").update(file.bytes).digest("hex")).toBe(body.sha256);
    // The webhook's sha256 is the same file's hash in base64, as Meta's.
    expect(media.sha256).toBe(createHash("sha256").update(file.bytes).digest("base64"));
  });

  it("refuses the download URL without the Bearer header (also with ?access_token=) and with a wrong token", async () => {
    const media = await inboundMedia({ type: "document", media: { filename: "nota.pdf" } });
    const body = json<MediaNode>((await get(`${sandbox.url}/v23.0/${String(media.id)}`, TOKEN)).bytes);

    const bare = await get(body.url);
    expect(bare.status).toBe(401);
    expect(json<ErrorBody>(bare.bytes).error).toMatchObject({ code: 190, type: "OAuthException" });
    const queryToken = await get(`${body.url}&access_token=${TOKEN}`);
    expect(queryToken.status).toBe(401);
    const wrong = await get(body.url, "not-the-token");
    expect(wrong.status).toBe(401);
    expect(json<ErrorBody>(wrong.bytes).error.code).toBe(190);

    const good = await get(body.url, TOKEN);
    expect(good.status).toBe(200);
    expect(good.type).toBe("application/pdf");
    expect(good.bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
  });

  it("refuses GET /{media-id} without a token with Meta's 190, and unknown media with Meta's unsupported request", async () => {
    const media = await inboundMedia({ type: "audio" });
    const anonymous = await get(`${sandbox.url}/v23.0/${String(media.id)}`);
    expect(anonymous.status).toBe(401);
    expect(json<ErrorBody>(anonymous.bytes).error.code).toBe(190);

    const unknown = await get(`${sandbox.url}/v23.0/media-never-issued`, TOKEN);
    expect(unknown.status).toBe(400);
    expect(json<ErrorBody>(unknown.bytes).error).toMatchObject({ code: 100, error_subcode: 33 });
    // A media id asked with another number's phone_number_id is answered as missing.
    const foreign = await get(`${sandbox.url}/v23.0/${String(media.id)}?phone_number_id=1234`, TOKEN);
    expect(json<ErrorBody>(foreign.bytes).error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it("expires the download URL after 5 minutes and refuses an altered one, with a 404", async () => {
    const media = await inboundMedia({ type: "image" });
    const body = json<MediaNode>((await get(`${sandbox.url}/v23.0/${String(media.id)}`, TOKEN)).bytes);
    const file = await get(body.url, TOKEN);
    expect(file.type).toBe("image/jpeg");
    expect(file.bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));

    const altered = new URL(body.url);
    altered.searchParams.set("ext", String(Number(altered.searchParams.get("ext")) + 3600));
    expect((await get(altered.toString(), TOKEN)).status).toBe(404);

    now += 5 * 60_000 + 1_000;
    const late = await get(body.url, TOKEN);
    expect(late.status).toBe(404);
    expect(json<ErrorBody>(late.bytes).error.code).toBe(100);
  });

  it("serves the bytes given in base64 and the caller's media id", async () => {
    const data = Buffer.from("conteúdo do comprovante", "utf8");
    const media = await inboundMedia({
      type: "document",
      media: { id: "media-abc", mime_type: "text/plain", data: data.toString("base64"), filename: "c.txt" },
    });
    expect(media.id).toBe("media-abc");
    const body = json<MediaNode>((await get(`${sandbox.url}/v23.0/media-abc`, TOKEN)).bytes);
    expect(body.file_size).toBe(data.length);
    const file = await get(body.url, TOKEN);
    expect(file.bytes).toEqual(data);
    expect(file.type).toBe("text/plain");
  });

  it("lists the media it holds and forgets it on reset", async () => {
    const media = await inboundMedia({ type: "sticker" });
    const listed = await control<{ media: { id: string; mime_type: string; bytes?: unknown }[] }>(
      sandbox.url,
      "/media",
    );
    expect(listed.body.media).toEqual([expect.objectContaining({ id: media.id, mime_type: "image/webp" })]);
    expect(listed.body.media[0]?.bytes).toBeUndefined();
    await control(sandbox.url, "/reset", {});
    const gone = await get(`${sandbox.url}/v23.0/${String(media.id)}`, TOKEN);
    expect(json<ErrorBody>(gone.bytes).error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it("fails media calls on a `media` fault without touching other routes", async () => {
    const media = await inboundMedia({ type: "image" });
    await control(sandbox.url, "/faults", { mode: "500", route: "media", count: 1 });
    const number = await get(`${sandbox.url}/v23.0/${PHONE_ID}?fields=quality_rating`, TOKEN);
    expect(number.status).toBe(200);
    const faulted = await get(`${sandbox.url}/v23.0/${String(media.id)}`, TOKEN);
    expect(faulted.status).toBe(500);
    expect((await get(`${sandbox.url}/v23.0/${String(media.id)}`, TOKEN)).status).toBe(200);
  });
});
