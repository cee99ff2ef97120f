import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import type { Logger } from "@gw/logger";
import type { MetaTemplate } from "@gw/meta";
import { ApiError } from "@gw/errors";

export interface TemplateSource {
  listTemplates(wabaId: string): Promise<MetaTemplate[]>;
}

export interface TemplateCacheOptions {
  redis: Redis;
  keyPrefix: string;
  /** How long the catalogue is shared through Redis by every API pod (0 = always ask the provider). */
  ttlSeconds: number;
  /** How long a pod reuses the parsed catalogue without asking Redis (bounded by ttlSeconds). */
  localTtlMs?: number;
  source: TemplateSource;
  logger: Logger;
}

/**
 * The template catalogue per WABA: cached in Redis (shared by every API pod) for a short TTL, and parsed
 * catalogues kept in process for a few seconds so a burst of template sends does not parse the same JSON each
 * time. A send that misses a template refreshes once, so a template approved a moment ago is found. Any failure
 * to obtain the FULL catalogue is `templates_unavailable` (spec 4.4, 7).
 */
export class TemplateCache {
  private readonly inflight = new Map<string, Promise<MetaTemplate[]>>();
  private readonly local: LRUCache<string, MetaTemplate[]> | null;

  constructor(private readonly options: TemplateCacheOptions) {
    const localTtlMs = Math.min(options.localTtlMs ?? 5_000, options.ttlSeconds * 1000);
    this.local = localTtlMs > 0 ? new LRUCache({ max: 1_000, ttl: localTtlMs }) : null;
  }

  private key(wabaId: string): string {
    return `${this.options.keyPrefix}:templates:${wabaId}`;
  }

  async get(wabaId: string, { refresh = false } = {}): Promise<MetaTemplate[]> {
    if (!refresh) {
      const local = this.local?.get(wabaId);
      if (local) return local;
      if (this.options.ttlSeconds > 0) {
        const cached = await this.options.redis.get(this.key(wabaId)).catch(() => null);
        if (cached) return this.remember(wabaId, JSON.parse(cached) as MetaTemplate[]);
      }
    }
    // One provider fetch per WABA at a time in this process.
    const running = this.inflight.get(wabaId);
    if (running) return running;
    const fetching = this.fetch(wabaId).finally(() => this.inflight.delete(wabaId));
    this.inflight.set(wabaId, fetching);
    return fetching;
  }

  /**
   * Drop the WABA's catalogue (Meta changed a template's components or category): the next read asks the provider.
   * Other pods' in-process copies live on for at most `localTtlMs`; if Redis cannot be reached, its copy expires
   * within `ttlSeconds`.
   */
  async forget(wabaId: string): Promise<void> {
    this.local?.delete(wabaId);
    await this.options.redis.del(this.key(wabaId)).catch(() => undefined);
  }

  private remember(wabaId: string, templates: MetaTemplate[]): MetaTemplate[] {
    this.local?.set(wabaId, templates);
    return templates;
  }

  private async fetch(wabaId: string): Promise<MetaTemplate[]> {
    let templates: MetaTemplate[];
    try {
      templates = await this.options.source.listTemplates(wabaId);
    } catch (error) {
      this.options.logger.warn("template catalogue unavailable", { wabaId, error: (error as Error).message });
      throw new ApiError("templates_unavailable", { cause: error });
    }
    if (this.options.ttlSeconds > 0) {
      await this.options.redis
        .set(this.key(wabaId), JSON.stringify(templates), "EX", this.options.ttlSeconds)
        .catch(() => undefined);
    }
    return this.remember(wabaId, templates);
  }
}
