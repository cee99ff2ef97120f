// prisma/schema.prisma is the model; prisma/migrations/*.sql are written by hand (the Prisma CLI cannot run
// here). This test builds a database from the migrations and compares its catalogue with the schema, so a
// field without its migration, or a migration without its field, fails the suite.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { applyMigrations, MIGRATIONS_DIR } from "@gw/db";
import { createTempDatabase } from "@gw/testkit";
import {
  compareSchema,
  declaredSchema,
  describeDrift,
  readCatalogue,
  type Drift,
  type SchemaFacts,
  type SqlOnlyAllowList,
} from "./support/schema-drift.ts";

const SCHEMA_PATH = join(MIGRATIONS_DIR, "..", "schema.prisma");

/** Objects the migrations create on purpose without a schema.prisma counterpart; each must exist as described. */
const SQL_ONLY: SqlOnlyAllowList = {
  objects: [
    {
      key: "index business_numbers_one_default_per_account",
      description: "UNIQUE btree ON business_numbers (account_id) WHERE is_default",
      why: "at most one default number per account: a partial unique index, not expressible in Prisma's schema language",
    },
    {
      key: "index inbound_messages_with_content_created_at_idx",
      description:
        "btree ON inbound_messages (created_at) WHERE ((text IS NOT NULL) OR (contact_name IS NOT NULL) OR (media_id IS NOT NULL) OR (media_filename IS NOT NULL))",
      why: "retention (LGPD): only the inbound messages whose contact's text, name or media is still to be cleared, so each batch reads just those",
    },
    {
      key: "index messages_with_content_created_at_idx",
      description: "btree ON messages (created_at) WHERE (content IS NOT NULL)",
      why: "retention (LGPD): only the sends whose summary (buttons, list rows, media, location) is still to be cleared, so each batch reads just those",
    },
    {
      key: "index inbound_messages_with_details_created_at_idx",
      description: "btree ON inbound_messages (created_at) WHERE ((details IS NOT NULL) OR (media_sha256 IS NOT NULL))",
      why: "retention (LGPD): only the inbound messages whose payload-version-2 members or media checksum are still to be cleared, so each batch reads just those",
    },
    {
      key: "index contacts_with_profile_updated_at_idx",
      description: "btree ON contacts (updated_at) WHERE ((name IS NOT NULL) OR (username IS NOT NULL))",
      why: "retention (LGPD): only the contacts whose name or username is still to be cleared, so each batch reads just those",
    },
    {
      key: "index delivery_attempts_with_response_body_started_at_idx",
      description: "btree ON delivery_attempts (started_at) WHERE (response_body IS NOT NULL)",
      why: "retention: only the attempts whose integrator answer is still to be cleared, so each batch reads just those",
    },
    {
      key: "index deliveries_unsettled_ordering_key_idx",
      description:
        "btree ON deliveries (integration_id, ordering_key, id) WHERE ((ordering_key IS NOT NULL) AND (status = ANY (ARRAY['pending'::text, 'delivering'::text])))",
      why: "ordered delivery: the earliest unsettled delivery of an integration's ordering key, read by the gate and the release; only unsettled rows of ordered integrations",
    },
    {
      key: "index deliveries_pending_next_attempt_at_idx",
      description:
        "btree ON deliveries (next_attempt_at, id) WHERE ((status = 'pending'::text) AND (next_attempt_at IS NOT NULL))",
      why: "the sweep and the oldest-due metric: the queue only, in due order; its predicate keeps the claim by id off it",
    },
    {
      key: "index deliveries_pending_budget_started_at_idx",
      description:
        "btree ON deliveries (budget_started_at) WHERE ((status = 'pending'::text) AND (budget_started_at IS NOT NULL))",
      why: "the schedule's deadline: the queue only, oldest budget first",
    },
    {
      key: "index deliveries_delivering_updated_at_idx",
      description:
        "btree ON deliveries (updated_at) WHERE ((status = 'delivering'::text) AND (updated_at IS NOT NULL))",
      why: "the sweep's attempts whose worker died: the attempts in flight only; its predicate keeps the result by id off it",
    },
    {
      key: "index deliveries_settled_updated_at_idx",
      description:
        "btree ON deliveries (updated_at) WHERE ((status = ANY (ARRAY['delivered'::text, 'failed'::text])) AND (updated_at IS NOT NULL))",
      why: "retention: settled deliveries by the time they settled",
    },
    {
      key: "index orders_open_idx",
      description: "btree ON orders (account_id, id DESC) WHERE (state = 'open'::text)",
      why: "the orders list (issue 28): an account's open orders newest first; claimed and unconfirmed rows are never listed",
    },
    {
      key: "index orders_open_status_idx",
      description: "btree ON orders (account_id, order_status, id DESC) WHERE (state = 'open'::text)",
      why: "the orders list filtered by order status (issue 28)",
    },
    {
      key: "index order_messages_one_claim",
      description: "UNIQUE btree ON order_messages (order_id) WHERE (state = 'claimed'::text)",
      why: "at most one status update of an order in flight (issue 28): the second concurrent one gets 409 order_update_in_flight",
    },
    {
      key: "index inbound_messages_payment_ref_idx",
      description:
        "btree ON inbound_messages (account_id, (payment ->> 'reference_id'::text)) WHERE (payment IS NOT NULL)",
      why: "the payment-method answers of an order's reference (issue 28), read by the panel's Pedidos page",
    },
    {
      key: "constraint conversations.conversations_status_check",
      description: "CHECK (status = ANY (ARRAY['open'::text, 'closed'::text]))",
      why: "a conversation of the inbox is open or closed (issue 39)",
    },
    {
      key: "constraint conversations.conversations_handler_check",
      description: "CHECK (handler = ANY (ARRAY['bot'::text, 'human'::text]))",
      why: "a conversation is answered by the integrator's bot or by a person (issue 39)",
    },
    {
      key: "constraint conversations.conversations_thread_holder_check",
      description: "CHECK (thread_holder = ANY (ARRAY['gateway'::text, 'another_app'::text, 'released'::text]))",
      why: "Conversation Routing: a conversation's holder is one of the contract's three (the gateway, another app, released)",
    },
    {
      key: "constraint integrations.integrations_signing_secret_one_form",
      description: "CHECK ((signing_secret IS NULL) <> (signing_secret_encrypted IS NULL))",
      why: "the current signing secret in exactly one form, sealed or (a row stored before encryption) clear: a pod of the previous release cannot write a clear secret into a sealed row",
    },
    {
      key: "constraint integrations.integrations_previous_signing_secret_one_form",
      description: "CHECK (previous_signing_secret IS NULL OR previous_signing_secret_encrypted IS NULL)",
      why: "the previous signing secret in at most one form, sealed or clear",
    },
    {
      key: "constraint api_keys.api_keys_scopes_known",
      description:
        "CHECK (scopes IS NULL OR cardinality(scopes) > 0 AND scopes <@ ARRAY['messages:send'::text, 'messages:read'::text, 'orders:write'::text, 'media:write'::text, 'integrations:manage'::text, 'usage:read'::text])",
      why: "an API key holds known scopes, at least one, or none listed (every scope, issue 35); Prisma has no CHECK",
    },
    {
      key: "constraint integrations.integrations_signature_scheme_known",
      description: "CHECK (signature_scheme = ANY (ARRAY['pt'::text, 'standard-webhooks'::text]))",
      why: "an integration's webhooks are signed with one of the schemes the dispatcher knows (issue 21); Prisma has no enum over a text column here",
    },
    {
      key: "constraint integrations.integrations_payload_version_check",
      description: "CHECK (payload_version = ANY (ARRAY[1, 2]))",
      why: "an integration's message.received body is one of the payload versions the gateway renders (issue 27)",
    },
    {
      key: "constraint account_media.account_media_origin_check",
      description: "CHECK (origin = ANY (ARRAY['uploaded'::text, 'received'::text]))",
      why: "a media an account may open was either uploaded by it or received by one of its numbers (issue 27)",
    },
    {
      key: "function gw_notify_api_key_change()",
      description: "função",
      why: "announces a revoked or deleted API key (NOTIFY gw_api_key_changes) so every API pod drops it from its cache at once",
    },
    {
      key: "trigger api_keys.api_keys_notify_change",
      description:
        "CREATE TRIGGER api_keys_notify_change AFTER DELETE OR UPDATE OF revoked_at, key_hash ON api_keys FOR EACH ROW EXECUTE FUNCTION gw_notify_api_key_change()",
      why: "runs gw_notify_api_key_change on every revocation, whichever process or tool revokes the key",
    },
    ...[
      [
        "gateway_contact_key(p_account uuid, p_identifier text)",
        "the contact key an identifier (phone or BSUID) names",
      ],
      [
        "gateway_merge_contacts(p_account uuid, p_survivor text, p_absorbed text)",
        "folds two contact keys of one person into one (identifiers, windows, suppressions, messages)",
      ],
      [
        "gateway_attach_identifier(p_account uuid, p_key text, p_identifier text, p_kind text)",
        "points an identifier at a contact, merging the contact it named",
      ],
      [
        "gateway_learn_contact(p_account uuid, p_phone text, p_bsuid text, p_parent text, p_username text, p_name text)",
        "the locking form of the one below, for a pod of the previous release during a rolling update",
      ],
      [
        "gateway_learn_contact(p_account uuid, p_phone text, p_bsuid text, p_parent text, p_username text, p_name text, p_lock boolean)",
        "learns a user as a webhook names them, in the webhook's transaction (contacts/contacts.ts); a user known already is one read",
      ],
      [
        "gateway_identifiers_of(p_account uuid, p_bsuid text, p_parent text, p_phone text)",
        "a user's identifiers, each by its own probe of the primary key (never an account's whole list)",
      ],
      [
        "gateway_change_identity(p_account uuid, p_prev_phone text, p_prev_bsuid text, p_prev_parent text, p_cur_phone text, p_cur_bsuid text, p_cur_parent text, p_name text)",
        "re-keys a contact after a change of phone or of BSUID (contacts/contacts.ts)",
      ],
      [
        "gateway_conversation_handler(p_account uuid, p_phone_number_id text, p_contact text)",
        "who answers a conversation now, bot or human, a lapsed hold the bot's (conversations/handler.ts)",
      ],
      [
        "gateway_contact_in_use(p_account uuid, p_key text)",
        "whether an opt-out, message, inbound message or open window is keyed by a contact (retention keeps it)",
      ],
      [
        "gateway_forget_contacts(p_before timestamp with time zone, p_limit integer, p_after_at timestamp with time zone, p_after_account uuid, p_after_key text)",
        "retention: one batch of contacts nothing is keyed by, deleted with their identifiers (retention/retention.ts)",
      ],
    ].map(([signature, why]) => ({ key: `function ${signature ?? ""}`, description: "função", why: why ?? "" })),
  ],
  toolingTables: ["_prisma_migrations"],
};

type TempDatabase = Awaited<ReturnType<typeof createTempDatabase>>;

async function migratedDatabase(): Promise<TempDatabase> {
  const database = await createTempDatabase();
  await applyMigrations(database.url);
  return database;
}

async function execute(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const summary = (drifts: Drift[]) => drifts.map((d) => `${d.problem} ${d.key}`).sort();

describe("schema.prisma and the committed SQL migrations describe the same database", () => {
  const schemaText = readFileSync(SCHEMA_PATH, "utf8");
  const databases: TempDatabase[] = [];
  let declared: SchemaFacts;
  let actual: SchemaFacts;

  beforeAll(async () => {
    const database = await migratedDatabase();
    databases.push(database);
    declared = declaredSchema(schemaText);
    actual = await readCatalogue(database.url);
  });

  afterAll(async () => {
    await Promise.all(databases.map((d) => d.drop()));
  });

  it("finds no drift: every table, column, type, default, key, index and relation matches", () => {
    expect(compareSchema(declared, actual, SQL_ONLY).map(describeDrift)).toEqual([]);
  });

  it("maps Prisma types, defaults and relations the way Prisma's migrate writes them", () => {
    // Spot checks on both sides, so an empty or misread model cannot make the comparison pass by itself.
    const expected: Record<string, string> = {
      "column accounts.id": "uuid NOT NULL DEFAULT gen_random_uuid()",
      "column accounts.created_at": "timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP",
      "column integrations.events": "text[] NULL DEFAULT -",
      "column integrations.active": "boolean NOT NULL DEFAULT true",
      "column audit_entries.id": "bigint NOT NULL DEFAULT nextval('audit_entries_id_seq'::regclass)",
      "column audit_entries.details": "jsonb NULL DEFAULT -",
      "column messages.error_code": "integer NULL DEFAULT -",
      "column inbound_messages.from_number": "text NULL DEFAULT -",
      "column deliveries.attempt_count": "integer NOT NULL DEFAULT 0",
      "column messages.trace_context": "text NULL DEFAULT -",
      "column deliveries.trace_context": "text NULL DEFAULT -",
      "primary key contact_windows": "contact_windows_pkey (phone_number_id, contact)",
      "index integrations_account_id_url_key": "UNIQUE btree ON integrations (account_id, url)",
      "index deliveries_account_id_status_id_idx": "btree ON deliveries (account_id, status, id)",
      "foreign key delivery_attempts (delivery_id)":
        "delivery_attempts_delivery_id_fkey REFERENCES deliveries (id) ON DELETE CASCADE ON UPDATE CASCADE",
    };
    for (const [key, description] of Object.entries(expected)) {
      expect([key, declared.get(key)?.description, actual.get(key)?.description]).toEqual([
        key,
        description,
        description,
      ]);
    }
    const tables = [...declared.keys()].filter((key) => key.startsWith("table "));
    expect(tables.length).toBe(schemaText.match(/^model \w+ \{/gm)?.length);
    expect(tables.length).toBeGreaterThanOrEqual(13);
  });

  it("checks that each SQL-only object of the allow-list exists as described", () => {
    for (const object of SQL_ONLY.objects) {
      expect([object.key, actual.get(object.key)?.description]).toEqual([object.key, object.description]);
      expect(declared.has(object.key)).toBe(false);
    }
    const withoutPartialIndex = new Map(actual);
    withoutPartialIndex.delete("index business_numbers_one_default_per_account");
    expect(summary(compareSchema(declared, withoutPartialIndex, SQL_ONLY))).toEqual([
      "missing_in_database index business_numbers_one_default_per_account",
    ]);
  });

  it("reports a model field without a column, a changed field type and an index without its migration", () => {
    // Whitespace-tolerant, so `prisma format` realigning the columns does not defeat the probe.
    const edited = schemaText
      .replace(/( {2}clientRef +String\? +@map\("client_ref"\)\n)/, '$1  internalNote String? @map("internal_note")\n')
      .replace(/( {2}errorCode +)Int\?( +@map\("error_code"\))/, "$1BigInt?$2")
      .replace(/( {2}@@index\(\[accountId, createdAt\]\)\n)( {2}@@map\("messages"\))/, "$1  @@index([status])\n$2");
    expect(edited).not.toBe(schemaText);
    const drifts = compareSchema(declaredSchema(edited), actual, SQL_ONLY);
    expect(summary(drifts)).toEqual([
      "different column messages.error_code",
      "missing_in_database column messages.internal_note",
      "missing_in_database index messages_status_idx",
    ]);
    expect(drifts[0]).toMatchObject({ expected: "bigint NULL DEFAULT -", actual: "integer NULL DEFAULT -" });
  });

  it("reports columns without a field, and type, nullability, default, unique, index and foreign-key differences", async () => {
    const tampered = await migratedDatabase();
    databases.push(tampered);
    await execute(
      tampered.url,
      `
      ALTER TABLE messages DROP COLUMN client_ref;
      ALTER TABLE inbound_messages ADD COLUMN stray TEXT;
      ALTER TABLE deliveries ALTER COLUMN attempt_count TYPE BIGINT;
      ALTER TABLE early_statuses ALTER COLUMN received_at TYPE TIMESTAMPTZ(6);
      ALTER TABLE api_keys ALTER COLUMN prefix DROP NOT NULL;
      ALTER TABLE integrations ALTER COLUMN active SET DEFAULT false;
      DROP INDEX messages_wamid_key;
      CREATE INDEX messages_wamid_key ON messages (wamid);
      DROP INDEX deliveries_account_id_status_id_idx;
      ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_delivery_id_fkey;
      ALTER TABLE delivery_attempts ADD CONSTRAINT delivery_attempts_delivery_id_fkey
        FOREIGN KEY (delivery_id) REFERENCES deliveries (id) ON DELETE RESTRICT ON UPDATE CASCADE;
      DROP INDEX business_numbers_one_default_per_account;
      CREATE TABLE scratch (id INT PRIMARY KEY);
      `,
    );
    const drifts = compareSchema(declared, await readCatalogue(tampered.url), SQL_ONLY);
    expect(summary(drifts)).toEqual([
      "different column api_keys.prefix",
      "different column deliveries.attempt_count",
      "different column early_statuses.received_at",
      "different column integrations.active",
      "different foreign key delivery_attempts (delivery_id)",
      "different index messages_wamid_key",
      "missing_in_database column messages.client_ref",
      "missing_in_database index business_numbers_one_default_per_account",
      "missing_in_database index deliveries_account_id_status_id_idx",
      "missing_in_schema column inbound_messages.stray",
      "missing_in_schema column scratch.id",
      "missing_in_schema primary key scratch",
      "missing_in_schema table scratch",
    ]);
    const byKey = new Map(drifts.map((d) => [d.key, d]));
    expect(byKey.get("column early_statuses.received_at")?.actual).toBe(
      "timestamp(6) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP",
    );
    expect(byKey.get("foreign key delivery_attempts (delivery_id)")?.actual).toMatch(/ON DELETE RESTRICT/);
    expect(describeDrift(byKey.get("column messages.client_ref") as Drift)).toMatch(
      /ausente no banco migrado; falta uma migração\?$/,
    );
  });
});
