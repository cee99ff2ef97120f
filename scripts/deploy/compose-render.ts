// docker/compose.yaml for this machine: deploy/podman/compose.host.yaml merged over it service by service (maps such as
// environment and depends_on key by key, anything else replaced), then `ports:` and `healthcheck:` removed, which a
// Compose override cannot do: on the host network docker-compose refuses published ports, and podman cannot run
// health checks without systemd. Writes the result to the path given.
//   tsx scripts/deploy/compose-render.ts OUT.yaml
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";

type Service = Record<string, unknown>;
type Compose = { services: Record<string, Service>; [key: string]: unknown };

const ROOT = join(import.meta.dirname, "../..");
const read = (path: string) => parse(readFileSync(join(ROOT, path), "utf8"), { merge: true }) as Compose;
const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `${NAME}`, `${NAME:-default}` and `${NAME:?message}` (required) from the environment, as Compose would. */
function interpolate(value: unknown): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, text?: string) => {
      const found = process.env[name];
      if (found !== undefined && found !== "") return found;
      if (kind === "-") return text ?? "";
      throw new Error(`variável ${name} não definida${kind === "?" && text ? `: ${text}` : ""}`);
    });
  }
  if (Array.isArray(value)) return value.map(interpolate);
  if (isMap(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v)]));
  return value;
}

export function renderCompose(): Compose {
  const base = read("docker/compose.yaml");
  const host = read("deploy/podman/compose.host.yaml");
  const services: Record<string, Service> = {};
  for (const [name, service] of Object.entries(base.services)) {
    const override = host.services[name] ?? {};
    const merged: Service = { ...service };
    for (const [key, value] of Object.entries(override)) {
      const current = merged[key];
      merged[key] = isMap(current) && isMap(value) ? { ...current, ...value } : value;
    }
    delete merged.ports;
    delete merged.healthcheck;
    delete merged.build;
    services[name] = merged;
  }
  const extensions = Object.fromEntries(
    Object.entries(base).filter(([key]) => key !== "services" && !key.startsWith("x-")),
  );
  return interpolate({ ...extensions, services }) as Compose;
}

const out = process.argv[2];
if (!out) throw new Error("uso: tsx scripts/deploy/compose-render.ts SAÍDA.yaml");
writeFileSync(out, stringify(renderCompose(), { lineWidth: 0 }));
