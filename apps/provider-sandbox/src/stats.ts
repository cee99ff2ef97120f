import { recent, type SandboxState, type SentMessage } from "./state.ts";

/** Per business number: what GET /_sandbox/sent/stats reports about its accepted and refused sends. */
export interface NumberStats {
  phone_number_id: string;
  /** Accepted sends still in the history. */
  sent: number;
  first_at_ms: number | null;
  last_at_ms: number | null;
  /** Most accepted sends within any `window_ms` (sliding: every window that starts at a send). */
  max_in_window: number;
  /** Contacts (users: the 9th-digit rule applied, a BSUID send counted with its user) that got more than one send. */
  repeated_contacts: number;
  /** Sends refused, by Meta code (130429, 131056...); counted since the last reset, not bounded by the history. */
  refused: Record<string, number>;
}

function maxInWindow(times: number[], windowMs: number): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < times.length; end += 1) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= windowMs) start += 1;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

function statsOf(state: SandboxState, phoneNumberId: string, sends: SentMessage[], windowMs: number): NumberStats {
  const times = sends.map((s) => s.at_ms).sort((a, b) => a - b);
  const contacts = new Map<string, number>();
  for (const send of sends) {
    // The recipient's BSUID: one per user, whichever form of its number (or its BSUID) addressed the send.
    const key = send.user_id;
    contacts.set(key, (contacts.get(key) ?? 0) + 1);
  }
  return {
    phone_number_id: phoneNumberId,
    sent: sends.length,
    first_at_ms: times[0] ?? null,
    last_at_ms: times.at(-1) ?? null,
    max_in_window: maxInWindow(times, windowMs),
    repeated_contacts: [...contacts.values()].filter((count) => count > 1).length,
    refused: Object.fromEntries(
      [...(state.refusals.get(phoneNumberId) ?? new Map<number, number>())].map(([code, n]) => [String(code), n]),
    ),
  };
}

/** Stats of every number that sent or was refused (or of `phoneNumberId` only). */
export function sentStats(state: SandboxState, windowMs: number, phoneNumberId?: string): NumberStats[] {
  const byNumber = new Map<string, SentMessage[]>();
  for (const send of recent(state.sent, state.config.historyLimit)) {
    if (phoneNumberId !== undefined && send.phone_number_id !== phoneNumberId) continue;
    const list = byNumber.get(send.phone_number_id);
    if (list) list.push(send);
    else byNumber.set(send.phone_number_id, [send]);
  }
  for (const id of state.refusals.keys()) {
    if ((phoneNumberId === undefined || id === phoneNumberId) && !byNumber.has(id)) byNumber.set(id, []);
  }
  if (phoneNumberId !== undefined && !byNumber.has(phoneNumberId)) byNumber.set(phoneNumberId, []);
  return [...byNumber].map(([id, sends]) => statsOf(state, id, sends, windowMs));
}
