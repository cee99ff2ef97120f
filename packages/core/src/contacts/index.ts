export { applyIdentityChanges, contactKeyOf, contactKeysOf, contactsByKey, learnContacts } from "./contacts.ts";
export type { ContactSighting, ContactView, IdentityChangeInput } from "./contacts.ts";
export { graphRecipient, isBsuidIdentifier, parseRecipient } from "./recipient.ts";
export type { Recipient, RecipientParse } from "./recipient.ts";
