// A menu bot (docs/client.md, "8. A menu bot"): sends a list, verifies the message.received that carries the
// option tapped (integration on payload version 2), answers option 7 with the boleto PDF, uploaded to the gateway
// and sent by its media_id, and hands the conversation to a person on option 8, staying quiet while a person holds
// it. docs/client.md embeds this file; a test fails when the two differ.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { parseWebhookEvent, uploadMedia, verifyWebhook, type GatewayClient } from "@pt-gateway/client";

/** 8 options in 2 sections (a list takes up to 10 rows in all); the ids come back in `interactive.id`. */
export const MENU_SECTIONS = [
  {
    title: "Pedidos",
    rows: [
      { id: "opcao-1", title: "Rastrear pedido" },
      { id: "opcao-2", title: "Trocar um produto" },
      { id: "opcao-3", title: "Cancelar pedido" },
      { id: "opcao-4", title: "Nota fiscal" },
    ],
  },
  {
    title: "Pagamentos",
    rows: [
      { id: "opcao-5", title: "Pagar com Pix" },
      { id: "opcao-6", title: "Parcelamento" },
      { id: "opcao-7", title: "Segunda via do boleto", description: "Enviamos o PDF aqui na conversa" },
      { id: "opcao-8", title: "Falar com atendente" },
    ],
  },
];

export interface MenuBotOptions {
  gateway: GatewayClient;
  /** The integration's signing secret (panel, Integrações). */
  signingSecret: string;
  /** What option 7 answers with. */
  boleto: { bytes: Uint8Array; filename: string };
}

export function createMenuBot({ gateway, signingSecret, boleto }: MenuBotOptions) {
  /** The message.status events received, in order (what a real bot would store). */
  const statuses: { message_id: string; status: string }[] = [];
  /**
   * The boleto uploaded for each delivery_id (a real bot keeps it with its records): a redelivered event sends the
   * same media_id, so the same Idempotency-Key replays the first send; a new upload would change the request and
   * the gateway would answer 409 idempotency_conflict on every redelivery.
   */
  const uploaded = new Map<string, string>();

  /** Sends the menu to `to` (a phone or a BSUID); answers the message_id that message.status events carry. */
  async function start(to: string): Promise<string> {
    const { data, error, response } = await gateway.POST("/public/v1/messages", {
      body: {
        to,
        interactive: {
          type: "list",
          body: "Olá! Escolha uma opção:",
          button: "Ver opções",
          sections: MENU_SECTIONS,
        },
      },
    });
    if (error) throw new Error(`menu not sent: HTTP ${response.status} ${JSON.stringify(error)}`);
    return data.data.message_id;
  }

  /** The PDF's media_id; throws GatewayRequestError on a refusal (413, 415, 429 after its retries, …). */
  async function uploadBoleto(): Promise<string> {
    // A copy on an ArrayBuffer of its own: TypeScript 5.9 refuses a Blob part that might be a SharedArrayBuffer.
    const file = new Blob([new Uint8Array(boleto.bytes)], { type: "application/pdf" });
    const { media_id } = await uploadMedia(gateway, { file, filename: boleto.filename, mimeType: "application/pdf" });
    return media_id;
  }

  async function onEvent(rawBody: Buffer): Promise<void> {
    const event = parseWebhookEvent(rawBody);
    if (event.event === "message.status") {
      statuses.push({ message_id: event.data.message_id, status: event.data.status });
      return;
    }
    if (event.event !== "message.received") return;
    // A person holds the conversation (option 8 below, or the panel): the bot stays quiet until it is handed back.
    if (event.data.handler === "human") return;
    const option = event.data.interactive;
    const to = event.data.from ?? event.data.from_user_id ?? "";
    if (option?.type === "list_reply" && option.id === "opcao-8") return handOver(to, event.delivery_id);
    if (option?.type !== "list_reply" || option.id !== "opcao-7") return;

    const mediaId = uploaded.get(event.delivery_id) ?? (await uploadBoleto());
    uploaded.set(event.delivery_id, mediaId);
    const { error, response } = await gateway.POST("/public/v1/messages", {
      // A webhook retried after a failure sends the boleto once: the same key replays the first answer.
      params: { header: { "Idempotency-Key": `menu-bot-${event.delivery_id}` } },
      body: {
        to,
        media: { type: "document", media_id: mediaId, filename: boleto.filename },
        reply_to_message_id: event.data.message_id,
      },
    });
    if (error) throw new Error(`boleto not sent: HTTP ${response.status} ${JSON.stringify(error)}`);
  }

  /** Option 8: a person takes over; the customer is told so, once (the same key on a redelivered event). */
  async function handOver(to: string, deliveryId: string): Promise<void> {
    const handed = await gateway.POST("/public/v1/conversations/{recipient}/handover", {
      params: { path: { recipient: to } },
      body: { to: "human", note: "O cliente escolheu Falar com atendente no menu." },
    });
    if (handed.error)
      throw new Error(`not handed over: HTTP ${handed.response.status} ${JSON.stringify(handed.error)}`);
    const { error, response } = await gateway.POST("/public/v1/messages", {
      params: { header: { "Idempotency-Key": `menu-bot-${deliveryId}` } },
      body: { to, text: "Certo! Uma pessoa da nossa equipe vai continuar a conversa aqui." },
    });
    if (error) throw new Error(`notice not sent: HTTP ${response.status} ${JSON.stringify(error)}`);
  }

  /** The webhook endpoint: `createServer(bot.handle)`, or `app.post("/webhooks", bot.handle)` without a body parser. */
  function handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      const header = (name: string) => [req.headers[name]].flat()[0];
      const verdict = verifyWebhook({
        secret: signingSecret,
        rawBody,
        timestamp: header("x-pt-timestamp"),
        signature: header("x-pt-signature"),
        previousSignature: header("x-pt-signature-previous"),
      });
      if (!verdict.ok) return void res.writeHead(401).end();
      // 2xx only once handled: a failure answers 500 and the gateway delivers the event again.
      onEvent(rawBody).then(
        () => void res.writeHead(204).end(),
        (error: unknown) => {
          console.error(error);
          res.writeHead(500).end();
        },
      );
    });
  }

  return { start, handle, statuses, listen: (port: number) => createServer(handle).listen(port) };
}
