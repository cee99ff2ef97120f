// Example receiver of the gateway's signed webhooks: verify, store durably, deduplicate, then answer 200.
//   PORT=8099 WEBHOOK_SECRET=... DATA_FILE=./webhook-events.jsonl pnpm exec tsx packages/receiver/example/server.ts
// An integration set to the Standard Webhooks scheme: WEBHOOK_SIGNATURE_SCHEME=standard-webhooks and its whsec_ secret.
import express from "express";
import { pathToFileURL } from "node:url";
import {
  webhookReceiver,
  type GatewayWebhookEvent,
  type SignatureScheme,
  type WebhookMeta,
  type WebhookSecrets,
} from "../src/index.ts"; // in your project: from "@gw/receiver"
import { JsonlEventStore } from "./store.ts";

export function createExampleApp(options: {
  /** One secret, or the new and the old one while moving to a rotated secret. */
  secret: WebhookSecrets;
  /** The integration's signature scheme (panel, Integrações); X-PT-Signature when absent. */
  scheme?: SignatureScheme;
  store: JsonlEventStore;
  log?: (line: string) => void;
}): express.Express {
  const log = options.log ?? console.log;
  const app = express();
  // No express.json() before this route: the signature covers the original bytes of the body.
  app.post(
    "/webhooks",
    webhookReceiver({
      secret: options.secret,
      integrationKey: "default", // one secret here; with several integrations use getSecret(req)
      ...(options.scheme === undefined ? {} : { scheme: options.scheme }),
      onEvent: async (event, meta) => {
        // Resolves only after fsync: the gateway's 200 means "on disk". A throw here becomes 503 and a retry.
        const outcome = await options.store.append({
          integration: meta.integrationKey ?? "default",
          delivery_id: meta.deliveryId,
          attempt: meta.attempt,
          received_at: new Date().toISOString(),
          event,
        });
        log(describe(event, meta, outcome));
      },
      onError: (error, stage) => console.error(`falha (${stage}) ao receber webhook:`, error),
    }),
  );
  app.get("/healthz", (_req, res) => {
    res.json({ ok: true });
  });
  return app;
}

function describe(event: GatewayWebhookEvent, meta: WebhookMeta, outcome: "stored" | "duplicate"): string {
  const head = `${event.event} delivery=${meta.deliveryId} tentativa=${meta.attempt ?? "?"}`;
  if (outcome === "duplicate") return `${head} já recebido antes; ignorado`;
  if (event.event === "message.received") {
    // `from` is null for a user known only by a BSUID: reply to `from_user_id` (a valid `to` for a send).
    const { from, from_user_id: userId, from_username: username, type, text, contact_name } = event.data;
    const sender = from ?? userId ?? "?";
    const who = [contact_name, username ? `@${username}` : null].filter(Boolean).join(" ");
    return `${head} de ${sender}${who ? ` (${who})` : ""} tipo=${type} texto=${JSON.stringify(text)}`;
  }
  if (event.event === "account.update") {
    // Meta's word on the account or a number; `effects` says what the gateway did (sends blocked, campaigns paused).
    const { field, event: name, waba_id: wabaId, effects } = event.data;
    const blocked = effects.sending_blocked === null ? "" : ` envios_bloqueados=${effects.sending_blocked}`;
    const paused =
      effects.paused_campaign_ids.length > 0 ? ` campanhas_pausadas=${effects.paused_campaign_ids.length}` : "";
    return `${head} waba=${wabaId} ${field}${name ? `/${name}` : ""}${blocked}${paused}`;
  }
  if (event.event === "order.updated") {
    // A Pix order moved (our order_status accepted) or Meta reported a status of one of its messages.
    const { reference_id: reference, order_status: order, payment_status: payment, trigger, message } = event.data;
    return `${head} pedido=${reference} ${order}/${payment} (${trigger}, ${message.kind} ${message.message_status ?? "-"})`;
  }
  if (event.event === "conversation.updated") {
    // A bot asked for a person (handler human) or got the conversation back (handler bot).
    const { change, recipient, handler, note } = event.data;
    return `${head} conversa=${recipient} ${change} atende=${handler}${note ? ` (${note})` : ""}`;
  }
  if (event.event === "conversation.handover") {
    // Meta moved the conversation: while another app holds it, a bot of ours should stay quiet.
    const { type, recipient, holder, previous_role: from, current_role: to } = event.data;
    return `${head} conversa=${recipient} ${type} ${from ?? "?"}→${to ?? "?"} atende=${holder}`;
  }
  const { message_id, to, status, error } = event.data;
  return `${head} mensagem=${message_id} para ${to} status=${status}${error ? ` erro=${error.reason} (${error.code})` : ""}`;
}

async function main(): Promise<void> {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error("Defina WEBHOOK_SECRET com o segredo de assinatura mostrado no painel (Integrações).");
    process.exit(1);
  }
  // While moving to a rotated secret, both: WEBHOOK_SECRET="<novo>,<antigo>" (either one verifies a request).
  const secrets = secret
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  const scheme = process.env.WEBHOOK_SIGNATURE_SCHEME ?? "pt";
  if (scheme !== "pt" && scheme !== "standard-webhooks") {
    console.error(
      "WEBHOOK_SIGNATURE_SCHEME deve ser pt ou standard-webhooks, como na integração (painel, Integrações).",
    );
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 8099);
  const store = await JsonlEventStore.open(process.env.DATA_FILE ?? "webhook-events.jsonl");
  const server = createExampleApp({ secret: secrets, scheme, store }).listen(port, () => {
    console.log(`receptor de webhooks ouvindo em http://127.0.0.1:${port}/webhooks`);
  });
  const stop = () => server.close(() => void store.close().then(() => process.exit(0)));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
