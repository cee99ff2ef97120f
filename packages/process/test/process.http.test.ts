import { describe, expect, it } from "@jest/globals";
import { eventually, freePort, spawnScript, type AppProcess } from "@gw/testkit";

// runHttpProcess, the main of the API, the panel and the provider sandbox, as their pods run it: config or exit 78,
// start, and on SIGTERM a drain (the request in flight answered) then exit 0; a second signal exits at once.

const APP = "packages/process/test/http-app.ts";

async function startApp(env: Record<string, string>): Promise<{ app: AppProcess; port: number }> {
  const port = await freePort();
  const app = spawnScript(APP, { PORT: String(port), LOG_LEVEL: "info", ...env });
  await eventually(() => app.output().includes('"listening"'), { timeoutMs: 20_000, what: "the app listening" });
  return { app, port };
}

describe("runHttpProcess", () => {
  it("on SIGTERM answers the request in flight, then exits 0", async () => {
    const { app, port } = await startApp({});
    try {
      const inFlight = fetch(`http://127.0.0.1:${port}/slow`).then(async (r) => ({
        status: r.status,
        body: await r.text(),
      }));
      await eventually(() => app.output().includes("request received"), { what: "the request in flight" });
      app.child.kill("SIGTERM");
      expect(await inFlight).toEqual({ status: 200, body: "answered after the signal" });
      expect(await app.exited).toEqual({ code: 0, signal: null });
      expect(app.output()).toContain("stopping: no new connections, waiting for the requests in flight");
      expect(app.output()).toContain('"drained"');
    } finally {
      app.child.kill("SIGKILL");
    }
  }, 40_000);

  it("a second signal during the drain exits at once with 143", async () => {
    const { app, port } = await startApp({ HOLD: "1" });
    try {
      void fetch(`http://127.0.0.1:${port}/slow`).catch(() => undefined);
      await eventually(() => app.output().includes("request received"), { what: "the request in flight" });
      app.child.kill("SIGTERM");
      await eventually(() => app.output().includes("stopping: no new connections"), { what: "the drain" });
      app.child.kill("SIGTERM");
      expect(await app.exited).toEqual({ code: 143, signal: null });
      expect(app.output()).toContain("second signal received; exiting now (requests in flight are cut)");
    } finally {
      app.child.kill("SIGKILL");
    }
  }, 40_000);

  it("exits 78 naming the variable when the configuration is refused, and 1 naming it when its port is taken", async () => {
    const refused = spawnScript(APP, { PORT: "not-a-port" });
    expect(await refused.exited).toEqual({ code: 78, signal: null });
    expect(refused.output()).toContain("PORT");

    const { app: first, port } = await startApp({});
    try {
      const second = spawnScript(APP, { PORT: String(port) });
      expect(await second.exited).toEqual({ code: 1, signal: null });
      expect(second.output()).toContain('"message":"http-app failed to start"');
      expect(second.output()).toContain("cannot listen (PORT)");
    } finally {
      first.child.kill("SIGKILL");
    }
  }, 40_000);
});
