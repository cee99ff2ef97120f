// Gives the demo account of `npm start` something to look at in the panel, through the same paths production
// traffic takes: a contact writes (text and a photo, via the provider sandbox's webhooks), a customer who shares no
// phone writes by username (known only by a BSUID), the account answers both through the public API, and Meta's
// template notices arrive. Each run adds one photo (the sandbox keeps media in
// memory, so older photos can no longer be opened once it restarts, as Meta's expire); the rest only once.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} ausente`);
  return value;
};
const sandbox = `http://127.0.0.1:${env("SANDBOX_PORT")}`;
const api = `http://127.0.0.1:${env("API_PORT")}`;
const phoneNumberId = env("DEMO_PHONE_NUMBER_ID");
const marker = join(import.meta.dirname, "..", ".data", "demo-traffic-done");

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
}

// The sandbox keeps its users in memory: the username-only customer is registered on every start, with a pinned
// BSUID so the gateway's stored conversation stays theirs across restarts.
const fernanda = { username: "fernanda.pao", user_id: "BR.1502576394655843" };
await post(`${sandbox}/_sandbox/users`, { ...fernanda, phone: null, name: "Fernanda Alves" });

const maria = { phone_number_id: phoneNumberId, from: "5511987654321", name: "Maria Souza" };
await post(`${sandbox}/_sandbox/inbound`, {
  ...maria,
  type: "image",
  media: { mime_type: "image/png", caption: "Segue o comprovante do Pix" },
});

if (!existsSync(marker)) {
  await post(`${sandbox}/_sandbox/inbound`, { ...maria, type: "text", text: "Oi! Meu pedido já saiu?" });
  await post(`${sandbox}/_sandbox/inbound`, {
    phone_number_id: phoneNumberId,
    from: "5521998765432",
    name: "João Lima",
    type: "text",
    text: "Vocês abrem no sábado?",
  });
  await post(
    `${api}/public/v1/messages`,
    { to: "+55 11 98765-4321", text: "Olá, Maria! Seu pedido saiu para entrega hoje." },
    { authorization: `Bearer ${env("DEMO_API_KEY")}`, "idempotency-key": `demo-${Date.now()}` },
  );
  await post(`${sandbox}/_sandbox/inbound`, {
    phone_number_id: phoneNumberId,
    username: fernanda.username,
    type: "text",
    text: "Oi! Vocês têm pão de queijo hoje?",
  });
  await post(
    `${api}/public/v1/messages`,
    { to: fernanda.user_id, text: "Temos sim, Fernanda! Saiu agora do forno." },
    { authorization: `Bearer ${env("DEMO_API_KEY")}`, "idempotency-key": `demo-bsuid-${Date.now()}` },
  );
  await post(`${sandbox}/_sandbox/templates/status`, {
    name: "novidades_semana",
    event: "REJECTED",
    reason: "INCORRECT_CATEGORY",
  });
  await post(`${sandbox}/_sandbox/templates/quality`, {
    name: "pedido_confirmado",
    language: "pt_BR",
    previous_quality_score: "GREEN",
    new_quality_score: "YELLOW",
  });
  await post(`${sandbox}/_sandbox/numbers`, {
    phone_number_id: phoneNumberId,
    quality_rating: "GREEN",
    messaging_limit_tier: "TIER_1K",
  });
  writeFileSync(marker, new Date().toISOString());
}
