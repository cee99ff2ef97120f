import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { ConfigError } from "@gw/config";
import { freePort } from "@gw/testkit";
import { loadSandboxConfig, sandboxOptionsFromConfig } from "../src/index.ts";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

describe("standalone configuration", () => {
  it("applies the documented defaults", () => {
    const config = loadSandboxConfig({ META_APP_SECRET: "app-secret-1" });
    expect(config).toMatchObject({
      SANDBOX_HOST: "127.0.0.1",
      SANDBOX_PORT: 8090,
      SANDBOX_WEBHOOK_URL: "http://127.0.0.1:8080/provider/meta/webhook",
      SANDBOX_STATUS_DELAYS_MS: [50, 150, 300],
      SANDBOX_AUTO_STATUSES: true,
      SANDBOX_ENFORCE_WINDOW: true,
      SANDBOX_WEBHOOK_RETRIES: true,
      SANDBOX_WEBHOOK_RETRY_SCALE: 1,
      SANDBOX_STATUS_BATCH_MS: 0,
      SANDBOX_HISTORY_LIMIT: 10_000,
    });
    expect(config.META_ACCESS_TOKEN).toBeUndefined();
  });

  it("turns variables into sandbox options", () => {
    const options = sandboxOptionsFromConfig(
      loadSandboxConfig({
        META_APP_SECRET: "app-secret-1",
        META_ACCESS_TOKEN: "token-123456",
        SANDBOX_STATUS_DELAYS_MS: "1,2,3",
        SANDBOX_UNREACHABLE: "5511900000001, 5511900000002",
        SANDBOX_RATE_LIMIT_PER_SECOND: "80",
        SANDBOX_ENFORCE_WINDOW: "false",
        SANDBOX_WEBHOOK_RETRIES: "false",
        SANDBOX_WEBHOOK_RETRY_SCALE: "0.001",
        SANDBOX_STATUS_BATCH_MS: "20",
        SANDBOX_HISTORY_LIMIT: "500",
      }),
    );
    expect(options).toMatchObject({
      accessToken: "token-123456",
      statusDelaysMs: { sent: 1, delivered: 2, read: 3 },
      unreachable: ["5511900000001", "5511900000002"],
      rateLimitPerSecond: 80,
      enforceWindow: false,
      webhookRetries: false,
      webhookRetryScale: 0.001,
      statusBatchMs: 20,
      historyLimit: 500,
    });
  });

  it("names every bad variable", () => {
    let caught: unknown;
    try {
      loadSandboxConfig({
        SANDBOX_PORT: "porta",
        SANDBOX_STATUS_DELAYS_MS: "1,2",
        SANDBOX_WEBHOOK_RETRIES: "talvez",
        SANDBOX_WEBHOOK_RETRY_SCALE: "0",
        SANDBOX_STATUS_BATCH_MS: "-1",
        SANDBOX_HISTORY_LIMIT: "0",
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variables.sort()).toEqual([
      "META_APP_SECRET",
      "SANDBOX_HISTORY_LIMIT",
      "SANDBOX_PORT",
      "SANDBOX_STATUS_BATCH_MS",
      "SANDBOX_STATUS_DELAYS_MS",
      "SANDBOX_WEBHOOK_RETRIES",
      "SANDBOX_WEBHOOK_RETRY_SCALE",
    ]);
  });
});

describe("standalone process", () => {
  it("serves the Graph API and stops cleanly on SIGTERM", async () => {
    const port = await freePort();
    // One node process (tsx as a loader), so SIGTERM reaches the sandbox itself.
    const { NODE_OPTIONS: _jestOptions, ...env } = process.env;
    const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
      cwd: ROOT,
      env: { ...env, SANDBOX_PORT: String(port), META_APP_SECRET: "app-secret-1", LOG_LEVEL: "error" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      let answer: Response | undefined;
      // Bounded by the test timeout: poll until the process listens.
      while (!answer) {
        answer = await fetch(`http://127.0.0.1:${port}/v23.0/1/message_templates?limit=1`).catch(async () => {
          await new Promise((resolve) => setTimeout(resolve, 100));
          return undefined;
        });
        if (child.exitCode !== null) throw new Error("the sandbox process exited early");
      }
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { data: unknown[] }).data).toHaveLength(1);
      const exit = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = (await exit) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
