// Each run's figures as JSON in bench/results/<stage>-<timestamp>.json (git-ignored), with what is needed to
// compare two runs: the settings, the machine and its load when the run started.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { appNodeFlags, ROOT, RUNTIME } from "./processes.ts";

export function benchSettings(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (key.startsWith("BENCH_") && value !== undefined) out[key] = value;
  return out;
}

export function machine(): Record<string, unknown> {
  return {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? null,
    memoryMb: Math.round(totalmem() / 1024 / 1024),
    loadavgAtEnd: loadavg(),
  };
}

/** Writes the file and returns its path relative to the repository. */
export function writeResults(stage: string, startedAt: Date, results: Record<string, unknown>): string {
  const dir = join(ROOT, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const stamp = startedAt
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replace(/:/g, "-");
  const file = join(dir, `${stage}-${stamp}.json`);
  const document = {
    stage,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    settings: benchSettings(),
    machine: machine(),
    // How the apps ran: bundles or tsx, and the node flags each was given.
    runtime: {
      mode: RUNTIME,
      nodeFlags: { api: appNodeFlags("api"), dispatcher: appNodeFlags("dispatcher"), sandbox: appNodeFlags("sandbox") },
    },
    ...results,
  };
  writeFileSync(
    file,
    `${JSON.stringify(document, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2)}\n`,
  );
  return file.slice(ROOT.length + 1);
}
