import type { Redis } from "ioredis";
import type { Logger } from "@gw/logger";
import type { MetaTemplate } from "@gw/meta";
import { ApiError } from "@gw/errors";

export interface TemplateSource {
  listTemplates(wabaId: string): Promise<MetaTemplate[]>;
}

export interface CatalogueCacheOptions {
  redis: Redis;
  keyPrefix: string;
  ttlSeconds: number;
  source: TemplateSource;
  logger: Logger;
}

/**
 * The template catalogue per WABA, cached in Redis (shared by every API pod) for a short TTL.
 * A send that misses a template refreshes once, so a template approved a moment ago is found.
 * Any failure to obtain the FULL catalogue is `templates_unavailable` (spec 4.4, 7).
 */
export class CatalogueCache {
  private readonly inflight = new Map<string, Promise<MetaTemplate[]>>();

  constructor(private readonly options: CatalogueCacheOptions) {}

  private key(wabaId: string): string {
    return `${this.options.keyPrefix}:templates:${wabaId}`;
  }

  async get(wabaId: string, { refresh = false } = {}): Promise<MetaTemplate[]> {
    if (!refresh && this.options.ttlSeconds > 0) {
      const cached = await this.options.redis.get(this.key(wabaId)).catch(() => null);
      if (cached) return JSON.parse(cached) as MetaTemplate[];
    }
    // One provider fetch per WABA at a time in this process.
    const running = this.inflight.get(wabaId);
    if (running) return running;
    const fetching = this.fetch(wabaId).finally(() => this.inflight.delete(wabaId));
    this.inflight.set(wabaId, fetching);
    return fetching;
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
    return templates;
  }
}
