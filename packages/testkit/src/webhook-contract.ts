// The message.received data members as the contract (spec 4) lists them, written out here so that tests compare the
// bodies the gateway builds with the contract itself rather than with the code that builds them.

/** Version 1's 15 members, in the contract's order: a version-1 body has exactly these. */
export const MESSAGE_RECEIVED_V1_KEYS: readonly string[] = [
  "message_id",
  "from",
  "from_user_id",
  "from_parent_user_id",
  "from_username",
  "phone_number_id",
  "type",
  "text",
  "media_id",
  "media_mime",
  "media_filename",
  "reply_to_message_id",
  "contact_name",
  "occurred_at",
  "window_expires_at",
];

/** The members version 2 appends after version 1's, in order, with their values when none applies. */
export const MESSAGE_RECEIVED_V2_NONE: Readonly<{
  interactive: null;
  button: null;
  location: null;
  contacts: null;
  reaction: null;
  referral: null;
  forwarded: boolean;
  frequently_forwarded: boolean;
  media_sha256: null;
  media_voice: null;
}> = {
  interactive: null,
  button: null,
  location: null,
  contacts: null,
  reaction: null,
  referral: null,
  forwarded: false,
  frequently_forwarded: false,
  media_sha256: null,
  media_voice: null,
};
