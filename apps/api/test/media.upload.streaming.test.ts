import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually } from "@gw/testkit";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { multipart, rawUpload, sample } from "./support/multipart.ts";

// The upload is streamed to Meta as it arrives (issue 27, §2: "never held whole in memory"), proven without timings:
// the sandbox has received bytes of the upload while the client still holds most of its file back, and a file that
// passes its cap on the wire cuts the upload to Meta midway, storing nothing.

interface SandboxUpload {
  id: string;
  bytes_received: number;
  status: string;
}

let gateway: TestGateway;
let account: TestAccount;

const uploads = async () =>
  ((await (await fetch(`${gateway.sandbox.url}/_sandbox/media/uploads`)).json()) as { uploads: SandboxUpload[] })
    .uploads;

beforeAll(async () => {
  gateway = await startTestGateway();
  account = await createTestAccount(gateway.db);
});

afterAll(async () => {
  await gateway.close();
});

describe("POST /public/v1/media streams the file to Meta", () => {
  it("Meta receives bytes of a 4 MiB video while the client has sent 1 MiB and waits; then 201 with every byte", async () => {
    const video = Buffer.concat([sample("video.mp4"), Buffer.alloc(4 * 1024 * 1024 - sample("video.mp4").length, 7)]);
    const body = multipart([{ name: "file", file: video, type: "video/mp4", filename: "promo.mp4" }]);
    const upload = rawUpload(
      gateway.apiUrl,
      account.auth,
      { contentType: body.contentType, bytes: body.body },
      { chunked: true },
    );
    const before = new Set((await uploads()).map((u) => u.id));
    upload.write(0, 1024 * 1024);
    // The client pauses here: the rest is sent only once Meta has some of the file.
    const atMeta = await eventually(async () =>
      (await uploads()).find((u) => !before.has(u.id) && u.status === "receiving" && u.bytes_received > 0),
    );
    expect(atMeta.bytes_received).toBeLessThanOrEqual(1024 * 1024);
    const answer = await upload.end(1024 * 1024);
    expect(answer.status).toBe(201);
    const data = (answer.json as { data: { media_id: string; size: number } }).data;
    expect(data).toMatchObject({ media_id: atMeta.id, size: video.length });
    const stored = (await uploads()).find((u) => u.id === atMeta.id);
    expect(stored).toMatchObject({ status: "stored", bytes_received: video.length });
  });

  it("a chunked image that passes 5 MiB on the wire is 413 and cuts the upload at Meta midway: nothing stored", async () => {
    const image = Buffer.concat([sample("image.jpg"), Buffer.alloc(6 * 1024 * 1024)]);
    const body = multipart([{ name: "file", file: image, type: "image/jpeg", filename: "grande.jpg" }]);
    const before = new Set((await uploads()).map((u) => u.id));
    const answer = await rawUpload(
      gateway.apiUrl,
      account.auth,
      { contentType: body.contentType, bytes: body.body },
      { chunked: true },
    ).send();
    expect(answer.status).toBe(413);
    const cut = await eventually(async () => {
      const found = (await uploads()).find((u) => !before.has(u.id));
      return found && found.status !== "receiving" ? found : undefined;
    });
    expect(cut.status).toBe("aborted");
    expect(cut.bytes_received).toBeGreaterThan(0);
    expect(cut.bytes_received).toBeLessThanOrEqual(5 * 1024 * 1024);
    const media = await fetch(`${gateway.sandbox.url}/_sandbox/media/${cut.id}`);
    expect(((await media.json()) as { status?: string }).status).toBe("aborted");
  });
});
