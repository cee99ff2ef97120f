// `pnpm gateway` in a second shell beside `npm start`. scripts/start.sh keeps the key ring that seals the signing
// secrets in `.data/secrets-keys` (when SECRETS_KEYS is not set) and gives it to the processes it runs; in development
// the CLI reads the same file, so `integration set` works without exporting anything. Development means all of:
// NODE_ENV is not `production` (the image sets it), the database is on this machine (a loopback host: the CLI's
// default is npm start's), and the file is in the `.data/` of the directory the CLI runs in (`pnpm gateway` runs at
// the checkout's root). Anywhere else SECRETS_KEYS is required, as before.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Where scripts/start.sh writes its key ring, relative to the checkout. */
export const DEVELOPMENT_KEY_RING_PATH = join(".data", "secrets-keys");

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

export interface DevelopmentKeyRing {
  /** The file's content: a SECRETS_KEYS value. */
  keys: string;
  file: string;
}

/** npm start's key ring, when this run is development (above); null otherwise. */
export function findDevelopmentKeyRing(input: {
  env: NodeJS.ProcessEnv;
  cwd: string;
  databaseUrl: string;
}): DevelopmentKeyRing | null {
  if (input.env.NODE_ENV === "production") return null;
  if (!LOOPBACK_HOSTS.has(new URL(input.databaseUrl).hostname)) return null;
  const file = join(input.cwd, DEVELOPMENT_KEY_RING_PATH);
  let keys: string;
  try {
    keys = readFileSync(file, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  return keys === "" ? null : { keys, file };
}
