// A durable, deduplicating event log: one JSON line per delivery, fsync'ed before the gateway gets its 2xx.
// The dedup key is integration + delivery id (spec 6.4); the set of seen keys is rebuilt from the file at start.
import { existsSync } from "node:fs";
import { mkdir, open, readFile, truncate, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import type { GatewayWebhookEvent } from "../src/index.ts"; // in your project: from "@gw/receiver"

export interface StoredEvent {
  integration: string;
  delivery_id: string;
  attempt: number | null;
  received_at: string;
  event: GatewayWebhookEvent;
}

export class JsonlEventStore {
  private readonly seen = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly file: FileHandle) {}

  static async open(path: string): Promise<JsonlEventStore> {
    await mkdir(dirname(path), { recursive: true });
    const existed = existsSync(path);
    let text = existed ? await readFile(path, "utf8") : "";
    const end = text.lastIndexOf("\n") + 1;
    if (end < text.length) {
      // A line torn by a crash was never acknowledged (the gateway will resend it): drop it.
      text = text.slice(0, end);
      await truncate(path, Buffer.byteLength(text));
    }
    const store = new JsonlEventStore(await open(path, "a"));
    if (!existed) await syncDirectory(dirname(path)); // so the new file's name survives a crash too
    for (const line of text.split("\n")) {
      if (!line) continue;
      try {
        const record = JSON.parse(line) as StoredEvent;
        store.seen.add(keyOf(record.integration, record.delivery_id));
      } catch {
        console.warn(`linha ilegível ignorada em ${path}`);
      }
    }
    return store;
  }

  /** "stored" once the line is on disk; "duplicate" when this integration + delivery id was stored before. */
  append(record: StoredEvent): Promise<"stored" | "duplicate"> {
    // One append at a time, so two concurrent attempts of one delivery cannot both be written.
    const result = this.queue.then(async () => {
      const key = keyOf(record.integration, record.delivery_id);
      if (this.seen.has(key)) return "duplicate" as const;
      await this.file.appendFile(JSON.stringify(record) + "\n");
      await this.file.sync();
      this.seen.add(key);
      return "stored" as const;
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    await this.queue;
    await this.file.close();
  }
}

function keyOf(integration: string, deliveryId: string): string {
  return JSON.stringify([integration, deliveryId]);
}

async function syncDirectory(path: string): Promise<void> {
  const dir = await open(path, "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
