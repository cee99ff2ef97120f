import { inTransaction, type Db, type Sql } from "@gw/db";
import type { CampaignRecipientIn } from "@gw/contracts";
import { ApiError } from "@gw/errors";
import type { MetaTemplate } from "@gw/meta";
import type { AccountDirectory } from "../accounts/directory.ts";
import { recordAuditAs } from "../audit/audit.ts";
import { contactKeysOf } from "../contacts/contacts.ts";
import type { CsvSource } from "../csv/read.ts";
import { isOrderStatusTemplate } from "../templates/build.ts";
import type { TemplateCache } from "../templates/cache.ts";
import { findTemplate } from "../templates/find.ts";
import { templateShape } from "../templates/shape.ts";
import type { CampaignActor } from "./model.ts";
import {
  recipientIdentifiers,
  rowsFromCsv,
  rowsFromList,
  validateRecipients,
  type AcceptedRecipient,
  type GivenRow,
  type RejectedRow,
} from "./recipients.ts";
import { getCampaign, type CampaignDetail, type CampaignReadDeps } from "./views.ts";

export interface CreateCampaignInput extends CampaignActor {
  name: string;
  template: string;
  language: string;
  phoneNumberId?: string | null | undefined;
  startAt?: Date | null | undefined;
  /** A JSON list (validated by the request schema) or the text of a CSV upload, whole or as it arrives. */
  recipients: { kind: "list"; rows: readonly CampaignRecipientIn[] } | { kind: "csv"; text: CsvSource };
}

/**
 * Why `template` cannot be a campaign's, or null when it can: it must be approved, fillable by the API, and neither
 * an authentication template (a code per recipient) nor a Pix charge. The panel offers only the templates this
 * accepts; creating a campaign refuses the others with this error.
 */
export function campaignTemplateRefusal(template: MetaTemplate): ApiError | null {
  const { name, language } = template;
  if (template.status !== "APPROVED") {
    return new ApiError(template.status === "PAUSED" ? "template_paused" : "invalid_template", {
      message: `O template ${name} (${language}) está com status ${template.status}; uma campanha só envia templates aprovados (APPROVED).`,
    });
  }
  const shape = templateShape(template);
  if (shape.unsupportedReason !== null)
    return new ApiError("template_format_unsupported", {
      message: `O template ${name} não pode ser enviado pela API. ${shape.unsupportedReason}`,
    });
  if (shape.buttons.some((button) => button.isOrderDetails) || shape.isAuthentication)
    return new ApiError("template_format_unsupported", {
      message: `O template ${name} é de ${shape.isAuthentication ? "autenticação (código por destinatário)" : "cobrança Pix"} e não pode ser enviado em campanha.`,
    });
  // An order-status template carries one order's status: only that order's update sends it.
  if (isOrderStatusTemplate(template))
    return new ApiError("template_format_unsupported", {
      message: `O template ${name} é de status de pedido (ORDER_STATUS) e não pode ser enviado em campanha.`,
    });
  return null;
}

async function campaignTemplate(
  templates: TemplateCache,
  wabaId: string,
  name: string,
  language: string,
): Promise<MetaTemplate> {
  let template = findTemplate(await templates.get(wabaId), name, language);
  // A template approved a moment ago may not be in the cached catalogue yet.
  template ??= findTemplate(await templates.get(wabaId, { refresh: true }), name, language);
  if (!template)
    throw new ApiError("template_not_found", {
      message: `O template ${name} não existe no idioma ${language} para esta conta.`,
    });
  const refusal = campaignTemplateRefusal(template);
  if (refusal) throw refusal;
  return template;
}

const INSERT_CHUNK = 5_000;
const CONTACT_LOOKUP_CHUNK = 5_000;

/**
 * The contacts the rows name by another of their identifiers (a phone whose person is known by a BSUID, or the
 * reverse), looked up a chunk at a time; an identifier that is its own key is left out, so a list of new numbers
 * keeps no map of 100 000 entries.
 */
async function contactKeysOfRows(sql: Sql, accountId: string, rows: readonly GivenRow[]): Promise<Map<string, string>> {
  const keys = new Map<string, string>();
  let chunk: string[] = [];
  const lookUp = async () => {
    for (const [identifier, key] of await contactKeysOf(sql, { accountId, identifiers: chunk }))
      if (key !== identifier) keys.set(identifier, key);
    chunk = [];
  };
  for await (const identifier of recipientIdentifiers(rows)) {
    chunk.push(identifier);
    if (chunk.length === CONTACT_LOOKUP_CHUNK) await lookUp();
  }
  await lookUp();
  return keys;
}

/**
 * The rows read (a CSV as it arrives) and checked against the template; what is kept of them for the insert. The
 * rows as given are not kept past this: with 100 000 of them the process's memory is what limits a campaign.
 */
async function checkedRecipients(
  deps: { db: Db; templates: TemplateCache },
  input: CreateCampaignInput,
  wabaId: string,
): Promise<{ template: MetaTemplate; totalRows: number; accepted: AcceptedRecipient[]; rejected: RejectedRow[] }> {
  const given =
    input.recipients.kind === "csv" ? await rowsFromCsv(input.recipients.text) : rowsFromList(input.recipients.rows);
  const template = await campaignTemplate(deps.templates, wabaId, input.template, input.language);
  const contactKeys = await contactKeysOfRows(deps.db.sql, input.accountId, given);
  const totalRows = given.length;
  // Consumes `given`: the rows are released as they are checked.
  const { accepted, rejected } = await validateRecipients(given, template, contactKeys);
  return { template, totalRows, accepted, rejected };
}

/**
 * Create a campaign as a draft: every row is validated before anything is sent; the accepted ones become its
 * recipients (status `queued`), the refused ones are kept with their code and message. Nothing is sent until
 * `startCampaign` names the accepted count.
 */
export async function createCampaign(
  deps: { db: Db; directory: AccountDirectory; templates: TemplateCache } & CampaignReadDeps,
  input: CreateCampaignInput,
): Promise<CampaignDetail> {
  const number = await deps.directory.resolveNumber(input.accountId, input.phoneNumberId);
  if (!number) {
    throw new ApiError("no_connected_number", {
      message: input.phoneNumberId ? `O número ${input.phoneNumberId} não está conectado a esta conta.` : undefined,
    });
  }
  const { template, totalRows, accepted, rejected } = await checkedRecipients(deps, input, number.wabaId);

  const campaignId = await inTransaction(deps.db.sql, async (client) => {
    const { rows } = await client.query<{ id: string }>({
      name: "campaign-insert",
      text: `INSERT INTO campaigns (account_id, name, phone_number_id, template_name, template_language, template_category,
          status, start_at, created_by, total_rows, accepted_recipients, rejected_rows)
        VALUES ($1::uuid, $2, $3, $4, $5, $6, 'draft', $7, $8, $9, $10, $11::jsonb) RETURNING id`,
      values: [
        input.accountId,
        input.name,
        number.phoneNumberId,
        template.name,
        template.language,
        template.category,
        input.startAt ?? null,
        input.actor,
        totalRows,
        accepted.length,
        JSON.stringify(rejected),
      ],
    });
    const id = rows[0]?.id;
    if (!id) throw new Error("campaign insert returned no id");
    for (let start = 0; start < accepted.length; start += INSERT_CHUNK)
      await insertRecipients(client, id, accepted.slice(start, start + INSERT_CHUNK));
    await recordAuditAs(client, input, "campaign.created", {
      target: `campaign:${id}`,
      details: { template: template.name, rows: totalRows, accepted: accepted.length },
    });
    return id;
  });
  return getCampaign(deps, { accountId: input.accountId, campaignId });
}

async function insertRecipients(sql: Sql, campaignId: string, rows: readonly AcceptedRecipient[]): Promise<void> {
  await sql.query({
    name: "campaign-recipients-insert",
    text: `INSERT INTO campaign_recipients (campaign_id, row_number, contact, parameters, client_ref, status)
      SELECT $1::uuid, t.row_number, t.contact, t.parameters, t.client_ref, 'queued'
      FROM unnest($2::int[], $3::text[], $4::jsonb[], $5::text[]) AS t(row_number, contact, parameters, client_ref)`,
    values: [
      campaignId,
      rows.map((r) => r.row),
      rows.map((r) => r.contact),
      rows.map((r) => (r.parameters ? JSON.stringify(r.parameters) : null)),
      rows.map((r) => r.clientRef),
    ],
  });
}
