import { z } from "zod";

export { z };

/** Thrown at start-up when the environment does not satisfy an app's schema. */
export class ConfigError extends Error {
  constructor(
    readonly variables: string[],
    message: string,
  ) {
    super(message);
    this.name = "ConfigError";
  }
}

/**
 * Parse `env` with an app's schema, once, at start-up. The error names every bad variable and why,
 * and never echoes the value (it may be a secret).
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const name = issue.path.join(".") || "(ambiente)";
    const reason = issue.code === "invalid_type" && env[name] === undefined ? "obrigatória e ausente" : issue.message;
    return { name, text: `  ${name}: ${reason}` };
  });
  return fail(lines);
}

function fail(lines: { name: string; text: string }[]): never {
  const names = [...new Set(lines.map((l) => l.name))];
  throw new ConfigError(names, `Configuração inválida (${names.join(", ")}):\n${lines.map((l) => l.text).join("\n")}`);
}

const PORT = z.coerce.number().int().min(0).max(65535);

const KEY_RING_FORMAT = "id:chave-base64,id:chave-base64 (a primeira cifra, todas decifram)";
const NEW_KEY_HINT = "gere uma com: openssl rand -base64 32";
/** The example key `.env.example` shows ("example-key-do-not-use-anywhere!"): refused everywhere. */
const EXAMPLE_SECRETS_KEY = Buffer.from("ZXhhbXBsZS1rZXktZG8tbm90LXVzZS1hbnl3aGVyZSE=", "base64");

/** Reusable variable schemas, so every app spells the same variable the same way. */
export const env = {
  port: (fallback: number) => PORT.default(fallback),
  postgresUrl: () =>
    z.string({ error: "obrigatória e ausente" }).refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === "postgresql:" || url.protocol === "postgres:") && url.hostname !== "";
      } catch {
        return false;
      }
    }, "deve ser uma URL postgresql://usuario@host:porta/banco"),
  redisUrl: () =>
    z.string({ error: "obrigatória e ausente" }).refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === "redis:" || url.protocol === "rediss:") && url.hostname !== "";
      } catch {
        return false;
      }
    }, "deve ser uma URL redis://host:porta"),
  httpUrl: () =>
    z.string({ error: "obrigatória e ausente" }).refine((value) => {
      try {
        const url = new URL(value);
        return url.protocol === "http:" || url.protocol === "https:";
      } catch {
        return false;
      }
    }, "deve ser uma URL http(s)://"),
  secret: (minLength = 8) =>
    z.string({ error: "obrigatória e ausente" }).min(minLength, `deve ter ao menos ${minLength} caracteres`),
  logLevel: () => z.enum(["error", "warn", "info", "http", "debug"]).default("info"),
  bool: (fallback: boolean) =>
    z
      .enum(["true", "false", "1", "0"])
      .default(fallback ? "true" : "false")
      .transform((v) => v === "true" || v === "1"),
  /** Comma-separated `host:port` list (empty or unset: none), e.g. Redis Sentinels. */
  hostPortList: () =>
    z
      .string()
      .default("")
      .transform((value, ctx) => {
        const items = value
          .split(",")
          .map((item) => item.trim())
          .filter(Boolean)
          .map((item) => {
            const match = /^(.+):(\d{1,5})$/.exec(item);
            const port = Number(match?.[2] ?? 0);
            return match?.[1] && port > 0 && port <= 65535 ? { host: match[1].replace(/^\[|\]$/g, ""), port } : null;
          });
        if (items.some((item) => item === null)) {
          ctx.addIssue({ code: "custom", message: "deve ser uma lista host:porta separada por vírgula" });
          return z.NEVER;
        }
        return items as { host: string; port: number }[];
      }),
  /**
   * The key ring of stored secrets: `id:base64,id:base64,...`, each key 32 random bytes; the first encrypts, every one
   * decrypts. Parsed to `{ id, key }` in order. Refuses the example key of `.env.example` and keys that are not random.
   */
  keyRing: () =>
    z.string({ error: "obrigatória e ausente" }).transform((value, ctx) => {
      const fail = (message: string) => {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      };
      const entries = value
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean);
      if (entries.length === 0) return fail(`defina ao menos uma chave (${KEY_RING_FORMAT})`);
      const keys: { id: string; key: Buffer }[] = [];
      for (const entry of entries) {
        const colon = entry.indexOf(":");
        const id = entry.slice(0, colon);
        const encoded = entry.slice(colon + 1);
        // The value is never echoed; the id is not secret.
        if (colon < 0 || !/^[A-Za-z0-9_-]{1,32}$/.test(id))
          return fail(`cada chave deve ter a forma ${KEY_RING_FORMAT}; o id tem letras, dígitos, _ ou - (até 32)`);
        const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded) ? Buffer.from(encoded, "base64") : Buffer.alloc(0);
        if (key.length !== 32) return fail(`a chave ${id} deve ter 32 bytes em base64 (${NEW_KEY_HINT})`);
        if (keys.some((k) => k.id === id)) return fail(`o id ${id} aparece mais de uma vez`);
        if (key.equals(EXAMPLE_SECRETS_KEY))
          return fail(`a chave ${id} é a de exemplo do .env.example (${NEW_KEY_HINT})`);
        // 32 random bytes hold about 30 distinct values; fewer than 16 is a pattern or a text, not a key.
        if (new Set(key).size < 16) return fail(`a chave ${id} não parece aleatória (${NEW_KEY_HINT})`);
        keys.push({ id, key });
      }
      return keys;
    }),
  /** Comma-separated list of positive integers, e.g. a retry schedule in milliseconds. */
  intList: (fallback: number[]) =>
    z
      .string()
      .default(fallback.join(","))
      .transform((value, ctx) => {
        const items = value.split(",").map((s) => Number(s.trim()));
        if (items.some((n) => !Number.isInteger(n) || n < 0)) {
          ctx.addIssue({ code: "custom", message: "deve ser uma lista de inteiros separados por vírgula" });
          return z.NEVER;
        }
        return items;
      }),
};

/**
 * The configuration sections several apps read, each variable spelled once; an app composes the ones it needs with
 * its own (`z.object({ ...sections.database(), ...sections.redis(), ...ownVariables })`). `.env.example` has one
 * section per entry here, checked against it by a drift test.
 */
export const sections = {
  /** PostgreSQL, the source of truth. `poolSize`: the app's default connections per process. */
  database: (poolSize = 10) => ({
    DATABASE_URL: env.postgresUrl(),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(poolSize),
    /**
     * The session connection for LISTEN (API-key revocations), when DATABASE_URL goes through a transaction pooler
     * such as PgBouncer, where LISTEN does not work: straight to PostgreSQL. Unset: DATABASE_URL.
     */
    DATABASE_LISTEN_URL: z.preprocess((value) => (value === "" ? undefined : value), env.postgresUrl().optional()),
  }),
  /** Redis (BullMQ, caches, rate limits) and the key namespace of the environment. */
  redis: () => ({
    REDIS_URL: env.redisUrl(),
    REDIS_KEY_PREFIX: z.string().min(1).default("gw"),
    /**
     * Sentinels (`host:port,host:port`) watching the primary named REDIS_SENTINEL_MASTER: connections ask them for
     * the current primary and follow a failover. REDIS_URL then gives only the password and database index.
     */
    REDIS_SENTINELS: env.hostPortList(),
    REDIS_SENTINEL_MASTER: z.string().min(1).default("mymaster"),
    /**
     * The Sentinels' own credentials (their `requirepass`, or an ACL user's; not the primary's, which REDIS_URL
     * carries) and TLS to them. Unset: Sentinels without a password, in clear text. Anyone who can talk to an open
     * Sentinel can point every pod at another primary.
     */
    REDIS_SENTINEL_USERNAME: z.preprocess((value) => (value === "" ? undefined : value), z.string().optional()),
    REDIS_SENTINEL_PASSWORD: z.preprocess((value) => (value === "" ? undefined : value), env.secret(8).optional()),
    REDIS_SENTINEL_TLS: env.bool(false),
  }),
  /**
   * Logs, and traces: with an OTLP/HTTP endpoint every process exports its spans there (@gw/process, @gw/tracing);
   * empty, none is exported and `traceparent` is still propagated. The exporter's other standard variables
   * (OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT...) are read by it as OpenTelemetry defines them.
   */
  logging: () => ({
    LOG_LEVEL: env.logLevel(),
    OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess((value) => (value === "" ? undefined : value), env.httpUrl().optional()),
  }),
  /** Meta's Graph API as a client calls it (sends, templates, media, numbers). */
  meta: () => ({
    META_BASE_URL: env.httpUrl().default("http://127.0.0.1:8090"),
    META_API_VERSION: z
      .string()
      .regex(/^v\d+\.\d+$/, "deve ter a forma v23.0")
      .default("v23.0"),
    META_ACCESS_TOKEN: env.secret(8),
    META_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
    /** Templates per page when reading the catalogue (Meta's `limit`). */
    META_TEMPLATES_PAGE_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
    /** Seconds a template catalogue read from Meta is reused. */
    TEMPLATE_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).default(60),
  }),
  /** The send service (the public API's sends and the campaign worker's): keys, number cache, pacing. */
  sending: () => ({
    /** How long a pod trusts a business number lookup (numbers change rarely; a new one works at once). */
    NUMBER_CACHE_TTL_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
    IDEMPOTENCY_TTL_HOURS: z.coerce.number().int().min(24).default(48),
    /** Retry-After (seconds) answered when the provider throttles; Meta does not send one. */
    PROVIDER_RETRY_AFTER_SECONDS: z.coerce.number().int().min(1).default(30),
    /** After a 130429, each quiet period of this length gives the number back a quarter of its rate. */
    THROUGHPUT_COOLDOWN_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
    /** After a 131056, the recipient gets nothing from the number for this long. */
    THROUGHPUT_PAIR_SPACING_MS: z.coerce.number().int().min(100).max(3_600_000).default(6_000),
    /**
     * The lease of a process that reserves Idempotency-Keys: once it has run out (the process died), a repeat with
     * one of its keys settles at once. Renewed every PROCESS_LEASE_RENEW_MS, at most half the TTL (`leaseRenewal`).
     */
    PROCESS_LEASE_TTL_MS: z.coerce.number().int().min(1_000).max(120_000).default(6_000),
    PROCESS_LEASE_RENEW_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
    /** Group commit of accepted sends: most sends recorded in one transaction (1 = each alone). */
    SEND_COMMIT_BATCH_MAX: z.coerce.number().int().min(1).max(500).default(50),
    /** Group commit of accepted sends: most such transactions at once; sends accepted meanwhile form the next one. */
    SEND_COMMIT_BATCH_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(50).default(2),
  }),
  /**
   * The key ring that encrypts the secrets stored in PostgreSQL (integrations' signing secrets): the dispatcher signs
   * with them, the panel, the API and the CLI create, reveal and rotate them. No default: a process without it does not start.
   */
  secrets: () => ({ SECRETS_KEYS: env.keyRing() }),
  /** Proxies in front of an HTTP app whose X-Forwarded-For is believed (0: the socket's address). */
  proxy: () => ({ TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0) }),
  /**
   * Endpoint health: an integration whose every attempt failed for this long is disabled (its deliveries wait until
   * it is re-enabled by hand); 0 never disables. Default 5 days, as Svix.
   */
  endpointHealth: () => ({
    WEBHOOK_DISABLE_AFTER_FAILING_MS: z.coerce.number().int().min(0).max(31_536_000_000).default(432_000_000),
  }),
  /** Replays of deliveries by time range (issue 21): a budget per account, shared by the API and the panel. */
  replays: () => ({
    REPLAYS_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(10),
    REPLAYS_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3_600),
  }),
  /**
   * Webhook integrations (issue 35): the most an account may have, whoever creates them (API, panel, CLI). Each is a
   * delivery per event written in the provider webhook's transaction.
   */
  integrations: () => ({
    MAX_INTEGRATIONS_PER_ACCOUNT: z.coerce.number().int().min(1).max(1_000).default(10),
  }),
};

/**
 * The sending section's one rule across its variables, for the schemas that compose it
 * (`.refine(leaseRenewal.check, leaseRenewal.params)`): a lease is renewed at least twice within its TTL, so one
 * failed renewal never lets a live process's lease run out.
 */
export const leaseRenewal = {
  check: (c: { PROCESS_LEASE_TTL_MS: number; PROCESS_LEASE_RENEW_MS: number }) =>
    c.PROCESS_LEASE_RENEW_MS * 2 <= c.PROCESS_LEASE_TTL_MS,
  params: {
    path: ["PROCESS_LEASE_RENEW_MS"],
    message:
      "deve ser no máximo metade de PROCESS_LEASE_TTL_MS (a concessão é renovada ao menos duas vezes antes de expirar)",
  },
};

/** Where `.env.example` documents each section (several sections may share one heading). */
export const SECTION_HEADINGS: Record<keyof typeof sections, string> = {
  database: "shared (API, dispatcher, panel, campaign worker, CLI)",
  redis: "shared (API, dispatcher, panel, campaign worker, CLI)",
  logging: "shared (API, dispatcher, panel, campaign worker, CLI)",
  meta: "Meta Graph API (API, panel, campaign worker)",
  sending: "sending (API, campaign worker)",
  proxy: "proxies (API, panel)",
  secrets: "stored secrets (API, dispatcher, panel, CLI)",
  endpointHealth: "endpoint health (dispatcher, panel)",
  replays: "delivery replays (API, panel)",
  integrations: "integrations (API, panel, CLI)",
};

/** The parsed values of one or more shared sections: what a service that reads them takes. */
export type SectionValues<K extends keyof typeof sections> = z.output<z.ZodObject<ReturnType<(typeof sections)[K]>>>;
