// An integrator's program, run by plain Node in a fresh npm project where only the packed tarballs are installed
// (packages/webhooks/test/webhooks.integrator.test.ts copies it there). It receives the gateway's webhooks with both
// schemes (X-PT-Signature through the node:http/Express handler, Standard Webhooks through the fetch-style handler),
// sends one message with the typed client, waits for its signed status deliveries and prints what it saw as JSON.
import console from "node:console";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import process from "node:process";
import { setTimeout as sleep } from "node:timers/promises";
import { createGatewayClient, requestError } from "@pt-gateway/client";
import { webhookFetchHandler, webhookReceiver } from "@pt-gateway/webhooks";

const env = process.env;

// CommonJS consumers get the same API from the same tarballs.
const require = createRequire(import.meta.url);
const cjs = {
  client: typeof require("@pt-gateway/client").createGatewayClient,
  webhooks: typeof require("@pt-gateway/webhooks").verifyStandardWebhook,
};

const received = { pt: [], standard: [] };
const record = (scheme) => (event, meta) => {
  received[scheme].push({ event, meta });
};

const ptServer = createServer(webhookReceiver({ secret: env.PT_SECRET, onEvent: record("pt") }));

// A Next.js route handler or a Hono route gets a Request and answers a Response; node:http carries them here.
const handler = webhookFetchHandler({
  secret: env.STANDARD_SECRET,
  scheme: "standard-webhooks",
  onEvent: record("standard"),
});
const standardServer = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const response = await handler(
    new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});

const listen = (server, port) => new Promise((resolve) => server.listen(Number(port), "127.0.0.1", resolve));
await Promise.all([listen(ptServer, env.PT_PORT), listen(standardServer, env.STANDARD_PORT)]);

// A forged delivery (signed with another secret) is refused before onEvent.
const forgedBody = JSON.stringify({ event: "message.status", occurred_at: new Date().toISOString(), delivery_id: "1" });
const forged = await fetch(`http://127.0.0.1:${env.PT_PORT}/`, {
  method: "POST",
  headers: {
    "X-PT-Timestamp": String(Math.floor(Date.now() / 1000)),
    "X-PT-Signature": `sha256=${"0".repeat(64)}`,
    "X-PT-Event": "message.status",
  },
  body: forgedBody,
});

const client = createGatewayClient({ baseUrl: env.GATEWAY_URL, apiKey: env.API_KEY });
const { data, error, response } = await client.POST("/public/v1/messages", {
  body: { to: env.TO, template: "hello_world", language: "en_US" },
});
if (error !== undefined) throw requestError(response, error);
const messageId = data.data.message_id;

const statusesOf = (scheme) =>
  received[scheme]
    .filter(({ event }) => event.event === "message.status" && event.data.message_id === messageId)
    .map(({ event, meta }) => ({ status: event.data.status, deliveryId: meta.deliveryId, attempt: meta.attempt }));
const deadline = Date.now() + 20_000;
while (Date.now() < deadline && !(statusesOf("pt").length > 0 && statusesOf("standard").length > 0)) await sleep(50);

console.log(
  JSON.stringify({
    cjs,
    forgedStatus: forged.status,
    messageId,
    pt: statusesOf("pt"),
    standard: statusesOf("standard"),
  }),
);
ptServer.close();
standardServer.close();
