import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import type { RunningSandbox } from "../src/index.ts";
import { findUsableMedia } from "../src/graph/media.ts";
import { control, PHONE_ID, sendMessage, start, startReceiver, TOKEN } from "./helpers.ts";

// The sandbox's media upload and the media lifetimes (meta-messages §2.3–2.6): POST /{phone-number-id}/media as
// multipart with the bearer token, Meta's refusals, 30 days for uploads and 7 for received media on the sandbox
// clock, expiry through the control API, DELETE, and what a send by media id may use.

const DAY = 86_400_000;
const pdf = readFileSync(new URL("../src/media/samples/document.pdf", import.meta.url));
const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

function form(fields: Record<string, string>, file?: { bytes: Buffer; type: string; filename: string }) {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  if (file) data.append("file", new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.filename);
  return data;
}

describe("POST /{version}/{phone-number-id}/media and the media lifetimes", () => {
  let sandbox: RunningSandbox;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let now = Date.parse("2026-12-01T12:00:00Z");

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({ webhookUrl: receiver.url, webhookRetries: false, accessToken: TOKEN, now: () => now });
  });
  afterEach(() => {
    sandbox.sandbox.reset();
    now = Date.parse("2026-12-01T12:00:00Z");
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  async function upload(body: FormData, token: string | null = TOKEN, phoneId = PHONE_ID) {
    const response = await fetch(`${sandbox.url}/v23.0/${phoneId}/media`, {
      method: "POST",
      headers: token ? { authorization: `Bearer ${token}` } : {},
      body,
    });
    return {
      status: response.status,
      body: (await response.json()) as { id?: string; error?: { code: number; message: string } },
    };
  }
  const node = async (id: string, query = "") => {
    const response = await fetch(`${sandbox.url}/v23.0/${id}${query}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const valid = () =>
    form(
      { messaging_product: "whatsapp", type: "application/pdf" },
      { bytes: pdf, type: "application/pdf", filename: "nota.pdf" },
    );

  it("stores an upload ({id}) that GET /{media-id} then serves with its hash and size, for its number only", async () => {
    const answer = await upload(valid());
    expect(answer.status).toBe(200);
    const id = String(answer.body.id);
    expect(Object.keys(answer.body)).toEqual(["id"]);
    const got = await node(id);
    expect(got.body).toMatchObject({ id, mime_type: "application/pdf", sha256: sha(pdf), file_size: pdf.length });
    const bytes = await fetch(String(got.body.url), { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(sha(Buffer.from(await bytes.arrayBuffer()))).toBe(sha(pdf));
    expect((await node(id, "?phone_number_id=999")).status).toBe(400);
    const view = await control(sandbox.url, `/media/${id}`);
    expect(view.body).toMatchObject({
      origin: "uploaded",
      filename: "nota.pdf",
      expired: false,
      bytes_received: pdf.length,
    });
    const state = sandbox.sandbox.state;
    expect(findUsableMedia(state, PHONE_ID, id)?.id).toBe(id);
    expect(findUsableMedia(state, "999", id)).toBeNull();
    expect(findUsableMedia(state, PHONE_ID, "123")).toBeNull();
  });

  it("needs the bearer token, messaging_product and a file", async () => {
    expect((await upload(valid(), null)).status).toBe(401);
    expect((await upload(valid(), "wrong")).status).toBe(401);
    const noProduct = await upload(form({}, { bytes: pdf, type: "application/pdf", filename: "a.pdf" }));
    expect(noProduct).toMatchObject({ status: 400, body: { error: { code: 100 } } });
    const noFile = await upload(form({ messaging_product: "whatsapp" }));
    expect(noFile).toMatchObject({ status: 400, body: { error: { code: 100 } } });
  });

  it("refuses a parameterised or unlisted type with Meta's sentence, and a file past its type's size", async () => {
    const ogg = await upload(
      form({ messaging_product: "whatsapp" }, { bytes: pdf, type: "audio/ogg; codecs=opus", filename: "a.ogg" }),
    );
    expect(ogg.status).toBe(400);
    expect(ogg.body.error?.message).toMatch(
      /^\(#100\) Param file must be a file with one of the following types: .*Received file of type 'audio\/ogg; codecs=opus'\.$/,
    );
    const gif = await upload(
      form({ messaging_product: "whatsapp" }, { bytes: pdf, type: "image/gif", filename: "a.gif" }),
    );
    expect(gif.body.error?.message).toContain("Received file of type 'image/gif'.");
    const big = await upload(
      form(
        { messaging_product: "whatsapp" },
        { bytes: Buffer.alloc(5 * 1024 * 1024 + 1), type: "image/jpeg", filename: "a.jpg" },
      ),
    );
    expect(big).toMatchObject({ status: 400, body: { error: { code: 100 } } });
    expect(
      (await control<{ uploads: { status: string }[] }>(sandbox.url, "/media/uploads")).body.uploads.map(
        (u) => u.status,
      ),
    ).toEqual(["refused", "refused", "refused"]);
  });

  it("an upload cut before its multipart ends stores nothing; bytes_received counts what arrived", async () => {
    const req = http.request(`${sandbox.url}/v23.0/${PHONE_ID}/media`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "multipart/form-data; boundary=XyZ",
        "transfer-encoding": "chunked",
      },
    });
    req.on("error", () => undefined);
    req.write(
      '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n',
    );
    req.write(pdf);
    let uploads: { id: string; status: string; bytes_received: number }[] = [];
    for (let i = 0; i < 200; i++) {
      uploads = (await control<{ uploads: typeof uploads }>(sandbox.url, "/media/uploads")).body.uploads;
      if (uploads[0] && uploads[0].bytes_received > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(uploads[0]).toMatchObject({ status: "receiving", bytes_received: pdf.length });
    req.destroy();
    for (let i = 0; i < 200 && uploads[0]?.status === "receiving"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      uploads = (await control<{ uploads: typeof uploads }>(sandbox.url, "/media/uploads")).body.uploads;
    }
    expect(uploads[0]?.status).toBe("aborted");
    expect((await control<{ media: unknown[] }>(sandbox.url, "/media")).body.media).toEqual([]);
  });

  it("an upload expires after 30 days, a received media after 7; GET answers it missing and its URL 404s", async () => {
    const id = String((await upload(valid())).body.id);
    await control(sandbox.url, "/inbound", { phone_number_id: PHONE_ID, from: "5511988887777", type: "document" });
    const received = (
      await control<{ media: { id: string; origin: string }[] }>(sandbox.url, "/media")
    ).body.media.find((m) => m.origin === "received");
    if (!received) throw new Error("no received media");
    const url = String((await node(received.id)).body.url);

    now += 7 * DAY + 1000;
    expect((await node(received.id)).status).toBe(400);
    expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    expect((await node(id)).status).toBe(200);
    expect((await control(sandbox.url, `/media/${received.id}`)).body).toMatchObject({ expired: true });

    now += 23 * DAY;
    expect((await node(id)).status).toBe(400);
    expect(findUsableMedia(sandbox.sandbox.state, PHONE_ID, id)).toBeNull();
  });

  it("POST /_sandbox/media/{id}/expire and DELETE /{media-id} make it missing at once", async () => {
    const first = String((await upload(valid())).body.id);
    const second = String((await upload(valid())).body.id);
    expect((await control(sandbox.url, `/media/${first}/expire`, {})).status).toBe(200);
    expect((await node(first)).body).toMatchObject({ error: { code: 100 } });
    expect((await control(sandbox.url, "/media/nao-existe/expire", {})).status).toBe(404);

    const deleted = await fetch(`${sandbox.url}/v23.0/${second}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect({ status: deleted.status, body: await deleted.json() }).toEqual({ status: 200, body: { success: true } });
    expect((await node(second)).status).toBe(400);
  });

  it("refuses a send by the id of an expired or deleted upload (100), records no send, and sends a live one", async () => {
    const contact = "5511988887777";
    await control(sandbox.url, "/inbound", { phone_number_id: PHONE_ID, from: contact, type: "text", text: "Oi" });
    const [expired, deleted, live] = [
      String((await upload(valid())).body.id),
      String((await upload(valid())).body.id),
      String((await upload(valid())).body.id),
    ];
    await control(sandbox.url, `/media/${expired}/expire`, {});
    await fetch(`${sandbox.url}/v23.0/${deleted}`, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } });
    const document = (id: string) => ({
      messaging_product: "whatsapp",
      to: contact,
      type: "document",
      document: { id, filename: "boleto.pdf" },
    });

    for (const id of [expired, deleted]) {
      const refused = await sendMessage(sandbox.url, document(id), { token: TOKEN });
      expect({ id, status: refused.status, code: refused.body.error?.code }).toEqual({ id, status: 400, code: 100 });
      expect(refused.body.error?.error_data?.details).toMatch(
        /not a valid whatsapp business account media attachment ID/,
      );
    }
    expect((await control<unknown[]>(sandbox.url, "/sent")).body).toEqual([]);

    expect((await sendMessage(sandbox.url, document(live), { token: TOKEN })).status).toBe(200);
    expect((await control<{ body: unknown }[]>(sandbox.url, "/sent")).body.map((s) => s.body)).toEqual([
      document(live),
    ]);
  });
});
