// The campaign worker's stack: a database of its own (the worker's sweep looks at every campaign), the provider
// sandbox without automatic statuses, the template cache over it, and an account.
import { randomBytes } from "node:crypto";
import { createAccount } from "@gw/core/accounts";
import { TemplateCache } from "@gw/core/templates";
import type { Db } from "@gw/db";
import type { Redis } from "@gw/jobs";
import { createMetaClient } from "@gw/meta";
import type { SandboxOptions } from "@gw/provider-sandbox";
import { silentLogger, testActor } from "@gw/testkit";
import { ACCESS_TOKEN, startStack } from "./stack.ts";

export interface CampaignStack {
  db: Db;
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  redis: Redis;
  /** The provider sandbox's base URL (Graph API and its /_sandbox control API). */
  sandboxUrl: string;
  accountId: string;
  templates: TemplateCache;
  close(): Promise<void>;
}

/**
 * `redisUrl` may name a throwaway Redis (tests that FLUSHALL it); `sandboxProcess` runs the sandbox as a process of
 * its own (otherwise in this one, with `sandbox` options).
 */
export async function startCampaignStack(
  options: { redisUrl?: string; sandbox?: Partial<SandboxOptions>; sandboxProcess?: boolean } = {},
): Promise<CampaignStack> {
  const stack = await startStack({
    db: "isolated",
    ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}),
    sandbox: options.sandboxProcess
      ? { process: { SANDBOX_AUTO_STATUSES: "false" } }
      : { autoStatuses: false, ...options.sandbox },
  });
  try {
    const meta = createMetaClient({
      baseUrl: stack.sandboxUrl,
      apiVersion: "v23.0",
      accessToken: ACCESS_TOKEN,
      timeoutMs: 5_000,
    });
    const templates = new TemplateCache({
      redis: stack.redis,
      keyPrefix: stack.redisPrefix,
      ttlSeconds: 60,
      source: { listTemplates: (wabaId) => meta.listTemplates(wabaId) },
      logger: silentLogger,
    });
    const account = await createAccount(
      { db: stack.db },
      { actor: testActor, name: `campanhas-${randomBytes(3).toString("hex")}` },
    );
    return {
      db: stack.db,
      databaseUrl: stack.databaseUrl,
      redisUrl: stack.redisUrl,
      prefix: stack.redisPrefix,
      redis: stack.redis,
      sandboxUrl: stack.sandboxUrl,
      accountId: account.id,
      templates,
      close: () => stack.close(),
    };
  } catch (error) {
    await stack.close();
    throw error;
  }
}
