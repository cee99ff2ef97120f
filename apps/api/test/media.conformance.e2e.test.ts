import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually } from "@gw/testkit";
import { createGatewayClient, downloadMedia, GatewayRequestError, uploadMedia } from "@pt-gateway/client";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { GIF, multipart, rawUpload, sample, type RawAnswer } from "./support/multipart.ts";

// POST /public/v1/media and GET /public/v1/media/{media_id}, black box against the running API and the provider
// sandbox (issue 27, "Acceptance"): an upload read back with the same SHA-256, a 404 across accounts, a 410 once
// expired, a 413 when oversize, and every refusal before Meta (the sandbox never sees the upload).

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

interface SandboxUpload {
  id: string;
  phone_number_id: string;
  bytes_received: number;
  status: string;
}

let gateway: TestGateway;
let a: TestAccount;
let b: TestAccount;

async function sandboxJson<T>(path: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const res = await fetch(`${gateway.sandbox.url}${path}`, init);
  return { status: res.status, body: (await res.json()) as T };
}
const uploads = async () => (await sandboxJson<{ uploads: SandboxUpload[] }>("/_sandbox/media/uploads")).body.uploads;
const graphRequests = async () =>
  (await sandboxJson<{ method: string; path: string }[]>("/_sandbox/requests?limit=100000")).body;

const client = (account: TestAccount) =>
  createGatewayClient({ baseUrl: gateway.apiUrl, apiKey: account.apiKey, retry: false });

const errorCode = (answer: RawAnswer) => (answer.json as { error?: { code?: string } }).error?.code;

beforeAll(async () => {
  gateway = await startTestGateway({
    env: {
      API_RATE_LIMIT_POINTS: "10000",
      MEDIA_UPLOADS_PER_ACCOUNT: "4",
      MEDIA_UPLOADS_PER_POD: "6",
      // The uploads held on purpose below must not be cut for their rate however slow this machine is.
      MEDIA_MIN_RATE_GRACE_MS: "600000",
    },
  });
  a = await createTestAccount(gateway.db);
  b = await createTestAccount(gateway.db);
});

afterAll(async () => {
  await gateway.close();
});

describe("POST /public/v1/media then GET /public/v1/media/{media_id}", () => {
  it("uploads a PDF (201) and reads back the same bytes: local SHA-256 = data.sha256 = the sandbox's = the download's", async () => {
    const pdf = sample("document.pdf");
    const uploaded = await uploadMedia(client(a), {
      file: pdf,
      filename: "boleto março.pdf",
      mimeType: "application/pdf",
    });
    expect(uploaded).toMatchObject({
      phone_number_id: a.phoneNumberId,
      mime_type: "application/pdf",
      type: "document",
      size: pdf.length,
      sha256: sha256(pdf),
      filename: "boleto março.pdf",
    });
    expect(Date.parse(uploaded.expires_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const atSandbox = await sandboxJson<Record<string, unknown>>(`/_sandbox/media/${uploaded.media_id}`);
    expect(atSandbox.body).toMatchObject({
      origin: "uploaded",
      phone_number_id: a.phoneNumberId,
      mime_type: "application/pdf",
      sha256: sha256(pdf),
      filename: "boleto março.pdf",
      file_size: pdf.length,
    });

    const file = await downloadMedia(client(a), uploaded.media_id);
    const bytes = new Uint8Array(await new Response(file.body).arrayBuffer());
    expect(sha256(bytes)).toBe(sha256(pdf));
    expect(file).toMatchObject({
      contentType: "application/pdf",
      contentLength: pdf.length,
      filename: "boleto março.pdf",
    });

    const raw = await fetch(`${gateway.apiUrl}/public/v1/media/${uploaded.media_id}`, { headers: a.auth });
    expect(raw.status).toBe(200);
    expect(raw.headers.get("content-disposition")).toBe(
      `attachment; filename="boleto mar_o.pdf"; filename*=UTF-8''boleto%20mar%C3%A7o.pdf`,
    );
    expect(raw.headers.get("x-content-type-options")).toBe("nosniff");
    expect(raw.headers.get("cache-control")).toBe("private, no-store");
    await raw.arrayBuffer();

    const { rows } = await gateway.db.sql.query(
      `SELECT origin, type, size::int AS size, sha256 FROM account_media WHERE account_id = $1 AND media_id = $2`,
      [a.accountId, uploaded.media_id],
    );
    expect(rows).toEqual([{ origin: "uploaded", type: "document", size: pdf.length, sha256: sha256(pdf) }]);
  });

  it("serves a received media (an image with real bytes from the sandbox) with the SHA-256 Meta reported", async () => {
    const answer = await contactWrites(gateway, {
      phone_number_id: a.phoneNumberId,
      from: "5511987650001",
      type: "image",
      media: { mime_type: "image/jpeg" },
    });
    expect(answer.webhook_status).toBe(200);
    const media = await eventually(async () => {
      const all = (await sandboxJson<{ media: { id: string; mime_type: string; sha256: string }[] }>("/_sandbox/media"))
        .body.media;
      return all.findLast((m) => m.mime_type === "image/jpeg");
    });
    // The inbound statement records received media in account_media (package C); until it is on this branch the
    // row it writes is put here (the same columns, ON CONFLICT DO NOTHING).
    await gateway.db.sql.query(
      `INSERT INTO account_media (account_id, phone_number_id, media_id, origin, type, mime_type, sha256, expires_at)
       VALUES ($1, $2, $3, 'received', 'image', 'image/jpeg', $4, now() + interval '7 days')
       ON CONFLICT (account_id, media_id) DO NOTHING`,
      [a.accountId, a.phoneNumberId, media.id, media.sha256],
    );
    const file = await downloadMedia(client(a), media.id);
    const bytes = new Uint8Array(await new Response(file.body).arrayBuffer());
    expect(sha256(bytes)).toBe(media.sha256);
    expect(sha256(bytes)).toBe(sha256(sample("image.jpg")));
    expect(file.contentType).toBe("image/jpeg");
    expect(file.filename).toBe(`${media.id}.jpg`);
  });

  it("another account's media id is 404 not_found, like an unknown one, and Meta is not asked", async () => {
    const uploaded = await uploadMedia(client(a), {
      file: sample("image.png"),
      filename: "produto.png",
      mimeType: "image/png",
    });
    const before = (await graphRequests()).length;
    for (const id of [uploaded.media_id, "999999999999999"]) {
      const res = await fetch(`${gateway.apiUrl}/public/v1/media/${id}`, { headers: b.auth });
      expect({ id, status: res.status, body: await res.json() }).toEqual({
        id,
        status: 404,
        body: { success: false, error: { code: "not_found", message: "A mídia não foi encontrada nesta conta." } },
      });
    }
    expect((await graphRequests()).length).toBe(before);
    await expect(downloadMedia(client(b), uploaded.media_id)).rejects.toMatchObject({ status: 404 });
  });

  it("410 media_expired once the sandbox expired the media; then 410 again without asking Meta", async () => {
    const uploaded = await uploadMedia(client(a), {
      file: sample("image.jpg"),
      filename: "foto.jpg",
      mimeType: "image/jpeg",
    });
    expect((await sandboxJson(`/_sandbox/media/${uploaded.media_id}/expire`, { method: "POST" })).status).toBe(200);
    const first = await fetch(`${gateway.apiUrl}/public/v1/media/${uploaded.media_id}`, { headers: a.auth });
    expect(first.status).toBe(410);
    expect(((await first.json()) as { error: { code: string } }).error.code).toBe("media_expired");
    const asked = (await graphRequests()).filter((r) => r.path.endsWith(`/${uploaded.media_id}`)).length;
    expect(asked).toBe(1);

    const again = await fetch(`${gateway.apiUrl}/public/v1/media/${uploaded.media_id}`, { headers: a.auth });
    expect(again.status).toBe(410);
    await again.arrayBuffer();
    expect((await graphRequests()).filter((r) => r.path.endsWith(`/${uploaded.media_id}`)).length).toBe(asked);
  });

  it("410 media_expired past expires_at (30 days for an upload) without asking Meta", async () => {
    const uploaded = await uploadMedia(client(a), {
      file: sample("image.jpg"),
      filename: "foto.jpg",
      mimeType: "image/jpeg",
    });
    // The gateway's clock 30 days on: the row's expiry moved back instead.
    await gateway.db.sql.query(
      `UPDATE account_media SET expires_at = now() - interval '1 second' WHERE account_id = $1 AND media_id = $2`,
      [a.accountId, uploaded.media_id],
    );
    const before = (await graphRequests()).length;
    const res = await fetch(`${gateway.apiUrl}/public/v1/media/${uploaded.media_id}`, { headers: a.auth });
    expect(res.status).toBe(410);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("media_expired");
    expect((await graphRequests()).length).toBe(before);
    await expect(downloadMedia(client(a), uploaded.media_id)).rejects.toBeInstanceOf(GatewayRequestError);
  });
});

describe("refusals before Meta: the sandbox sees no upload", () => {
  async function refused(parts: Parameters<typeof multipart>[0], options: { chunked?: boolean } = {}) {
    const before = (await uploads()).length;
    const body = multipart(parts);
    const answer = await rawUpload(
      gateway.apiUrl,
      a.auth,
      { contentType: body.contentType, bytes: body.body },
      options,
    ).send();
    expect((await uploads()).length).toBe(before);
    return answer;
  }

  it("a 6 MiB JPEG is 413 payload_too_large with the image sentence (declared length, and chunked)", async () => {
    const big = Buffer.concat([sample("image.jpg"), Buffer.alloc(6 * 1024 * 1024)]);
    for (const chunked of [false, true]) {
      const before = (await uploads()).filter((u) => u.status === "stored").length;
      const body = multipart([{ name: "file", file: big, type: "image/jpeg", filename: "grande.jpg" }]);
      const answer = await rawUpload(
        gateway.apiUrl,
        a.auth,
        { contentType: body.contentType, bytes: body.body },
        { chunked },
      ).send();
      expect({ chunked, status: answer.status, body: answer.json }).toEqual({
        chunked,
        status: 413,
        body: {
          success: false,
          error: {
            code: "payload_too_large",
            message: "O arquivo passa de 5 MB, o limite do WhatsApp para imagens.",
          },
        },
      });
      // Declared: refused before the upload to Meta opened; chunked: cut midway, nothing stored.
      expect((await uploads()).filter((u) => u.status === "stored").length).toBe(before);
    }
    const declared = await refused([{ name: "file", file: big, type: "image/jpeg", filename: "grande.jpg" }]);
    expect(declared.status).toBe(413);
  });

  it("a GIF is 415 media_type_unsupported", async () => {
    const answer = await refused([{ name: "file", file: GIF, type: "image/gif", filename: "a.gif" }]);
    expect({ status: answer.status, code: errorCode(answer) }).toEqual({ status: 415, code: "media_type_unsupported" });
  });

  it("a PNG declared as a PDF is 422 media_type_mismatch naming both types", async () => {
    const answer = await refused([
      { name: "file", file: sample("image.png"), type: "application/pdf", filename: "x.pdf" },
    ]);
    expect(answer.status).toBe(422);
    expect(answer.json).toEqual({
      success: false,
      error: { code: "media_type_mismatch", message: "Os bytes do arquivo são de image/png, não de application/pdf." },
    });
  });

  it("no file part, two files, a field after the file: 422 HTTPValidationError at the part", async () => {
    const pdf = sample("document.pdf");
    const noFile = await refused([{ name: "phone_number_id", value: a.phoneNumberId }]);
    expect(noFile.status).toBe(422);
    expect((noFile.json as { detail: { loc: unknown[] }[] }).detail[0]?.loc).toEqual(["body", "file"]);

    const twoFiles = await refused([
      { name: "file", file: pdf, type: "application/pdf", filename: "a.pdf" },
      { name: "file", file: pdf, type: "application/pdf", filename: "b.pdf" },
    ]);
    expect(twoFiles.status).toBe(422);
    expect((twoFiles.json as { detail: { loc: unknown[] }[] }).detail[0]?.loc).toEqual(["body", "file"]);

    const fieldAfter = await refused([
      { name: "file", file: pdf, type: "application/pdf", filename: "a.pdf" },
      { name: "phone_number_id", value: a.phoneNumberId },
    ]);
    expect(fieldAfter.status).toBe(422);
    expect((fieldAfter.json as { detail: { loc: unknown[] }[] }).detail[0]?.loc).toEqual(["body", "phone_number_id"]);
  });

  it("another account's number is 400 no_connected_number", async () => {
    const answer = await refused([
      { name: "phone_number_id", value: b.phoneNumberId },
      { name: "file", file: sample("document.pdf"), type: "application/pdf", filename: "a.pdf" },
    ]);
    expect({ status: answer.status, code: errorCode(answer) }).toEqual({ status: 400, code: "no_connected_number" });
  });
});

describe("uploads in flight: per account (429) and per server (503)", () => {
  it("the 5th concurrent upload of one account is 429 media_upload_limit; a full server is 503 media_busy", async () => {
    const jpeg = Buffer.concat([sample("image.jpg"), Buffer.alloc(64 * 1024)]);
    const body = multipart([{ name: "file", file: jpeg, type: "image/jpeg", filename: "foto.jpg" }]);
    const head = 8 * 1024;
    const held: ReturnType<typeof rawUpload>[] = [];
    const hold = async (account: TestAccount) => {
      const before = (await uploads()).filter((u) => u.status === "receiving").length;
      const upload = rawUpload(
        gateway.apiUrl,
        account.auth,
        { contentType: body.contentType, bytes: body.body },
        {
          chunked: true,
        },
      );
      upload.write(0, head);
      held.push(upload);
      // In flight at Meta (the sandbox is receiving it).
      await eventually(async () => (await uploads()).filter((u) => u.status === "receiving").length > before);
    };
    try {
      for (let i = 0; i < 4; i++) await hold(a);
      const fifth = await rawUpload(gateway.apiUrl, a.auth, { contentType: body.contentType, bytes: body.body }).send();
      expect({ status: fifth.status, code: errorCode(fifth), retryAfter: fifth.headers["retry-after"] }).toEqual({
        status: 429,
        code: "media_upload_limit",
        retryAfter: "5",
      });
      // Another account still uploads, up to this server's 6 transfers.
      for (let i = 0; i < 2; i++) await hold(b);
      const seventh = await rawUpload(gateway.apiUrl, b.auth, {
        contentType: body.contentType,
        bytes: body.body,
      }).send();
      expect({ status: seventh.status, code: errorCode(seventh), retryAfter: seventh.headers["retry-after"] }).toEqual({
        status: 503,
        code: "media_busy",
        retryAfter: "5",
      });
      // A held upload finished: 201, and its slot and lease are given back.
      const done = await held.shift()!.end(head);
      expect(done.status).toBe(201);
      const next = await rawUpload(gateway.apiUrl, a.auth, { contentType: body.contentType, bytes: body.body }).send();
      expect(next.status).toBe(201);
    } finally {
      for (const upload of held) upload.abort();
    }
    // The aborted ones store nothing at Meta.
    await eventually(async () => (await uploads()).every((u) => u.status !== "receiving"));
  });
});
