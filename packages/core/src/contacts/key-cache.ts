import { LRUCache } from "lru-cache";

/**
 * The contact keys a process saw its recipients' identifiers name (each send's statement reads one), per account. The
 * number's pacing spaces out a recipient by its person (131056), and a send takes its turn before the statement that
 * reads the key: it asks here. A key it does not know, or one changed since by a merge, only means the identifier
 * itself is asked for (the key of most identifiers): pacing is a courtesy, and Meta's own 131056 the backstop.
 */
export interface ContactKeyCache {
  get(accountId: string, identifier: string): string | undefined;
  remember(accountId: string, identifier: string, contactKey: string): void;
}

export function createContactKeyCache(max = 50_000): ContactKeyCache {
  const keys = new LRUCache<string, string>({ max });
  const entry = (accountId: string, identifier: string) => `${accountId}:${identifier}`;
  return {
    get: (accountId, identifier) => keys.get(entry(accountId, identifier)),
    remember(accountId, identifier, contactKey) {
      // The identifier is its own key (most): nothing to remember.
      if (contactKey === identifier) keys.delete(entry(accountId, identifier));
      else keys.set(entry(accountId, identifier), contactKey);
    },
  };
}

/**
 * The users a process learnt lately (a status's phone and BSUID, a contact card), by what they named. Meta repeats a
 * recipient's pair on every status of a message (sent, delivered, read): once learnt and committed, the repeats teach
 * nothing, and the ingestion skips them for a while. Learning is idempotent, so a user learnt again after the entry
 * expired (or by another pod) costs only the work this saves.
 */
export interface LearntSightings {
  known(id: string): boolean;
  /** After the commit that learnt them. */
  remember(ids: readonly string[]): void;
}

export function createLearntSightings(options: { max?: number; ttlMs?: number } = {}): LearntSightings {
  const learnt = new LRUCache<string, true>({ max: options.max ?? 100_000, ttl: options.ttlMs ?? 600_000 });
  return {
    known: (id) => learnt.has(id),
    remember(ids) {
      for (const id of ids) learnt.set(id, true);
    },
  };
}
