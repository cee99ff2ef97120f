import { isRecord, nonEmptyString, shown, type JsonRecord } from "../json.ts";
import type { SandboxState, SandboxUser } from "../state.ts";
import { userOf } from "../users.ts";
import { MetaError } from "./errors.ts";

/*
 * Reactions and locations out (meta-messages.md §3.1–3.2). A reaction's send always succeeds; a target that is not
 * a message this user sent to this number in the last 30 days, or a reaction with `context`, fails afterwards with a
 * `failed` status 131009 (the sandbox's choice where Meta's wording is unverified, U#15). Only `sent` follows a
 * reaction. An `emoji` absent or "" removes the reaction.
 */

const REACTION_MAX_AGE_MS = 30 * 24 * 3_600_000;

/** Whether the reaction will fail after the send (131009). */
export function checkReaction(
  state: SandboxState,
  phoneNumberId: string,
  user: SandboxUser,
  body: JsonRecord,
): { fails: boolean } {
  const reaction = body.reaction;
  if (!isRecord(reaction) || !nonEmptyString(reaction.message_id))
    throw new MetaError(131008, "The parameter reaction['message_id'] is required.");
  if (reaction.emoji !== undefined && typeof reaction.emoji !== "string")
    throw new MetaError(100, `Param reaction['emoji'] must be a string - got ${shown(reaction.emoji)}.`);
  const target = state.inboundMessages.get(reaction.message_id);
  const valid =
    target !== undefined &&
    target.phoneNumberId === phoneNumberId &&
    userOf(state, target.user)?.key === user.key &&
    state.now() - target.atMs <= REACTION_MAX_AGE_MS;
  return { fails: !valid || body.context !== undefined };
}

/** A coordinate: a JSON number or a decimal string (Meta documents strings), within its range. */
function coordinate(value: unknown, name: string, limit: number): void {
  const number =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value)
        ? Number(value)
        : NaN;
  if (value === undefined) throw new MetaError(131008, `The parameter location['${name}'] is required.`);
  if (!Number.isFinite(number) || Math.abs(number) > limit)
    throw new MetaError(100, `Param location['${name}'] must be a number between -${limit} and ${limit}.`);
}

export function checkLocation(body: JsonRecord): void {
  const location = body.location;
  if (!isRecord(location)) throw new MetaError(131008, "The parameter location is required.");
  coordinate(location.latitude, "latitude", 90);
  coordinate(location.longitude, "longitude", 180);
  for (const key of ["name", "address"])
    if (location[key] !== undefined && typeof location[key] !== "string")
      throw new MetaError(100, `Param location['${key}'] must be a string.`);
}
