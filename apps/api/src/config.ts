import { env, leaseRenewal, loadConfig, sections, z } from "@gw/config";

/**
 * OPS_PASSWORD values refused at start-up: shipped defaults and the usual guesses, compared without case,
 * punctuation or leading/trailing digits (so `Change-Me-Please!`, `admin2024` and `password1234` are refused too).
 */
const WEAK_OPS_PASSWORDS = [
  "admin",
  "administrator",
  "password",
  "passw0rd",
  "senha",
  "changeme",
  "changemeplease",
  "changeit",
  "mudar",
  "trocar",
  "default",
  "secret",
  "segredo",
  "letmein",
  "welcome",
  "qwerty",
  "qwertyuiop",
  "ops",
  "oncall",
  "root",
  "bullboard",
  "gateway",
];

/** The password reduced to what guessing depends on: lower case letters and digits, digits at the ends dropped. */
function passwordCore(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")
    .replace(/^\d+|\d+$/g, "");
}

/** A known default, a repetition of one (`adminadmin`), only digits, or the user name itself. */
export function isWeakOpsPassword(password: string, user: string | undefined): boolean {
  const core = passwordCore(password);
  const words = user ? [...WEAK_OPS_PASSWORDS, passwordCore(user)] : WEAK_OPS_PASSWORDS;
  if (core === "" || new Set(core).size <= 2) return true;
  return words.some((word) => word !== "" && core.replaceAll(word, "") === "");
}

/** An empty value (`OPS_USER=` in an env file) means unset. */
const optionalText = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

/** Every variable the API reads, parsed once at start-up (documented in .env.example). */
export const apiConfigSchema = z
  .object({
    API_HOST: z.string().default("127.0.0.1"),
    API_PORT: env.port(8080),
    /** The internal listener: /metrics and Bull Board, never on the public port (0 = no internal listener). */
    API_INTERNAL_HOST: z.string().default("127.0.0.1"),
    API_INTERNAL_PORT: env.port(8082),
    ...sections.proxy(),
    ...sections.replays(),
    ...sections.integrations(),
    ...sections.database(),
    ...sections.redis(),
    ...sections.logging(),
    ...sections.meta(),
    ...sections.sending(),
    /**
     * The key ring of stored secrets, for the integration operations that seal or open a signing secret (create,
     * update, rotate-secret). Optional: without it they answer 503 and the rest of the API runs as before.
     */
    SECRETS_KEYS: z.preprocess((v) => (v === "" ? undefined : v), sections.secrets().SECRETS_KEYS.optional()),
    /** Development only (npm start, tests): integration URLs on http:// and local addresses (the panel's switch). */
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: env.bool(false),
    META_APP_SECRET: env.secret(8),
    META_VERIFY_TOKEN: env.secret(8),

    API_RATE_LIMIT_POINTS: z.coerce.number().int().min(1).default(600),
    API_RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
    /** Refused API keys per client address per window; past it the address gets 429 before any key is looked up. */
    API_AUTH_FAILURES_PER_IP: z.coerce.number().int().min(1).default(30),
    API_AUTH_FAILURES_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
    /** How long a pod trusts an API key lookup: a revoked key stops working within this time on every pod. */
    API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
    /** Largest Meta webhook body read, in bytes (Meta's payloads stay well below 1 MB). */
    META_WEBHOOK_BODY_LIMIT_BYTES: z.coerce.number().int().min(1_024).max(10_485_760).default(3_145_728),
    /**
     * Meta webhook bodies read at once per process before their signature is checked (any well-formed header gets
     * that far): past it 503 with Retry-After, unread. At most this many × the body limit is held unverified (48 MiB
     * at the defaults).
     */
    META_WEBHOOK_MAX_UNVERIFIED: z.coerce.number().int().min(1).max(1_000).default(16),
    /** A Meta webhook body not read whole within this is answered 408 (Meta sends small bodies fast). */
    META_WEBHOOK_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    /**
     * Group commit of Meta's status webhooks (core/events/ingest.ts): most payloads applied in one transaction (1 =
     * each alone), and most such transactions at once; the webhooks that arrive meanwhile form the next batch.
     */
    META_WEBHOOK_BATCH_MAX_PAYLOADS: z.coerce.number().int().min(1).max(500).default(50),
    META_WEBHOOK_BATCH_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(50).default(2),
    /**
     * When an in-flight Idempotency-Key reservation counts as left by a dead process (default: META_TIMEOUT_MS plus
     * 60 s). A send gives up before the provider after half of it (the catalogue, checks and pacing), so a live send
     * is never taken for dead.
     */
    IDEMPOTENCY_STALE_AFTER_MS: optionalText(z.coerce.number().int().min(2_000).max(600_000)),
    /** How often journaled sends (accepted by Meta while PostgreSQL was down) are written to PostgreSQL. */
    SEND_JOURNAL_REPLAY_INTERVAL_MS: z.coerce.number().int().min(100).default(5_000),

    /**
     * Media (POST /public/v1/media, GET /public/v1/media/{media_id}): uploads in flight per pod (503 `media_busy`)
     * and per account across the pods (429 `media_upload_limit`), downloads per pod (past a short line: 503).
     */
    MEDIA_UPLOADS_PER_POD: z.coerce.number().int().min(1).max(1_000).default(16),
    MEDIA_UPLOADS_PER_ACCOUNT: z.coerce.number().int().min(1).max(1_000).default(4),
    MEDIA_DOWNLOADS_PER_POD: z.coerce.number().int().min(1).max(1_000).default(16),
    /** Downloads in flight per account across the pods (429 `media_download_limit`), taken before a pod's slot. */
    MEDIA_DOWNLOADS_PER_ACCOUNT: z.coerce.number().int().min(1).max(1_000).default(4),
    /** The longest a media transfer may take (also the API server's request time limit, and an upload's lease). */
    MEDIA_TRANSFER_TIMEOUT_MS: z.coerce.number().int().min(10_000).max(3_600_000).default(600_000),
    /** A media request whose client sends nothing for this long is cut. */
    MEDIA_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(60_000),
    /**
     * A media transfer's minimum rate: at the end of each window of MEDIA_MIN_RATE_GRACE_MS (the first one is the
     * grace period), fewer bytes moved than this rate over the window cut it (an upload: 400, a download: the
     * connection), so a trickling client cannot hold its slot and its account's turn for the whole transfer time.
     */
    MEDIA_MIN_RATE_BYTES_PER_S: z.coerce.number().int().min(1).max(104_857_600).default(4_096),
    MEDIA_MIN_RATE_GRACE_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),

    /** Bull Board at /ops/queues (internal listener) is mounted only when both are set. */
    OPS_USER: optionalText(z.string().min(1)),
    OPS_PASSWORD: optionalText(env.secret(12)),
  })
  .refine(leaseRenewal.check, leaseRenewal.params)
  // One without the other is a deployment mistake: say so at start-up instead of silently not mounting the board.
  .refine((c) => c.OPS_USER !== undefined || c.OPS_PASSWORD === undefined, {
    path: ["OPS_USER"],
    message: "obrigatória quando OPS_PASSWORD está definida",
  })
  .refine((c) => c.OPS_PASSWORD !== undefined || c.OPS_USER === undefined, {
    path: ["OPS_PASSWORD"],
    message: "obrigatória quando OPS_USER está definida",
  })
  .refine((c) => c.OPS_PASSWORD === undefined || !isWeakOpsPassword(c.OPS_PASSWORD, c.OPS_USER), {
    path: ["OPS_PASSWORD"],
    message:
      "é uma senha padrão, fácil de adivinhar ou igual a OPS_USER; use uma senha longa e aleatória (por exemplo: openssl rand -base64 24)",
  });

export type ApiConfig = z.infer<typeof apiConfigSchema>;

export function loadApiConfig(source: NodeJS.ProcessEnv = process.env): ApiConfig {
  return loadConfig(apiConfigSchema, source);
}
