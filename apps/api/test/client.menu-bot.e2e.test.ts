// The menu bot of docs/client.md (packages/client/examples/menu-bot.ts, imported as it is) end to end through the real
// processes (issue 27's acceptance): the provider sandbox, the API and the dispatcher run as the image runs them (their
// bundles), against a database of this file's own; the bot's HTTP server is the integration's URL, on payload version
// 2. A contact writes; the bot sends the list; the contact taps row 7 in the sandbox; the bot gets message.received
// with row 7's id, uploads the boleto PDF and sends it by its media id; the sandbox receives that media id and file
// name; the document's statuses come back to the bot, which records only what its signature check accepted.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually, freePort, isolatedDatabase, testEnv } from "@gw/testkit";
import { createGatewayClient, downloadMedia, type GatewayClient } from "@pt-gateway/client";
import {
  closeServer,
  createTestAccount,
  kill,
  launchDispatcher,
  listen,
  seedIntegration,
  startApi,
  startSandboxProcess,
  tail,
  waitUntilUp,
  type RunningApp,
  type TestAccount,
} from "@gw/test-stack";
import { createMenuBot, MENU_SECTIONS } from "../../../packages/client/examples/menu-bot.ts";

type Json = Record<string, unknown>;

/** A real one-page PDF (the sandbox's sample). */
const PDF = readFileSync(new URL("../../provider-sandbox/src/media/samples/document.pdf", import.meta.url));
const FILENAME = "boleto-2026-12.pdf";
const CONTACT = "5511987650007";
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

interface SentMessage {
  phone_number_id: string;
  wamid: string;
  to: string | null;
  type: string;
  body: Json;
  raw: string;
}

/** A request the bot's server received: its headers, raw body and the status the bot answered. */
interface Hit {
  headers: IncomingHttpHeaders;
  body: Json;
  status: number;
}

let database: Awaited<ReturnType<typeof isolatedDatabase>> | undefined;
let sandbox: RunningApp | undefined;
let api: RunningApp | undefined;
let dispatcher: RunningApp | undefined;
let server: Server | undefined;
let account: TestAccount;
let client: GatewayClient;
let bot: ReturnType<typeof createMenuBot>;
let botUrl = "";
/** Every request the bot's server answered, in order (status 0: an answer lost on the way back). */
const hits: Hit[] = [];
/** Set by a test: the bot's next 204 to a message.received never reaches the gateway. */
let loseNextOptionAnswer = false;

async function sandboxJson<T>(path: string, body?: Json): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sandbox?.url}/_sandbox${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const sentTo = async (type: string) =>
  (await sandboxJson<SentMessage[]>("/sent")).body.filter(
    (s) => s.phone_number_id === account.phoneNumberId && s.to === CONTACT && s.type === type,
  );

/** Waits for `what`, with the processes' last lines when it does not come. */
async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
): Promise<T> {
  return eventually(probe, { timeoutMs: 20_000, intervalMs: 100, what }).catch((error: Error) => {
    const apps = [sandbox, api, dispatcher].flatMap((app) => (app ? [`--- ${app.name}\n${tail(app, 15)}`] : []));
    throw new Error(`${error.message}\n${apps.join("\n")}`);
  });
}

beforeAll(async () => {
  const env = testEnv();
  database = await isolatedDatabase();
  const stack = { databaseUrl: database.url, redisUrl: env.redisUrl, redisPrefix: env.redisPrefix };
  account = await createTestAccount(database.db);

  // The bot's server: the example's handler (the bot is made once the API's URL is known, before any event can come),
  // with the test watching what it was given and what it answered.
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    const bodyOf = () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      return (raw ? JSON.parse(raw) : {}) as Json;
    };
    res.on("finish", () => hits.push({ headers: req.headers, body: bodyOf(), status: res.statusCode }));
    // The bot's answer to an option tapped, lost on the way back once (a proxy's reset): the bot handled the event,
    // the gateway never heard so and delivers it again.
    const answer = res.writeHead.bind(res);
    res.writeHead = (status: number, ...rest: never[]): typeof res => {
      const body = bodyOf();
      if (loseNextOptionAnswer && status === 204 && body.event === "message.received") {
        loseNextOptionAnswer = false;
        hits.push({ headers: req.headers, body, status: 0 });
        req.socket.destroy();
        return res;
      }
      return answer(status, ...rest);
    };
    bot.handle(req, res);
  });
  botUrl = `${(await listen(server)).url}/webhooks`;
  const { secret } = await seedIntegration(database.db, {
    accountId: account.accountId,
    url: botUrl,
    events: ["message.status", "message.received"],
    payloadVersion: 2,
  });

  const apiPort = await freePort();
  sandbox = await startSandboxProcess("sandbox", {
    webhookUrl: `http://127.0.0.1:${apiPort}/provider/meta/webhook`,
    wabaId: account.wabaId,
  });
  api = await startApi("api", stack, { port: apiPort, metaBaseUrl: sandbox.url });
  dispatcher = await launchDispatcher("dispatcher", stack, { WEBHOOK_RETRY_SCHEDULE_MS: "100,100,100,100,100" });
  await waitUntilUp(dispatcher);

  client = createGatewayClient({ baseUrl: api.url, apiKey: account.apiKey });
  bot = createMenuBot({ gateway: client, signingSecret: secret, boleto: { bytes: PDF, filename: FILENAME } });
}, 120_000);

afterAll(async () => {
  if (server) await closeServer(server);
  for (const app of [dispatcher, api, sandbox]) if (app) await kill(app);
  await database?.drop();
});

describe("the menu bot of docs/client.md against the gateway's processes", () => {
  let menu: SentMessage;
  let tapped = "";
  let boleto: SentMessage;

  it("1. sends the list of 8 options in 2 sections once the contact has written", async () => {
    const wrote = await sandboxJson<{ id: string }>("/inbound", {
      phone_number_id: account.phoneNumberId,
      from: CONTACT,
      type: "text",
      text: "Oi, preciso de ajuda",
    });
    expect(wrote.status).toBe(200);
    // The window is open once the gateway stored the message (the bot is told, and ignores a text).
    await waitFor("o bot receber a mensagem de texto", () =>
      hits.find((h) => (h.body.data as Json | undefined)?.message_id === wrote.body.id),
    );

    const messageId = await bot.start(CONTACT);
    const [sent] = await sentTo("interactive");
    if (!sent) throw new Error("o sandbox não recebeu a lista");
    menu = sent;
    expect(sent.wamid).toBe(messageId);
    expect(sent.body.interactive).toMatchObject({
      type: "list",
      body: { text: "Olá! Escolha uma opção:" },
      action: {
        button: "Ver opções",
        sections: MENU_SECTIONS.map((s) => ({ title: s.title, rows: s.rows.map((r) => expect.objectContaining(r)) })),
      },
    });
  });

  it("2. the contact taps row 7 in the sandbox: 'Segunda via do boleto', quoting the list", async () => {
    const tap = await sandboxJson<{ id: string; webhook_status: number | null; payload: Json }>("/tap", {
      wamid: menu.wamid,
      row_index: 7,
    });
    expect(tap.status).toBe(200);
    // The API took the webhook (Meta's retries are not what this test relies on).
    expect(tap.body.webhook_status).toBe(200);
    tapped = tap.body.id;
    expect(JSON.stringify(tap.body.payload)).toContain('"list_reply":{"id":"opcao-7"');
  });

  it("3. the bot is given a signed message.received (payload version 2) carrying row 7's id", async () => {
    const hit = await waitFor("o bot receber a opção tocada", () =>
      hits.find((h) => h.body.event === "message.received" && (h.body.data as Json).message_id === tapped),
    );
    expect(hit.body.data).toMatchObject({
      message_id: tapped,
      from: CONTACT,
      interactive: {
        type: "list_reply",
        id: "opcao-7",
        title: "Segunda via do boleto",
        description: "Enviamos o PDF aqui na conversa",
      },
    });
    expect(hit.headers["x-pt-signature"]).toEqual(expect.any(String));
    // 204: the bot's signature check passed and it handled the option (uploaded and sent the boleto).
    expect(hit.status).toBe(204);
  });

  it("4. the boleto is uploaded and sent by its media id: the sandbox receives that media id and the file name", async () => {
    const [sent] = await waitFor("o sandbox receber o documento", async () => {
      const documents = await sentTo("document");
      return documents.length > 0 && documents;
    });
    if (!sent) throw new Error("unreachable");
    boleto = sent;
    // The exact JSON Meta would get: the uploaded media by id, its file name, quoting the tapped option.
    const raw = JSON.parse(sent.raw) as {
      document: { id: string; filename: string };
      context?: { message_id: string };
    };
    expect(raw.document).toEqual({ id: expect.stringMatching(/^\d+$/), filename: FILENAME });
    expect(raw.context).toEqual({ message_id: tapped });

    // That id is the upload the gateway made: the sandbox holds the PDF's bytes under it, named as the bot named it,
    // and the gateway serves the same bytes back for it.
    const media = await sandboxJson<Json>(`/media/${raw.document.id}`);
    expect(media.body).toMatchObject({
      origin: "uploaded",
      phone_number_id: account.phoneNumberId,
      mime_type: "application/pdf",
      filename: FILENAME,
      sha256: sha256(PDF),
    });
    const download = await downloadMedia(client, raw.document.id);
    expect(sha256(new Uint8Array(await new Response(download.body).arrayBuffer()))).toBe(sha256(PDF));
    // One boleto for one tap.
    expect(await sentTo("document")).toHaveLength(1);
  });

  it("5. the boleto's statuses come back signed: the bot records sent, delivered and read after its signature check", async () => {
    const statuses = await waitFor("os status do boleto chegarem ao bot", () => {
      const seen = bot.statuses.filter((s) => s.message_id === boleto.wamid).map((s) => s.status);
      return ["sent", "delivered", "read"].every((s) => seen.includes(s)) && seen;
    });
    expect([...statuses].sort()).toEqual(["delivered", "read", "sent"]);
    const signed = hits.filter(
      (h) => h.body.event === "message.status" && (h.body.data as Json).message_id === boleto.wamid,
    );
    expect(signed.map((h) => [h.status, typeof h.headers["x-pt-signature"]])).toEqual(
      signed.map(() => [204, "string"]),
    );

    // The check is not a formality: the same status with one byte changed is refused (401) and not recorded.
    const last = signed.at(-1);
    if (!last) throw new Error("unreachable");
    const tampered = JSON.stringify({ ...last.body, data: { ...(last.body.data as Json), status: "failed" } });
    const res = await fetch(botUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-pt-timestamp": String(last.headers["x-pt-timestamp"]),
        "x-pt-signature": String(last.headers["x-pt-signature"]),
      },
      body: tampered,
    });
    expect(res.status).toBe(401);
    expect(bot.statuses.filter((s) => s.message_id === boleto.wamid && s.status === "failed")).toEqual([]);
  });

  it("a tap whose answer was lost is delivered again: the bot sends that boleto once, uploads it once, and answers 204", async () => {
    const uploadsBefore = (await sandboxJson<{ uploads: unknown[] }>("/media/uploads")).body.uploads.length;
    loseNextOptionAnswer = true;
    const tap = await sandboxJson<{ id: string }>("/tap", { wamid: menu.wamid, row_id: "opcao-7" });
    expect(tap.status).toBe(200);

    // Every attempt of that delivery until one is answered 204, or the dispatcher's six attempts are spent.
    const attempts = await waitFor("o dispatcher entregar a opção de novo", () => {
      const seen = hits.filter(
        (h) => h.body.event === "message.received" && (h.body.data as Json).message_id === tap.body.id,
      );
      return (seen.some((h) => h.status === 204) || seen.length >= 6) && seen;
    });
    expect(loseNextOptionAnswer).toBe(false);
    expect(new Set(attempts.map((h) => h.body.delivery_id)).size).toBe(1);
    expect(attempts.map((h) => h.status)).toEqual([0, 204]);

    const documents = (await sentTo("document")).filter(
      (s) => (JSON.parse(s.raw) as { context?: { message_id: string } }).context?.message_id === tap.body.id,
    );
    expect(documents).toHaveLength(1);
    expect((await sandboxJson<{ uploads: unknown[] }>("/media/uploads")).body.uploads).toHaveLength(uploadsBefore + 1);
  }, 60_000);
});
