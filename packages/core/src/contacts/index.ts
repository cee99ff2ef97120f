export { applyIdentityChanges, contactKeyOf, contactKeysOf, contactsByKey, learnContacts } from "./contacts.ts";
export type { ContactSighting, ContactView, IdentityChangeInput } from "./contacts.ts";
export { graphRecipient, isBsuidIdentifier, parseRecipient } from "./recipient.ts";
export type { Recipient, RecipientParse } from "./recipient.ts";
export { createContactKeyCache, createLearntSightings } from "./key-cache.ts";
export type { ContactKeyCache, LearntSightings } from "./key-cache.ts";
