import { inTransaction, type Db, type Sql } from "@gw/db";
import type { CampaignRecipientIn, CampaignStatus, RecipientOutcome } from "@gw/contracts";
import { ApiError } from "@gw/errors";
import type { CampaignWake } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import type { MetaTemplate } from "@gw/meta";
import type { AccountDirectory } from "../accounts/directory.ts";
import { auditAction, recordAudit, type Actor } from "../audit/audit.ts";
import { contactKeysOf } from "../contacts/contacts.ts";
import { accountDisabledError } from "../health/blocks.ts";
import { findTemplate } from "../templates/find.ts";
import { templateShape } from "../templates/shape.ts";
import type { TemplateCache } from "../templates/cache.ts";
import type { NumberThroughput } from "../throughput/throughput.ts";
import { saoPauloDay, SEND_DAY_SQL } from "../pricing/days.ts";
import { formatBrlUnits } from "../pricing/money.ts";
import {
  FALLBACK_CATEGORY,
  loadRateCard,
  priceMessages,
  rateCardOf,
  rateCategoryOf,
  type RateCard,
} from "../pricing/rate-card.ts";
import type { CsvSource } from "../csv/read.ts";
import { RFC_CSV, csvHeader, csvLine, type CsvDialect } from "../csv/write.ts";
import {
  rowsFromCsv,
  rowsFromList,
  recipientIdentifiers,
  validateRecipients,
  type AcceptedRecipient,
  type GivenRow,
  type RejectedRow,
} from "./recipients.ts";

/** The account a campaign service acts on, and who acts (audited as `<origin>.campaign.<verb>`). */
export interface CampaignActor {
  accountId: string;
  actor: Actor;
}

export type CampaignProgress = Record<RecipientOutcome, number>;

/**
 * What the campaign would cost if every accepted recipient were charged once at the rate of the template's category
 * (the rate card's, on the day it starts): an upper bound. Meta charges only delivered messages, lowers utility and
 * authentication rates by volume tier, and until 30 Sep 2026 did not charge utility templates inside an open
 * customer-service window.
 */
export interface CampaignCostEstimate {
  currency: "BRL";
  amount_brl: string;
  rate_brl: string;
  /** The pricing category whose rate was used: the template's, or marketing when the card has no rate for it. */
  category: string;
  recipients: number;
}

/** What the campaign's messages cost so far, as Meta priced them in their status webhooks (the cost ledger's way). */
export interface CampaignRunningCost {
  currency: "BRL";
  amount_brl: string;
  /** Messages Meta reported a pricing for; of them those charged (`type` regular, not failed) and those failed. */
  priced_messages: number;
  charged_messages: number;
  failed_messages: number;
  /** Charged messages of a category without a rate, estimated at the marketing rate. */
  fallback_messages: number;
}

export interface CampaignView {
  id: string;
  name: string;
  status: CampaignStatus;
  phone_number_id: string;
  template: string;
  language: string;
  template_category: string | null;
  start_at: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  cancelled_at: string | null;
  /** Why the gateway paused it by itself (a health event from Meta); null when a person paused it or not paused. */
  pause_reason: string | null;
  total_rows: number;
  accepted_recipients: number;
  rejected_count: number;
  progress: CampaignProgress;
  rate_per_second: number;
  eta_seconds: number | null;
  estimated_completion_at: string | null;
  estimated_cost: CampaignCostEstimate;
}

export interface CampaignDetail extends CampaignView {
  rejected_rows: RejectedRow[];
  running_cost: CampaignRunningCost;
}

export interface RecipientView {
  id: number;
  row: number;
  to: string;
  client_ref: string | null;
  status: RecipientOutcome;
  message_id: string | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  updated_at: string;
}

/** Puts a campaign's tick job in the queue (the worker's sweep does it anyway within its interval). */
export type CampaignWaker = (campaigns: readonly CampaignWake[]) => Promise<void>;

export interface CampaignReadDeps {
  db: Db;
  /** For the rate in force (a number backing off after 130429); the configured rate without it. */
  throughput?: NumberThroughput | undefined;
}

export interface CampaignControlDeps extends CampaignReadDeps {
  logger: Logger;
  wake?: CampaignWaker | undefined;
}

const EMPTY_PROGRESS: CampaignProgress = {
  queued: 0,
  sending: 0,
  sent: 0,
  delivered: 0,
  read: 0,
  failed: 0,
  skipped: 0,
  cancelled: 0,
};

/**
 * A recipient's outcome: its own status, and once sent, its message's (joined as `m` by wamid), so delivered and
 * read come from the provider's statuses. Used by progress, the recipient list and the export alike.
 */
const OUTCOME_SQL = `CASE WHEN r.status = 'sent' THEN CASE m.status WHEN 'read' THEN 'read' WHEN 'delivered' THEN 'delivered'
  WHEN 'failed' THEN 'failed' ELSE 'sent' END ELSE r.status END`;
const ERROR_CODE_SQL = `CASE WHEN r.status = 'sent' AND m.status = 'failed' THEN m.error_reason ELSE r.error_code END`;
const ERROR_MESSAGE_SQL = `CASE WHEN r.status = 'sent' AND m.status = 'failed' THEN m.error_message ELSE r.error_message END`;

interface CampaignRow {
  id: string;
  account_id: string;
  name: string;
  status: CampaignStatus;
  phone_number_id: string;
  template_name: string;
  template_language: string;
  template_category: string | null;
  start_at: Date | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
  pause_reason: string | null;
  total_rows: number;
  accepted_recipients: number;
  rejected_count: number;
  rate: number | null;
}

const CAMPAIGN_COLUMNS = `c.id, c.account_id, c.name, c.status, c.phone_number_id, c.template_name, c.template_language,
  c.template_category, c.start_at, c.created_at, c.started_at, c.completed_at, c.cancelled_at, c.pause_reason,
  c.total_rows, c.accepted_recipients, COALESCE(jsonb_array_length(c.rejected_rows), 0) AS rejected_count,
  b.messaging_rate_per_second AS rate`;
const CAMPAIGN_FROM = `campaigns c LEFT JOIN business_numbers b ON b.phone_number_id = c.phone_number_id`;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function notFound(): ApiError {
  return new ApiError("not_found", { message: "A campanha não foi encontrada nesta conta." });
}

async function progressOf(sql: Sql, campaignIds: readonly string[]): Promise<Map<string, CampaignProgress>> {
  const { rows } = await sql.query<{ campaign_id: string; outcome: RecipientOutcome; count: number }>({
    name: "campaign-progress",
    text: `SELECT r.campaign_id, ${OUTCOME_SQL} AS outcome, count(*)::int AS count
      FROM campaign_recipients r LEFT JOIN messages m ON m.wamid = r.wamid
      WHERE r.campaign_id = ANY($1::uuid[]) GROUP BY 1, 2`,
    values: [campaignIds],
  });
  const progress = new Map<string, CampaignProgress>();
  for (const row of rows) {
    const counts = progress.get(row.campaign_id) ?? { ...EMPTY_PROGRESS };
    counts[row.outcome] += row.count;
    progress.set(row.campaign_id, counts);
  }
  return progress;
}

interface PricedOutcomeRow {
  outcome: RecipientOutcome;
  /** Null for a recipient whose message has no pricing (not sent yet, or not priced by Meta yet). */
  day: string | null;
  category: string | null;
  type: string | null;
  count: number;
}

/**
 * One campaign's progress and the pricing of its messages, in one pass over its recipients (the detail's query;
 * the list keeps `progressOf`, which reads no pricing).
 */
async function pricedProgressOf(
  sql: Sql,
  card: RateCard,
  campaignId: string,
): Promise<{ progress: CampaignProgress; running: CampaignRunningCost }> {
  const { rows } = await sql.query<PricedOutcomeRow>({
    name: "campaign-progress-priced",
    text: `SELECT ${OUTCOME_SQL} AS outcome, CASE WHEN m.pricing IS NULL THEN NULL ELSE ${SEND_DAY_SQL}::text END AS day,
        m.pricing->>'category' AS category, m.pricing->>'type' AS type, count(*)::int AS count
      FROM campaign_recipients r LEFT JOIN messages m ON m.wamid = r.wamid
      WHERE r.campaign_id = $1::uuid GROUP BY 1, 2, 3, 4`,
    values: [campaignId],
  });
  const progress = { ...EMPTY_PROGRESS };
  const sums = { priced: 0, charged: 0, failed: 0, costUnits: 0, fallback: 0 };
  for (const row of rows) {
    progress[row.outcome] += row.count;
    if (row.day === null) continue;
    // A sent recipient's outcome is its message's status: `failed` here is a message that failed after its pricing.
    const priced = priceMessages(card, {
      day: row.day,
      category: row.category,
      type: row.type,
      messages: row.count,
      failed: row.outcome === "failed" ? row.count : 0,
    });
    sums.priced += priced.messages;
    sums.charged += priced.charged;
    sums.failed += priced.failed;
    sums.costUnits += priced.costUnits;
    sums.fallback += priced.fallback;
  }
  return {
    progress,
    running: {
      currency: "BRL",
      amount_brl: formatBrlUnits(sums.costUnits),
      priced_messages: sums.priced,
      charged_messages: sums.charged,
      failed_messages: sums.failed,
      fallback_messages: sums.fallback,
    },
  };
}

/** The estimate of `row` with `card`, at the rates of the day it started (or will start). */
function estimateOf(card: RateCard, row: CampaignRow, now: number): CampaignCostEstimate {
  const day = saoPauloDay(row.started_at ?? row.start_at ?? new Date(now));
  const templateCategory = row.template_category ? rateCategoryOf(row.template_category.toLowerCase()) : null;
  const own = templateCategory ? card.rateOn(templateCategory, day) : null;
  const rate = own ?? card.rateOn(FALLBACK_CATEGORY, day);
  const units = rate?.units ?? 0;
  return {
    currency: "BRL",
    amount_brl: formatBrlUnits(units * row.accepted_recipients),
    rate_brl: formatBrlUnits(units),
    category: own && templateCategory ? templateCategory : FALLBACK_CATEGORY,
    recipients: row.accepted_recipients,
  };
}

async function rateFactor(deps: CampaignReadDeps, phoneNumberId: string): Promise<number> {
  if (!deps.throughput) return 1;
  try {
    return (await deps.throughput.state(phoneNumberId)).factor;
  } catch {
    return 1;
  }
}

/**
 * Views of campaigns of one account. `known` carries what the caller already read (the detail's progress, read with
 * its pricing, and the account's rate card).
 */
async function toViews(
  deps: CampaignReadDeps,
  rows: readonly CampaignRow[],
  known: { progress?: Map<string, CampaignProgress>; card?: RateCard } = {},
): Promise<CampaignView[]> {
  const accountId = rows[0]?.account_id;
  const [progress, card] = await Promise.all([
    known.progress ??
      progressOf(
        deps.db.sql,
        rows.map((row) => row.id),
      ),
    known.card ?? (accountId ? loadRateCard(deps.db.sql, { accountId }) : Promise.resolve(rateCardOf([]))),
  ]);
  const factors = new Map<string, number>();
  for (const row of rows)
    if (!factors.has(row.phone_number_id))
      factors.set(row.phone_number_id, await rateFactor(deps, row.phone_number_id));
  const now = Date.now();
  return rows.map((row) => {
    const counts = progress.get(row.id) ?? { ...EMPTY_PROGRESS };
    const headroom = deps.throughput?.policy.headroom ?? 0;
    const rate = Math.max(0.1, (row.rate ?? 0) * (factors.get(row.phone_number_id) ?? 1) * (1 - headroom));
    const remaining = counts.queued + counts.sending;
    const live =
      row.status === "running" || row.status === "scheduled" || row.status === "paused" || row.status === "draft";
    const eta = live && remaining > 0 ? Math.ceil(remaining / rate) : null;
    const from = row.status === "scheduled" && row.start_at ? Math.max(now, row.start_at.getTime()) : now;
    return {
      id: row.id,
      name: row.name,
      status: row.status,
      phone_number_id: row.phone_number_id,
      template: row.template_name,
      language: row.template_language,
      template_category: row.template_category,
      start_at: iso(row.start_at),
      created_at: row.created_at.toISOString(),
      started_at: iso(row.started_at),
      completed_at: iso(row.completed_at),
      cancelled_at: iso(row.cancelled_at),
      pause_reason: row.status === "paused" ? row.pause_reason : null,
      total_rows: row.total_rows,
      accepted_recipients: row.accepted_recipients,
      rejected_count: row.rejected_count,
      progress: counts,
      rate_per_second: Math.round(rate * 100) / 100,
      eta_seconds: eta,
      estimated_completion_at:
        eta !== null && (row.status === "running" || row.status === "scheduled")
          ? new Date(from + eta * 1000).toISOString()
          : null,
      estimated_cost: estimateOf(card, row, now),
    };
  });
}

async function loadCampaign(db: Db, accountId: string, campaignId: string): Promise<CampaignRow | null> {
  const { rows } = await db.sql.query<CampaignRow>({
    name: "campaign-by-id",
    text: `SELECT ${CAMPAIGN_COLUMNS} FROM ${CAMPAIGN_FROM} WHERE c.id = $1::uuid AND c.account_id = $2::uuid`,
    values: [campaignId, accountId],
  });
  return rows[0] ?? null;
}

/** A campaign with its progress, ETA, estimated and running cost, and the rows its validation refused. */
export async function getCampaign(
  deps: CampaignReadDeps,
  input: { accountId: string; campaignId: string },
): Promise<CampaignDetail> {
  const row = await loadCampaign(deps.db, input.accountId, input.campaignId);
  if (!row) throw notFound();
  const card = await loadRateCard(deps.db.sql, { accountId: row.account_id });
  const { progress, running } = await pricedProgressOf(deps.db.sql, card, row.id);
  const [view] = await toViews(deps, [row], { progress: new Map([[row.id, progress]]), card });
  const { rows } = await deps.db.sql.query<{ rejected: RejectedRow[] | null }>({
    name: "campaign-rejected-rows",
    text: `SELECT rejected_rows AS rejected FROM campaigns WHERE id = $1::uuid`,
    values: [row.id],
  });
  if (!view) throw notFound();
  return { ...view, rejected_rows: rows[0]?.rejected ?? [], running_cost: running };
}

/**
 * The account's campaigns, newest first, only those in `status` when given; `beforeId` is the previous page's
 * `next_before_id`.
 */
export async function listCampaigns(
  deps: CampaignReadDeps,
  input: { accountId: string; limit: number; beforeId?: string | undefined; status?: CampaignStatus | undefined },
): Promise<{ campaigns: CampaignView[]; next_before_id: string | null }> {
  const limit = Math.min(Math.max(Math.trunc(input.limit), 1), 200);
  const { rows } = await deps.db.sql.query<CampaignRow>({
    name: "campaigns-list",
    text: `SELECT ${CAMPAIGN_COLUMNS} FROM ${CAMPAIGN_FROM}
      WHERE c.account_id = $1::uuid AND ($4::text IS NULL OR c.status = $4)
        AND ($2::uuid IS NULL OR (c.created_at, c.id) < (SELECT created_at, id FROM campaigns WHERE id = $2::uuid AND account_id = $1::uuid))
      ORDER BY c.created_at DESC, c.id DESC LIMIT $3`,
    values: [input.accountId, input.beforeId ?? null, limit + 1, input.status ?? null],
  });
  const page = rows.slice(0, limit);
  return {
    campaigns: await toViews(deps, page),
    next_before_id: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
  };
}

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
    await recordAudit(client, {
      accountId: input.accountId,
      actor: input.actor,
      action: auditAction(input.actor, "campaign.created"),
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

type Verb = "start" | "pause" | "resume" | "cancel";

const VERB_WORDS: Record<Verb, { participle: string; done: string }> = {
  start: { participle: "iniciada", done: "started" },
  pause: { participle: "pausada", done: "paused" },
  resume: { participle: "retomada", done: "resumed" },
  cancel: { participle: "cancelada", done: "cancelled" },
};

const STATUS_WORDS: Record<CampaignStatus, string> = {
  draft: "em rascunho",
  scheduled: "agendada",
  running: "em andamento",
  paused: "pausada",
  completed: "concluída",
  cancelled: "cancelada",
};

/** From which statuses each control applies. */
const ALLOWED_FROM: Record<Verb, readonly CampaignStatus[]> = {
  start: ["draft"],
  pause: ["running", "scheduled"],
  resume: ["paused"],
  cancel: ["draft", "scheduled", "running", "paused"],
};

// One statement per control: the status changes only from an allowed one, so two controls at once cannot both win.
// A start (or resume) goes to `scheduled` while start_at is ahead, else to `running`. A pause keeps its reason ($3:
// the gateway's own, null for a person's); any other control clears it.
const TRANSITION_SQL: Record<Verb, string> = {
  start: `UPDATE campaigns SET status = CASE WHEN start_at > now() THEN 'scheduled' ELSE 'running' END,
      started_at = CASE WHEN start_at > now() THEN NULL ELSE now() END, pause_reason = NULL, updated_at = now()
    WHERE id = $1::uuid AND account_id = $2::uuid AND status = 'draft' RETURNING status, start_at`,
  pause: `UPDATE campaigns SET status = 'paused', pause_reason = $3, updated_at = now()
    WHERE id = $1::uuid AND account_id = $2::uuid AND status IN ('running', 'scheduled') RETURNING status, start_at`,
  resume: `UPDATE campaigns SET status = CASE WHEN start_at > now() THEN 'scheduled' ELSE 'running' END,
      started_at = CASE WHEN start_at > now() THEN started_at ELSE COALESCE(started_at, now()) END,
      pause_reason = NULL, updated_at = now()
    WHERE id = $1::uuid AND account_id = $2::uuid AND status = 'paused' RETURNING status, start_at`,
  cancel: `UPDATE campaigns SET status = 'cancelled', cancelled_at = now(), pause_reason = NULL, updated_at = now()
    WHERE id = $1::uuid AND account_id = $2::uuid AND status IN ('draft', 'scheduled', 'running', 'paused')
    RETURNING status, start_at`,
};

interface TransitionInput extends CampaignActor {
  campaignId: string;
  /** The status the campaign had when the control was asked (the audit entry's `from`). */
  from: CampaignStatus;
  /** Pause only: why the gateway paused it by itself. */
  reason?: string | null | undefined;
  /** Added to the audit entry's details. */
  details?: Record<string, string> | undefined;
}

/**
 * One control inside the caller's transaction: the status change (only from an allowed status) and its audit entry
 * `<origin>.campaign.<done>`. Null when the campaign was not in a status the control applies to.
 */
async function transition(
  sql: Sql,
  verb: Verb,
  input: TransitionInput,
): Promise<{ status: CampaignStatus; start_at: Date | null } | null> {
  const { rows } = await sql.query<{ status: CampaignStatus; start_at: Date | null }>({
    name: `campaign-${verb}`,
    text: TRANSITION_SQL[verb],
    values:
      verb === "pause"
        ? [input.campaignId, input.accountId, input.reason ?? null]
        : [input.campaignId, input.accountId],
  });
  const row = rows[0];
  if (!row) return null;
  // Recipients not reserved yet are cancelled with the campaign; one being sent finishes its send.
  if (verb === "cancel")
    await sql.query({
      name: "campaign-cancel-recipients",
      text: `UPDATE campaign_recipients SET status = 'cancelled', updated_at = now()
        WHERE campaign_id = $1::uuid AND status = 'queued'`,
      values: [input.campaignId],
    });
  await recordAudit(sql, {
    accountId: input.accountId,
    actor: input.actor,
    action: auditAction(input.actor, `campaign.${VERB_WORDS[verb].done}`),
    target: `campaign:${input.campaignId}`,
    details: {
      from: input.from,
      to: row.status,
      ...(input.reason ? { reason: input.reason } : {}),
      ...input.details,
    },
  });
  return row;
}

/** Why a campaign from this number cannot start or resume now: Meta banned or disconnected its WABA. */
async function blockedNumberRefusal(db: Db, accountId: string, phoneNumberId: string): Promise<ApiError | null> {
  const { rows } = await db.sql.query<{ waba_id: string; sending_blocked_at: Date; sending_block_reason: string }>({
    name: "campaign-number-sending-block",
    text: `SELECT h.waba_id, h.sending_blocked_at, h.sending_block_reason FROM business_numbers n
      JOIN waba_health h ON h.account_id = n.account_id AND h.waba_id = n.waba_id AND h.sending_blocked_at IS NOT NULL
      WHERE n.account_id = $1::uuid AND n.phone_number_id = $2`,
    values: [accountId, phoneNumberId],
  });
  const row = rows[0];
  if (!row) return null;
  return accountDisabledError({ wabaId: row.waba_id, since: row.sending_blocked_at, reason: row.sending_block_reason });
}

async function control(
  deps: CampaignControlDeps,
  verb: Verb,
  input: CampaignActor & { campaignId: string; acceptedRecipients?: number },
): Promise<CampaignDetail> {
  const current = await loadCampaign(deps.db, input.accountId, input.campaignId);
  if (!current) throw notFound();
  if (verb === "start") {
    if (current.status === "draft" && current.accepted_recipients === 0) throw new ApiError("campaign_empty");
    if (current.status === "draft" && input.acceptedRecipients !== current.accepted_recipients)
      throw new ApiError("campaign_count_mismatch", {
        message: `A campanha tem ${current.accepted_recipients} destinatários aceitos, não ${input.acceptedRecipients ?? 0}; confira o relatório de validação e repita com accepted_recipients igual a ${current.accepted_recipients}.`,
      });
  }
  // Every send would be refused (account_disabled): the campaign stays as it is until Meta lifts the block.
  if ((verb === "start" && current.status === "draft") || (verb === "resume" && current.status === "paused")) {
    const blocked = await blockedNumberRefusal(deps.db, input.accountId, current.phone_number_id);
    if (blocked) throw blocked;
  }
  const changed = await inTransaction(deps.db.sql, (client) =>
    transition(client, verb, { ...input, from: current.status }),
  );
  if (!changed) {
    const now = await loadCampaign(deps.db, input.accountId, input.campaignId);
    if (!now) throw notFound();
    throw new ApiError("campaign_state_conflict", {
      message: `A campanha está ${STATUS_WORDS[now.status]} e não pode ser ${VERB_WORDS[verb].participle}${
        ALLOWED_FROM[verb].length > 0
          ? ` (só quando ${ALLOWED_FROM[verb].map((s) => STATUS_WORDS[s]).join(" ou ")})`
          : ""
      }.`,
    });
  }
  // Running or scheduled (or cancelled with sends to settle): give it its tick now rather than at the next sweep.
  if (deps.wake && changed.status !== "paused") {
    const at = changed.status === "scheduled" && changed.start_at ? changed.start_at : undefined;
    await deps.wake([{ campaignId: input.campaignId, at }]).catch((error: unknown) =>
      deps.logger.warn("campaign not queued; the worker's sweep will pick it up", {
        campaignId: input.campaignId,
        error: (error as Error).message,
      }),
    );
  }
  return getCampaign(deps, input);
}

/**
 * The gateway pausing campaigns by itself (Meta reported a quality drop, a restriction or a ban), inside the
 * caller's transaction: every running or scheduled campaign of the account sending from one of `phoneNumberIds`
 * goes through the same pause as a person's, with `reason` kept and shown. Returns the ids paused. The worker sees
 * the status within its poll (CAMPAIGN statusPollMs) and stops claiming recipients.
 */
export async function pauseCampaignsOfNumbers(
  sql: Sql,
  input: CampaignActor & { phoneNumberIds: readonly string[]; reason: string; details?: Record<string, string> },
): Promise<string[]> {
  if (input.phoneNumberIds.length === 0) return [];
  const { rows } = await sql.query<{ id: string; status: CampaignStatus }>({
    name: "campaigns-to-pause-of-numbers",
    text: `SELECT id::text, status FROM campaigns
      WHERE account_id = $1::uuid AND phone_number_id = ANY($2::text[]) AND status IN ('running', 'scheduled')
      ORDER BY created_at, id FOR UPDATE`,
    values: [input.accountId, [...input.phoneNumberIds]],
  });
  const paused: string[] = [];
  for (const row of rows) {
    const done = await transition(sql, "pause", {
      accountId: input.accountId,
      actor: input.actor,
      campaignId: row.id,
      from: row.status,
      reason: input.reason,
      details: input.details,
    });
    if (done) paused.push(row.id);
  }
  return paused;
}

/** Start a draft: only with the accepted recipient count its validation reported (`campaign_count_mismatch`). */
export function startCampaign(
  deps: CampaignControlDeps,
  input: CampaignActor & { campaignId: string; acceptedRecipients: number },
): Promise<CampaignDetail> {
  return control(deps, "start", input);
}

/** Stop sending: recipients being sent finish, the others wait. */
export function pauseCampaign(deps: CampaignControlDeps, input: CampaignActor & { campaignId: string }) {
  return control(deps, "pause", input);
}

export function resumeCampaign(deps: CampaignControlDeps, input: CampaignActor & { campaignId: string }) {
  return control(deps, "resume", input);
}

/** Cancel for good: recipients not yet reserved become `cancelled`. */
export function cancelCampaign(deps: CampaignControlDeps, input: CampaignActor & { campaignId: string }) {
  return control(deps, "cancel", input);
}

interface RecipientRow {
  id: string;
  row_number: number;
  contact: string;
  client_ref: string | null;
  outcome: RecipientOutcome;
  wamid: string | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  updated_at: Date;
}

const RECIPIENTS_PAGE = `SELECT r.id, r.row_number, r.contact, r.client_ref, ${OUTCOME_SQL} AS outcome, r.wamid,
    ${ERROR_CODE_SQL} AS error_code, ${ERROR_MESSAGE_SQL} AS error_message, r.attempts, GREATEST(r.updated_at, m.status_at) AS updated_at
  FROM campaign_recipients r LEFT JOIN messages m ON m.wamid = r.wamid
  WHERE r.campaign_id = $1::uuid AND r.id > $2 AND ($3::text IS NULL OR ${OUTCOME_SQL} = $3)
  ORDER BY r.id LIMIT $4`;

function toRecipientView(row: RecipientRow): RecipientView {
  return {
    id: Number(row.id),
    row: row.row_number,
    to: row.contact,
    client_ref: row.client_ref,
    status: row.outcome,
    message_id: row.wamid,
    error_code: row.error_code,
    error_message: row.error_message,
    attempts: row.attempts,
    updated_at: row.updated_at.toISOString(),
  };
}

async function recipientsPage(
  db: Db,
  campaignId: string,
  afterId: number,
  status: RecipientOutcome | null,
  limit: number,
): Promise<RecipientRow[]> {
  const { rows } = await db.sql.query<RecipientRow>({
    name: "campaign-recipients-page",
    text: RECIPIENTS_PAGE,
    values: [campaignId, afterId, status, limit],
  });
  return rows;
}

async function ensureCampaign(db: Db, accountId: string, campaignId: string): Promise<void> {
  const { rowCount } = await db.sql.query({
    name: "campaign-exists",
    text: `SELECT 1 FROM campaigns WHERE id = $1::uuid AND account_id = $2::uuid`,
    values: [campaignId, accountId],
  });
  if (rowCount !== 1) throw notFound();
}

/** Each recipient's outcome with its error code, in list order; `afterId` is the previous page's `next_after_id`. */
export async function listCampaignRecipients(
  deps: { db: Db },
  input: {
    accountId: string;
    campaignId: string;
    status?: RecipientOutcome | undefined;
    limit: number;
    afterId?: number | undefined;
  },
): Promise<{ recipients: RecipientView[]; next_after_id: number | null }> {
  await ensureCampaign(deps.db, input.accountId, input.campaignId);
  const limit = Math.min(Math.max(Math.trunc(input.limit), 1), 1000);
  const rows = await recipientsPage(deps.db, input.campaignId, input.afterId ?? 0, input.status ?? null, limit + 1);
  const page = rows.slice(0, limit).map(toRecipientView);
  return { recipients: page, next_after_id: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
}

export const RECIPIENT_EXPORT_COLUMNS = [
  "row",
  "to",
  "client_ref",
  "status",
  "message_id",
  "error_code",
  "error_message",
  "attempts",
  "updated_at",
] as const;

/**
 * The outcome list as CSV lines (header first), read in pages so a 100 000-recipient campaign is never in memory
 * at once. The campaign is looked up before the first line, so a missing one fails before anything is written; the
 * export is audited then (`<origin>.campaign.exported`: the list holds the recipients' numbers).
 */
export async function exportCampaignRecipients(
  deps: { db: Db },
  input: CampaignActor & {
    campaignId: string;
    /** How the lines are written: the API's RFC 4180 by default, `SPREADSHEET_CSV` for the panel. */
    dialect?: CsvDialect;
    pageSize?: number;
  },
): Promise<AsyncIterable<string>> {
  await ensureCampaign(deps.db, input.accountId, input.campaignId);
  await recordAudit(deps.db.sql, {
    accountId: input.accountId,
    actor: input.actor,
    action: auditAction(input.actor, "campaign.exported"),
    target: `campaign:${input.campaignId}`,
  });
  const pageSize = input.pageSize ?? 5_000;
  const dialect = input.dialect ?? RFC_CSV;
  return (async function* lines() {
    yield csvHeader(RECIPIENT_EXPORT_COLUMNS, dialect);
    let afterId = 0;
    for (;;) {
      const rows = await recipientsPage(deps.db, input.campaignId, afterId, null, pageSize);
      if (rows.length === 0) return;
      yield rows
        .map(toRecipientView)
        .map((r) =>
          csvLine(
            [
              r.row,
              r.to,
              r.client_ref,
              r.status,
              r.message_id,
              r.error_code,
              r.error_message,
              r.attempts,
              r.updated_at,
            ],
            dialect,
          ),
        )
        .join("");
      const last = rows.at(-1);
      if (!last || rows.length < pageSize) return;
      afterId = Number(last.id);
    }
  })();
}
