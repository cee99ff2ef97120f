import { parseArgs } from "node:util";
import type { Db } from "@gw/db";
import {
  WEBHOOK_EVENTS,
  addBusinessNumber,
  createAccount,
  createApiKey,
  listAudit,
  revokeApiKey,
  rotateIntegrationSecret,
  setIntegration,
  type WebhookEvent,
} from "@gw/core";

/** Thrown for operator mistakes: printed as `{"error": ...}` with exit code 2. */
export class UsageError extends Error {}

export interface CliDeps {
  db: Db;
  /** Extra capabilities that need Redis (webhook retry); absent when not configured. */
  retryDelivery?: (accountId: string, deliveryId: string) => Promise<unknown>;
}

type Options = Record<string, string | boolean | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`Opção obrigatória ausente: --${name}`);
  return value.trim();
}

function parseEvents(value: string): WebhookEvent[] {
  const events = value
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  for (const event of events) {
    if (!(WEBHOOK_EVENTS as readonly string[]).includes(event))
      throw new UsageError(`Evento desconhecido: ${event} (use ${WEBHOOK_EVENTS.join(", ")})`);
  }
  if (events.length === 0) throw new UsageError("Informe ao menos um evento em --events");
  return events as WebhookEvent[];
}

const OPTIONS = {
  name: { type: "string" },
  account: { type: "string" },
  "phone-number-id": { type: "string" },
  "waba-id": { type: "string" },
  display: { type: "string" },
  default: { type: "boolean" },
  id: { type: "string" },
  url: { type: "string" },
  events: { type: "string" },
  inactive: { type: "boolean" },
  integration: { type: "string" },
  limit: { type: "string" },
} as const;

export const USAGE = `uso: pnpm gateway <comando>
  account create --name NOME
  number add --account ID --phone-number-id ID --waba-id ID --display +55...  [--default]
  key create --account ID                 (imprime a chave uma única vez)
  key revoke --id ID
  integration set --account ID --url URL --events message.status,message.received  [--inactive]
  integration rotate-secret --integration ID
  audit list --account ID [--limit N]
  delivery retry --account ID --id DELIVERY_ID   (reenvio pelo painel: auditoria webhook.retry)`;

/** Run one CLI command; returns the JSON-serializable result. */
export async function runCommand(argv: string[], deps: CliDeps): Promise<unknown> {
  const { positionals, values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const options = values as Options;
  const command = positionals.slice(0, 2).join(" ");
  switch (command) {
    case "account create":
      return createAccount(deps.db, required(options, "name"));
    case "number add":
      return addBusinessNumber(deps.db, {
        accountId: required(options, "account"),
        phoneNumberId: required(options, "phone-number-id"),
        wabaId: required(options, "waba-id"),
        displayNumber: required(options, "display"),
        ...(options.default ? { makeDefault: true } : {}),
      });
    case "key create": {
      const created = await createApiKey(deps.db, required(options, "account"));
      return { id: created.id, key: created.key, prefix: created.prefix };
    }
    case "key revoke": {
      const revoked = await revokeApiKey(deps.db, required(options, "id"));
      if (!revoked) throw new UsageError("Chave não encontrada.");
      return revoked;
    }
    case "integration set":
      return setIntegration(deps.db, {
        accountId: required(options, "account"),
        url: required(options, "url"),
        events: parseEvents(required(options, "events")),
        active: !options.inactive,
      });
    case "integration rotate-secret":
      return rotateIntegrationSecret(deps.db, required(options, "integration"));
    case "audit list": {
      const limit = options.limit ? Number(options.limit) : 100;
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError("--limit deve ser um inteiro positivo");
      return listAudit(deps.db, required(options, "account"), limit);
    }
    case "delivery retry": {
      if (!deps.retryDelivery) throw new UsageError("REDIS_URL é necessário para reenviar entregas.");
      return deps.retryDelivery(required(options, "account"), required(options, "id"));
    }
    default:
      throw new UsageError(USAGE);
  }
}
