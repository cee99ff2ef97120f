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
