import type { Db } from "@gw/db";
import type { MetaUserRef } from "@gw/meta";
import { learnContacts } from "../../src/contacts/index.ts";

/** Learns the customer Meta names by `fields` (every identifier not given is null) for `accountId`; its contact. */
export async function learnUser(db: Db, accountId: string, fields: Partial<MetaUserRef>) {
  const user: MetaUserRef = { phone: null, bsuid: null, parentBsuid: null, username: null, name: null, ...fields };
  return (await learnContacts(db.sql, [{ accountId, user }]))[0];
}
