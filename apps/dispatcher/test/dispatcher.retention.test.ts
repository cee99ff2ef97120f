import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ConfigError } from "@gw/config";
import { eventually, isolatedDatabase } from "@gw/testkit";
import { loadDispatcherConfig } from "../src/index.ts";
import { retentionDays } from "../src/retention.ts";
import { REQUIRED_SETTINGS, metricsOf, openBed, sample, type DispatcherBed } from "./support.ts";

let bed: DispatcherBed;

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
});

afterAll(async () => {
  await bed.close();
});

async function count(table: string): Promise<number> {
  const { rows } = await bed.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]?.n ?? 0;
}

describe("dispatcher retention", () => {
  it("purges rows past their retention at start, counts them by table and reports the oldest parked status", async () => {
    const sql = bed.db.sql;
    await sql.query(`INSERT INTO provider_events (body, payload_hash, received_at, processed_at) VALUES
      ('velho', 'h1', now() - interval '31 days', now() - interval '31 days'),
      ('recente', 'h2', now() - interval '29 days', now() - interval '29 days')`);
    await sql.query(`INSERT INTO early_statuses (wamid, payload, received_at) VALUES
      ('wamid.velho', '{}', now() - interval '8 days'),
      ('wamid.estacionado', '{}', now() - interval '2 hours')`);
    await sql.query(`INSERT INTO audit_entries (actor, action, created_at) VALUES
      ('cli', 'velha', now() - interval '11 days'), ('cli', 'recente', now() - interval '9 days')`);

    // Defaults for provider events (30 days) and early statuses (7 days); audit shortened, inbound disabled.
    const dispatcher = await bed.startDispatcher({
      AUDIT_RETENTION_DAYS: "10",
      INBOUND_RETENTION_DAYS: "0",
      INBOUND_TEXT_RETENTION_DAYS: "0",
    });

    await eventually(async () => (await count("provider_events")) === 1 && (await count("audit_entries")) === 1, {
      what: "the retention run at start",
    });
    expect(await count("early_statuses")).toBe(1);

    const text = await eventually(
      async () => {
        const body = await metricsOf(dispatcher);
        return sample(body, 'gw_retention_purged_total{table="audit_entries"}') === 1 ? body : null;
      },
      { what: "the purge counted" },
    );
    expect(sample(text, 'gw_retention_purged_total{table="provider_events"}')).toBe(1);
    expect(sample(text, 'gw_retention_purged_total{table="early_statuses"}')).toBe(1);
    // Enabled purges that removed nothing are reported at 0; disabled ones not at all.
    expect(sample(text, 'gw_retention_purged_total{table="deliveries.delivered"}')).toBe(0);
    expect(text).not.toContain('table="inbound_messages"');
    const age = sample(text, "gw_early_status_oldest_age_seconds");
    expect(age).toBeGreaterThanOrEqual(7_200);
    expect(age).toBeLessThan(7_260);

    // At scrape time: once the status is gone the gauge says 0.
    await bed.db.sql.query(`DELETE FROM early_statuses`);
    expect(sample(await metricsOf(dispatcher), "gw_early_status_oldest_age_seconds")).toBe(0);
  });
});

describe("retention configuration", () => {
  const base = REQUIRED_SETTINGS;

  it("has documented defaults, hourly", () => {
    expect(loadDispatcherConfig(base)).toMatchObject({
      RETENTION_INTERVAL_MS: 3_600_000,
      RETENTION_BATCH_SIZE: 1_000,
      PROVIDER_EVENTS_RETENTION_DAYS: 30,
      ATTEMPT_BODY_RETENTION_DAYS: 30,
      DELIVERIES_RETENTION_DAYS: 90,
      FAILED_DELIVERIES_RETENTION_DAYS: 90,
      EARLY_STATUS_RETENTION_DAYS: 7,
      INBOUND_TEXT_RETENTION_DAYS: 30,
      INBOUND_RETENTION_DAYS: 90,
      AUDIT_RETENTION_DAYS: 365,
    });
  });

  it("keeps contacts by the rule of their inbound messages: display data with the content, the contact with the rows", () => {
    expect(retentionDays(loadDispatcherConfig(base))).toMatchObject({
      "inbound_messages.content": 30,
      "contacts.profile": 30,
      inbound_messages: 90,
      contacts: 90,
    });
    const days = retentionDays(
      loadDispatcherConfig({ ...base, INBOUND_TEXT_RETENTION_DAYS: "10", INBOUND_RETENTION_DAYS: "0" }),
    );
    expect(days).toMatchObject({ "contacts.profile": 10, contacts: 0 });
  });

  it("gives each kind of personal data its rule: payment answers and received media with the content, orders their own", () => {
    expect(loadDispatcherConfig(base)).toMatchObject({ ORDER_RETENTION_DAYS: 90 });
    expect(retentionDays(loadDispatcherConfig(base))).toMatchObject({
      "inbound_messages.payment": 30,
      "account_media.received": 30,
      orders: 90,
    });
    expect(
      retentionDays(loadDispatcherConfig({ ...base, INBOUND_TEXT_RETENTION_DAYS: "3", ORDER_RETENTION_DAYS: "0" })),
    ).toMatchObject({ "inbound_messages.payment": 3, "account_media.received": 3, orders: 0 });
  });

  it("takes 0 as keep for ever", () => {
    expect(loadDispatcherConfig({ ...base, AUDIT_RETENTION_DAYS: "0", INBOUND_RETENTION_DAYS: "0" })).toMatchObject({
      AUDIT_RETENTION_DAYS: 0,
      INBOUND_RETENTION_DAYS: 0,
    });
  });

  it.each([
    ["PROVIDER_EVENTS_RETENTION_DAYS", "3"],
    ["INBOUND_RETENTION_DAYS", "6"],
    ["AUDIT_RETENTION_DAYS", "-1"],
    ["EARLY_STATUS_RETENTION_DAYS", "1.5"],
    ["RETENTION_BATCH_SIZE", "0"],
  ])("refuses %s=%s, naming it", (name, value) => {
    expect(() => loadDispatcherConfig({ ...base, [name]: value })).toThrow(ConfigError);
    expect(() => loadDispatcherConfig({ ...base, [name]: value })).toThrow(name);
  });
});
