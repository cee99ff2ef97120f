// The CLI's run, apart from the process it runs in (main.ts): `runCli(argv, io)` reads the command line and the
// environment from its arguments and writes to `io`, so the tests run help, usage errors and commands in process
// (a spawned `pnpm gateway` costs seconds of start-up per call on a loaded machine). Returns the exit code.
import { ConfigError, env, loadConfig, sections, z } from "@gw/config";
import type { CliDeps } from "./commands.ts";
import { findDevelopmentKeyRing, isDevelopmentDatabase } from "./dev-key-ring.ts";
import { chooseFormat, redactSecrets, renderFailure, renderResult, type Failure } from "./output.ts";
import { parseInvocation, requestedFormat, UsageError } from "./spec.ts";

/**
 * Where a run writes, the environment it reads, and the directory it runs in (process.stdout, process.stderr,
 * process.env and process.cwd() in main.ts): in development, its `.data/` holds npm start's key ring.
 */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const configSchema = z.object({
  // Defaults point at the local stack of `npm start` (scripts/stack.sh).
  DATABASE_URL: env.postgresUrl().default("postgresql://postgres@127.0.0.1:55432/gateway"),
  ...sections.redis(),
  // Optional here: only `delivery retry` needs Redis.
  REDIS_URL: sections.redis().REDIS_URL.optional(),
  // Development only (npm start, tests): `integration set` then accepts http:// and local addresses.
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: env.bool(false),
  // Optional here: only the commands that store or show signing secrets need it (`integration`, `secrets`).
  SECRETS_KEYS: z.preprocess((v) => (v === "" ? undefined : v), sections.secrets().SECRETS_KEYS.optional()),
  // The deployment's cap on integrations per account, as the API and the panel read it.
  ...sections.integrations(),
});

/**
 * The configuration of `io.env`; without SECRETS_KEYS, in development (dev-key-ring.ts), npm start's key ring and,
 * unless WEBHOOK_ALLOW_PRIVATE_NETWORKS says otherwise, its loopback receivers, as start.sh gives both to the
 * dispatcher and the panel. `developmentRing` is then the file read: runCli uses this configuration only once the
 * database has shown npm start's mark.
 */
function loadCliConfig(io: CliIo): { config: z.infer<typeof configSchema>; developmentRing: string | null } {
  const config = loadConfig(configSchema, io.env);
  if (config.SECRETS_KEYS) return { config, developmentRing: null };
  const ring = findDevelopmentKeyRing({ env: io.env, cwd: io.cwd });
  if (ring === null) return { config, developmentRing: null };
  try {
    const development = loadConfig(configSchema, {
      ...io.env,
      SECRETS_KEYS: ring.keys,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: io.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? "true",
    });
    return { config: development, developmentRing: ring.file };
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(error.variables, `${ring.file}: ${error.message}`);
    throw error;
  }
}

/** Why npm start's key ring was not used against a database without its mark, and what to do (exit 2). */
function notDevelopmentDatabase(ringFile: string): ConfigError {
  return new ConfigError(
    ["SECRETS_KEYS"],
    "SECRETS_KEYS não definida e o banco de DATABASE_URL não tem a marca de desenvolvimento que o npm start grava no " +
      `banco local (um túnel para 127.0.0.1 não o torna local): as chaves de ${ringFile} não foram usadas e nada foi ` +
      "alterado, pois um segredo cifrado com elas não abriria no dispatcher desse banco. Defina SECRETS_KEYS com as " +
      "chaves desse banco, as mesmas do dispatcher e do painel dele (ou NODE_ENV=production, para um comando sem " +
      "segredos); se este é o banco do npm start, rode o npm start de novo para marcá-lo.",
  );
}

function failure(error: unknown): Failure {
  if (error instanceof UsageError) return { message: error.message, exitCode: 2, helpFor: error.command ?? "" };
  if (error instanceof ConfigError) return { message: error.message, exitCode: 2 };
  // Library errors (Prisma's) put a code frame first and the reason on the last line.
  const message =
    error instanceof Error ? (error.message.split("\n").filter(Boolean).at(-1) ?? error.message) : String(error);
  return { message, exitCode: 1 };
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const format = chooseFormat(requestedFormat(argv), io.stdout.isTTY === true);
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const invocation = parseInvocation(argv);
    if (invocation.kind === "help") {
      io.stdout.write(invocation.text);
      return 0;
    }
    const { config, developmentRing } = loadCliConfig(io);
    // Loaded only now: help and usage errors need neither the database nor the services.
    const { createDb } = await import("@gw/db");
    const { execute, integrationPolicy } = await import("./commands.ts");
    const { createSecretBox } = await import("@gw/core/accounts");
    const db = createDb({ url: config.DATABASE_URL, poolSize: 2 });
    cleanups.push(() => db.$disconnect());
    // Before any command runs: the ring and the lowered URL policy are npm start's, for npm start's database only.
    if (developmentRing !== null && !(await isDevelopmentDatabase(db.sql)))
      throw notDevelopmentDatabase(developmentRing);
    const deps: CliDeps = {
      db,
      integrationPolicy: integrationPolicy(config.WEBHOOK_ALLOW_PRIVATE_NETWORKS),
      maxIntegrationsPerAccount: config.MAX_INTEGRATIONS_PER_ACCOUNT,
    };
    if (config.SECRETS_KEYS) deps.secrets = createSecretBox(config.SECRETS_KEYS);
    if (developmentRing !== null) {
      deps.onSecretsUsed = () => {
        const notice =
          `SECRETS_KEYS não definida: usando as chaves de desenvolvimento do npm start (${developmentRing}). ` +
          "Em produção (NODE_ENV=production) a variável é obrigatória.";
        io.stderr.write(format === "json" ? `${JSON.stringify({ notice })}\n` : `aviso: ${notice}\n`);
      };
    }
    if (config.REDIS_URL) {
      const redisTarget = { ...config, REDIS_URL: config.REDIS_URL };
      const prefix = config.REDIS_KEY_PREFIX;
      deps.retryDelivery = async (accountId, deliveryId, actor) => {
        const { createRedis, createWebhookQueue } = await import("@gw/jobs");
        const { retryDelivery } = await import("@gw/core/deliveries");
        // One attempt, no reconnection loop: with Redis down the enqueue fails at once instead of waiting forever,
        // and the committed retry is left pending for the dispatcher's reconciler.
        const redis = createRedis(redisTarget, "request", { retryStrategy: () => null });
        const queue = createWebhookQueue(redis, prefix);
        // ioredis and BullMQ report an unreachable Redis as 'error' events (printed raw when nobody listens), at
        // every reconnection attempt: say it once, readably.
        let warned = false;
        const warn = (error: Error) => {
          if (warned || format === "json") return;
          warned = true;
          io.stderr.write(
            `aviso: Redis inacessível (REDIS_URL): ${redactSecrets(error.message)}. Um reenvio registrado fica ` +
              "pendente e o reconciliador do dispatcher o enfileira quando o Redis voltar.\n",
          );
        };
        redis.on("error", warn);
        queue.on("error", warn);
        cleanups.unshift(
          () => queue.close(),
          () => redis.quit(),
        );
        // The panel's resend: audited as `webhook.retry` (the API's own is `api.webhook.retry`).
        return retryDelivery({ db, queue }, { accountId, deliveryId, actor });
      };
    }
    const result = await execute(invocation, deps);
    io.stdout.write(renderResult(invocation.command, result, format));
    return 0;
  } catch (error) {
    const failed = failure(error);
    io.stderr.write(renderFailure(failed, format));
    return failed.exitCode;
  } finally {
    await Promise.allSettled(cleanups.map((cleanup) => cleanup()));
  }
}
