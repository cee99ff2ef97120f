// Media transfer slots (issue 35, item 7). A client that trickles its upload's fields, or reads its download slowly,
// holds what its transfer took for as long as it goes on. So the account's turn (MEDIA_UPLOADS_PER_ACCOUNT,
// MEDIA_DOWNLOADS_PER_ACCOUNT, across the pods) is taken before one of the pod's slots, and a transfer below the
// minimum rate (MEDIA_MIN_RATE_BYTES_PER_S over each MEDIA_MIN_RATE_GRACE_MS) is cut, giving back both.
import { createHash } from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually } from "@gw/testkit";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { multipart, rawUpload, sample, type RawAnswer } from "./support/multipart.ts";

const MiB = 1024 * 1024;
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const code = (answer: RawAnswer) => (answer.json as { error?: { code?: string } } | undefined)?.error?.code;

/** A PDF larger than what the kernel and Node buffer on a connection: a reader that stops holds its download open. */
const LARGE_PDF = Buffer.concat([sample("document.pdf"), Buffer.alloc(24 * MiB, 0x20)]);

async function upload(gateway: TestGateway, account: TestAccount, file: Buffer): Promise<string> {
  const body = multipart([{ name: "file", file, type: "application/pdf", filename: "boleto.pdf" }]);
  const answer = await rawUpload(gateway.apiUrl, account.auth, {
    contentType: body.contentType,
    bytes: body.body,
  }).send();
  expect(answer.status).toBe(201);
  return (answer.json as { data: { media_id: string } }).data.media_id;
}

/** An upload that sends its multipart (fields first) one byte every 100 ms, until it is answered or aborted. */
function trickleUpload(gateway: TestGateway, account: TestAccount, phoneNumberId: string) {
  const body = multipart([
    { name: "phone_number_id", value: phoneNumberId },
    { name: "file", file: sample("document.pdf"), type: "application/pdf", filename: "lento.pdf" },
  ]);
  const bytes = { contentType: body.contentType, bytes: body.body };
  const transfer = rawUpload(gateway.apiUrl, account.auth, bytes, { chunked: true });
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < body.body.length) transfer.write(sent, ++sent);
  }, 100);
  let answered: RawAnswer | null = null;
  void transfer.answer.then(
    (answer) => {
      answered = answer;
      clearInterval(timer);
    },
    () => clearInterval(timer),
  );
  return {
    answer: transfer.answer,
    answered: () => answered,
    abort: () => {
      clearInterval(timer);
      transfer.abort();
    },
  };
}

/** A download whose reader takes nothing once the answer's head arrived (until `resume`). */
function slowDownload(gateway: TestGateway, account: TestAccount, mediaId: string) {
  const req = http.get(new URL(`/public/v1/media/${mediaId}`, gateway.apiUrl), { headers: account.auth });
  req.on("error", () => undefined);
  const head = new Promise<http.IncomingMessage>((resolve, reject) => {
    req.once("response", resolve);
    req.once("error", reject);
  });
  head.catch(() => undefined);
  return {
    head,
    /** Reads what is left: the bytes, and whether the answer ended whole or was cut. */
    async resume(): Promise<{ bytes: number; whole: boolean }> {
      const res = await head;
      return new Promise((resolve) => {
        let bytes = 0;
        res.on("data", (chunk: Buffer) => (bytes += chunk.length));
        res.once("end", () => resolve({ bytes, whole: res.complete }));
        res.once("error", () => resolve({ bytes, whole: false }));
        res.once("aborted", () => resolve({ bytes, whole: false }));
      });
    },
    abort: () => req.destroy(),
  };
}

async function download(gateway: TestGateway, account: TestAccount, mediaId: string) {
  const res = await fetch(new URL(`/public/v1/media/${mediaId}`, gateway.apiUrl), { headers: account.auth });
  return { status: res.status, sha256: sha256(Buffer.from(await res.arrayBuffer())) };
}

describe("16 trickling clients of one account leave another account's media working", () => {
  let gateway: TestGateway;
  let a: TestAccount;
  let b: TestAccount;

  beforeAll(async () => {
    gateway = await startTestGateway({
      env: {
        API_RATE_LIMIT_POINTS: "10000",
        MEDIA_UPLOADS_PER_POD: "16",
        MEDIA_DOWNLOADS_PER_POD: "16",
        MEDIA_UPLOADS_PER_ACCOUNT: "4",
        MEDIA_DOWNLOADS_PER_ACCOUNT: "4",
        // Nobody is cut for the rate here: the turns alone keep B's transfers going.
        MEDIA_MIN_RATE_GRACE_MS: "120000",
      },
    });
    a = await createTestAccount(gateway.db);
    b = await createTestAccount(gateway.db);
  });

  afterAll(async () => {
    await gateway.close();
  });

  it("A's 16 trickling uploads and 16 stalled downloads: B uploads and downloads; A past its 4 turns gets 429", async () => {
    const large = await upload(gateway, a, LARGE_PDF);
    const pdf = sample("document.pdf");
    const bMedia = await upload(gateway, b, pdf);
    const uploads = Array.from({ length: 16 }, () => trickleUpload(gateway, a, a.phoneNumberId));
    const downloads = Array.from({ length: 16 }, () => slowDownload(gateway, a, large));
    try {
      // Every upload of A holds a slot or was answered; every download of A has its answer's head.
      await eventually(
        () => uploads.filter((u) => u.answered() !== null).length + gateway.deps.media.uploadSlots.active === 16,
        { what: "A's uploads in flight or answered" },
      );
      const heads = await Promise.all(downloads.map((d) => d.head));

      const body = multipart([{ name: "file", file: pdf, type: "application/pdf", filename: "b.pdf" }]);
      const bAnswer = await rawUpload(gateway.apiUrl, b.auth, {
        contentType: body.contentType,
        bytes: body.body,
      }).send();
      expect({ status: bAnswer.status, code: code(bAnswer) }).toEqual({ status: 201, code: undefined });
      expect(await download(gateway, b, bMedia)).toEqual({ status: 200, sha256: sha256(pdf) });

      // A's transfers past its turns were refused at once, before a slot of the pod was taken.
      const refusedUploads = uploads.map((u) => u.answered()).filter((answer) => answer !== null);
      expect(refusedUploads.map((answer) => [answer.status, code(answer), answer.headers["retry-after"]])).toEqual(
        Array.from({ length: 12 }, () => [429, "media_upload_limit", "5"]),
      );
      expect(heads.filter((res) => res.statusCode === 200)).toHaveLength(4);
      const refusedDownloads = heads.filter((res) => res.statusCode !== 200);
      const refusals = await Promise.all(
        refusedDownloads.map(async (res) => {
          let text = "";
          for await (const chunk of res) text += String(chunk);
          return [
            res.statusCode,
            (JSON.parse(text) as { error: { code: string } }).error.code,
            res.headers["retry-after"],
          ];
        }),
      );
      expect(refusals).toEqual(Array.from({ length: 12 }, () => [429, "media_download_limit", "5"]));
    } finally {
      for (const transfer of [...uploads, ...downloads]) transfer.abort();
    }
    // A client gone gives back its slot and its turn.
    await eventually(
      () => gateway.deps.media.uploadSlots.active === 0 && gateway.deps.media.downloadSlots.active === 0,
      { what: "every slot given back" },
    );
    expect((await download(gateway, a, large)).status).toBe(200);
  });
});

describe("a transfer below the minimum rate is cut after the grace period", () => {
  let gateway: TestGateway;
  let a: TestAccount;

  beforeAll(async () => {
    gateway = await startTestGateway({
      env: {
        API_RATE_LIMIT_POINTS: "10000",
        // One turn each: the next transfer of the account goes through only if the cut gave its turn back.
        MEDIA_UPLOADS_PER_ACCOUNT: "1",
        MEDIA_DOWNLOADS_PER_ACCOUNT: "1",
        MEDIA_MIN_RATE_BYTES_PER_S: "65536",
        MEDIA_MIN_RATE_GRACE_MS: "1500",
      },
    });
    a = await createTestAccount(gateway.db);
  });

  afterAll(async () => {
    await gateway.close();
  });

  it("an upload trickling its fields gets 400 bad_request naming the rate, and gives back its slot and turn", async () => {
    const trickler = trickleUpload(gateway, a, a.phoneNumberId);
    try {
      const answer = await eventually(() => trickler.answered(), { what: "the trickling upload answered" });
      expect({ status: answer.status, code: code(answer) }).toEqual({ status: 400, code: "bad_request" });
      expect((answer.json as { error: { message: string } }).error.message).toBe(
        "O arquivo chegou a menos de 64 KB/s durante 1,5 s e a transferência foi interrompida; envie de novo.",
      );
    } finally {
      trickler.abort();
    }
    expect(gateway.deps.media.uploadSlots.active).toBe(0);
    await upload(gateway, a, sample("document.pdf"));
  });

  it("a download its client stops reading is cut (never a whole file), and gives back its slot and turn", async () => {
    const large = await upload(gateway, a, LARGE_PDF);
    const stalled = slowDownload(gateway, a, large);
    try {
      expect((await stalled.head).statusCode).toBe(200);
      await eventually(() => gateway.deps.media.downloadSlots.active === 0, { what: "the stalled download cut" });
      // What the buffers held is still read; then the connection ends short of the file.
      const read = await stalled.resume();
      expect(read.whole).toBe(false);
      expect(read.bytes).toBeLessThan(LARGE_PDF.length);
    } finally {
      stalled.abort();
    }
    expect(await download(gateway, a, large)).toEqual({ status: 200, sha256: sha256(LARGE_PDF) });
  });
});
