import { readFileSync } from "node:fs";
import { Gauge, type Registry } from "prom-client";
import type { WebhookQueue } from "./queues.ts";

/**
 * `gw_webhook_queue_jobs{state}`: the webhook queue's depth read from BullMQ at scrape time, so every pod
 * (API or dispatcher) reports the same shared queue. A failed read leaves the last values.
 */
export function registerQueueDepthGauge(registry: Registry, queue: WebhookQueue): void {
  new Gauge({
    name: "gw_webhook_queue_jobs",
    help: "Jobs na fila de webhooks, por estado",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const counts = await queue.getJobCounts("waiting", "delayed", "active", "failed").catch(() => null);
      if (!counts) return;
      for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
    },
  });
}

/** Where the kernel tells a container its memory limit: cgroup v2, then v1. */
const MEMORY_LIMIT_FILES = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"];
/** cgroup v1 writes "no limit" as a huge number (the page-rounded maximum); above this there is no real limit. */
const NO_LIMIT_ABOVE = 2 ** 60;

/** The process's container memory limit in bytes, or null when it has none (or runs outside a container). */
function readMemoryLimitBytes(files: readonly string[] = MEMORY_LIMIT_FILES): number | null {
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8").trim();
    } catch {
      continue;
    }
    if (!/^\d+$/.test(text)) return null; // "max": cgroup v2 without a limit
    const bytes = Number(text);
    return bytes > 0 && bytes < NO_LIMIT_ABOVE ? bytes : null;
  }
  return null;
}

/**
 * `gw_process_memory_limit_bytes`: the pod's (container's) memory limit as the kernel enforces it, read once; absent
 * without a limit. Beside each app's `gw_<app>_process_resident_memory_bytes` it tells how near the OOM killer a pod
 * is, without kube-state-metrics (the `GatewayPodNearMemoryLimit` alert, deploy/observability).
 */
export function registerMemoryLimitGauge(registry: Registry, limitBytes = readMemoryLimitBytes()): void {
  const gauge = new Gauge({
    name: "gw_process_memory_limit_bytes",
    help: "Limite de memória do contêiner do processo (cgroup), em bytes; ausente quando não há limite",
    registers: [registry],
  });
  if (limitBytes !== null) gauge.set(limitBytes);
}
