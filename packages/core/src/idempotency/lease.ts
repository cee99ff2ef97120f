import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Sql } from "@gw/db";
import type { Logger } from "@gw/logger";

/**
 * A process's lease (`process_leases`): every process that reserves Idempotency-Keys (the API, the campaign worker)
 * holds one, renews it every few seconds and records its owner id on the reservations it makes. The expiry is set
 * by the database's clock, so every pod reads it the same way. A lease that has expired, or is gone (deleted on a
 * graceful shutdown, or long expired and purged), means its process is dead: a repeat with one of its keys settles
 * the key at once instead of waiting for the reservation's stale bound (idempotency.ts).
 */
export interface ProcessLease {
  /** The id recorded as the owner of this process's reservations (a random UUID, one per process start). */
  readonly owner: string;
  /**
   * Takes the lease now and renews it every `renewEveryMs` until `stop`, also through a database outage (failed
   * renewals are retried sooner). Its timers never keep the process alive.
   */
  start(): void;
  /** One renewal now: true when the lease was written. */
  renew(): Promise<boolean>;
  /**
   * Stops renewing and deletes the lease (graceful shutdown, after the sends in flight ended): a repeat with a key
   * this process still held settles at once. A lease that cannot be deleted expires by itself.
   */
  stop(): Promise<void>;
}

export interface ProcessLeaseOptions {
  /** Which process holds it (`api`, `campaign-worker`), for whoever reads the table. */
  service: string;
  /** How long a renewal keeps the lease (from the database's now). */
  ttlMs: number;
  /** How often it is renewed: well within the TTL, so a renewal or two may fail without the lease lapsing. */
  renewEveryMs: number;
  logger: Logger;
  /** The host name recorded with the lease (the pod's name); os.hostname() by default. */
  host?: string;
}

/** A failed renewal is tried again this soon (or at the renewal interval, if shorter): the lease is at stake. */
const RETRY_FAILED_RENEWAL_MS = 500;
/** Leases expired longer ago than this are deleted when a process starts (their keys see the owner as gone). */
const PURGE_EXPIRED_AFTER = "1 hour";

export function createProcessLease(sql: Sql, options: ProcessLeaseOptions): ProcessLease {
  const owner = randomUUID();
  const host = options.host ?? hostname();
  const { logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let renewing: Promise<boolean> | null = null;
  let started = false;
  let stopped: Promise<void> | null = null;
  let failing = false;

  async function write(): Promise<boolean> {
    try {
      // Upsert: a lease that lapsed (the database was out of reach longer than the TTL) is taken again; reservations
      // settled meanwhile by repeats stay settled, and the guards of idempotency.ts keep this process from sending
      // them twice.
      await sql.query({
        name: "process-lease-renew",
        text: `INSERT INTO process_leases (owner, service, host, expires_at)
          VALUES ($1::uuid, $2, $3, now() + make_interval(secs => $4 / 1000.0))
          ON CONFLICT (owner) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
        values: [owner, options.service, host, options.ttlMs],
      });
      if (failing) logger.info("process lease renewed again", { owner });
      failing = false;
      return true;
    } catch (error) {
      if (!failing)
        logger.warn("process lease renewal failed; trying again", { owner, error: (error as Error).message });
      failing = true;
      return false;
    }
  }

  function renew(): Promise<boolean> {
    if (stopped) return Promise.resolve(false);
    // One renewal at a time: a slow one is not overtaken by the next.
    renewing ??= write().finally(() => {
      renewing = null;
    });
    return renewing;
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      void renew().then((written) =>
        schedule(written ? options.renewEveryMs : Math.min(RETRY_FAILED_RENEWAL_MS, options.renewEveryMs)),
      );
    }, delayMs);
    timer.unref();
  }

  return {
    owner,
    start() {
      if (started) return;
      started = true;
      void renew().then((written) => {
        schedule(written ? options.renewEveryMs : Math.min(RETRY_FAILED_RENEWAL_MS, options.renewEveryMs));
        if (written) logger.info("process lease taken", { owner, service: options.service, ttlMs: options.ttlMs });
        // Long-dead processes' leases; any process may do it, and a key whose owner's lease is gone is settleable.
        if (written)
          sql
            .query({
              name: "process-lease-purge",
              text: `DELETE FROM process_leases WHERE expires_at < now() - interval '${PURGE_EXPIRED_AFTER}'`,
            })
            .catch((error: unknown) =>
              logger.warn("could not delete expired process leases", { error: (error as Error).message }),
            );
      });
    },
    renew,
    stop() {
      stopped ??= (async () => {
        if (timer) clearTimeout(timer);
        timer = undefined;
        // A renewal in flight must not write the lease back after its deletion.
        await renewing;
        try {
          await sql.query({
            name: "process-lease-delete",
            text: `DELETE FROM process_leases WHERE owner = $1::uuid`,
            values: [owner],
          });
        } catch (error) {
          logger.warn("could not delete the process lease; it expires by itself", {
            owner,
            error: (error as Error).message,
          });
        }
      })();
      return stopped;
    },
  };
}
