// The integrator of the topology run (scripts/test-deploy.sh): packages/receiver's example server, bound to one
// address (RECEIVER_HOST, loopback by default) since its pod shares the host's network. The image's `receiver`
// target runs this file's bundle.
//   PORT=8099 RECEIVER_HOST=127.0.0.1 WEBHOOK_SECRET=... DATA_FILE=/data/events.jsonl node dist/receiver/main.mjs
import { createExampleApp } from "../../packages/receiver/example/server.ts";
import { JsonlEventStore } from "../../packages/receiver/example/store.ts";

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error("Defina WEBHOOK_SECRET com o segredo de assinatura da integração.");
  process.exit(1);
}
const port = Number(process.env.PORT ?? 8099);
const host = process.env.RECEIVER_HOST ?? "127.0.0.1";
const store = await JsonlEventStore.open(process.env.DATA_FILE ?? "webhook-events.jsonl");
const app = createExampleApp({ secret: secret.split(",").map((item) => item.trim()), store, log: () => undefined });
const server = app.listen(port, host, () =>
  console.log(`receptor de webhooks ouvindo em http://${host}:${port}/webhooks`),
);
const stop = () => server.close(() => void store.close().then(() => process.exit(0)));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
