import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";
import { SecretUnreadableError, type SecretBox, type SecretPlace } from "@gw/signer";
import {
  ReservationLostError,
  createIdempotencyStore,
  fingerprint,
  type IdempotencyStore,
} from "../idempotency/idempotency.ts";
import { settleInTransaction } from "../idempotency/settle.ts";
import { setIntegration, type IntegrationInput, type IntegrationSummary } from "./accounts.ts";

/**
 * What an Idempotency-Key of `POST /integrations` keeps (issue 35, item 2): the created integration as the first
 * answer showed it, and its signing secret sealed with the key ring, bound to the account and the key. A repeat with
 * the key and the same request gets that answer again, secret included, until the key expires; the purge of expired
 * keys deletes the sealed secret with its row.
 */
export interface IntegrationCreated {
  kind: "integration_created";
  integration: IntegrationSummary;
  sealed_signing_secret: string;
}

/** A key settled without an outcome of ours (never written by this module): answered as 503, never re-created. */
type Unreadable = { kind: "unreadable" };
export type CreationOutcome = IntegrationCreated | Unreadable;

const UNREADABLE: Unreadable = { kind: "unreadable" };

/**
 * The Idempotency-Keys of integration creations: the sends' table and rules (spec 4.1: in flight, conflict, a dead
 * owner's reservation freed), their own outcome. `owner` is the process's lease, as for the sends.
 */
export function createIntegrationKeys(
  db: Db,
  options: { ttlHours: number; staleAfterMs: number; owner?: string },
): IdempotencyStore<CreationOutcome> {
  return createIdempotencyStore<CreationOutcome>(db, { ...options, unconfirmed: UNREADABLE });
}

/** Where the sealed secret of a key's answer is bound: the account's key (an account id is a UUID, no `:` in it). */
function answerPlace(accountId: string, key: string): SecretPlace {
  return { table: "idempotency_keys", id: `${accountId}:${key}`, field: "signing_secret" };
}

export type CreationInput = Omit<IntegrationInput, "integrationId" | "onlyNew" | "withinTransaction"> & {
  /** The request's Idempotency-Key; absent, a repeat of a lost answer gets `url_taken`. */
  idempotencyKey?: string | undefined;
};

/**
 * Creates the account's integration for a URL it does not have yet (`url_taken` otherwise), as the public API's POST
 * does. With an Idempotency-Key, the key is reserved first and completed in the creation's own transaction, so the
 * row and the key's answer commit together or not at all: a repeat with the same key and request gets the first
 * answer (`replayed`), one with another request `idempotency_conflict`, one while the first runs
 * `idempotency_in_flight`; a refused creation frees the key.
 */
export async function createIntegration(
  deps: Parameters<typeof setIntegration>[0] & { keys: IdempotencyStore<CreationOutcome>; logger?: Logger },
  input: CreationInput,
): Promise<{ integration: IntegrationSummary & { signing_secret: string }; replayed: boolean }> {
  const { idempotencyKey, ...creation } = input;
  if (idempotencyKey === undefined)
    return { integration: await setIntegration(deps, { ...creation, onlyNew: true }), replayed: false };

  // The request as the service reads it, named by its operation: a send's key repeated here is a conflict.
  const requested = fingerprint({
    operation: "integrations.create",
    url: creation.url,
    events: creation.events,
    active: creation.active ?? true,
    deliver_in_order: creation.deliverInOrder ?? false,
    signature_scheme: creation.signatureScheme ?? "pt",
    payload_version: creation.payloadVersion ?? 1,
  });
  const place = answerPlace(creation.accountId, idempotencyKey);
  const reservation = await deps.keys.reserve({
    accountId: creation.accountId,
    key: idempotencyKey,
    fingerprint: requested,
    requestId: creation.actor.requestId ?? null,
  });
  if (reservation.kind === "replay")
    return { integration: replayOf(deps.secrets, place, reservation.outcome), replayed: true };

  try {
    const integration = await setIntegration(deps, {
      ...creation,
      onlyNew: true,
      withinTransaction: async (tx, created) => {
        const { signing_secret: secret, ...summary } = created;
        const outcome: IntegrationCreated = {
          kind: "integration_created",
          integration: summary,
          sealed_signing_secret: deps.secrets.seal(secret, place),
        };
        if (!(await settleInTransaction(tx, reservation.id, outcome))) throw new ReservationLostError(reservation.id);
      },
    });
    return { integration, replayed: false };
  } catch (error) {
    // Nothing was created: the key is free for the repeat (a release that fails leaves it to the stale rules).
    await deps.keys
      .release(reservation.id)
      .catch((releaseError: unknown) =>
        deps.logger?.warn("integration creation key not released", { error: String(releaseError) }),
      );
    // A repeat took the reservation for a dead one's meanwhile: the creation was rolled back; ask again shortly.
    if (error instanceof ReservationLostError) throw new ApiError("idempotency_in_flight", { retryAfterSeconds: 1 });
    throw error;
  }
}

/** The first answer again, its secret opened from the key's row. */
function replayOf(
  secrets: Pick<SecretBox, "open">,
  place: SecretPlace,
  outcome: CreationOutcome,
): IntegrationSummary & { signing_secret: string } {
  const unreadable = new ApiError("service_unavailable", {
    message:
      "A resposta guardada para esta Idempotency-Key não pôde ser lida (a chave de SECRETS_KEYS que a cifrou foi removida); nada foi criado de novo. Consulte GET /public/v1/integrations e, se preciso, troque o segredo com rotate-secret.",
  });
  if (outcome.kind !== "integration_created") throw unreadable;
  try {
    return { ...outcome.integration, signing_secret: secrets.open(outcome.sealed_signing_secret, place) };
  } catch (error) {
    if (error instanceof SecretUnreadableError) throw unreadable;
    throw error;
  }
}
