import { randomBytes } from "node:crypto";

/**
 * A wamid shaped like Meta's: `wamid.` + base64 of a small protobuf-like record holding the contact's number
 * and 18 random upper-case hex characters (decoding Meta's example gives the same layout).
 */
export function newWamid(waId: string): string {
  const phone = Buffer.from(waId.slice(0, 32), "ascii");
  const random = Buffer.from(randomBytes(9).toString("hex").toUpperCase(), "ascii");
  const record = Buffer.concat([
    Buffer.from([0x1c, 0x18, phone.length]),
    phone,
    Buffer.from([0x15, 0x02, 0x00, 0x11, 0x18, random.length]),
    random,
    Buffer.from([0x00]),
  ]);
  return `wamid.${record.toString("base64")}`;
}

/** Meta's media ids are long decimal strings. */
export function newMediaId(): string {
  return (BigInt(`0x${randomBytes(7).toString("hex")}`) + 1_000_000_000_000_000n).toString();
}

/** A fake but stable display number for a phone_number_id (the sandbox has no phone registry). */
export function displayPhoneNumber(phoneNumberId: string): string {
  const digits = phoneNumberId.replace(/\D/g, "");
  return `1555${digits.slice(-7).padStart(7, "0")}`;
}
