// A test worker of runner.mjs: one Node process that runs test files one after another with jest-circus, as jest's
// own runner does, except that the modules a file imports (the workspace's sources, their dependencies) are loaded
// once per worker by Node itself instead of once per file in a fresh vm context. TypeScript is compiled by tsx's
// hooks; "@jest/globals" is globals.mjs (hooks.mjs). Each file still gets a fresh jest-circus state, its own module
// instance (imported under a unique URL), and jest's timeouts, hooks, error attribution and failure messages.
import { createRequire, register } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { register as registerTypeScript } from "tsx/esm/api";

register("./hooks.mjs", import.meta.url);
registerTypeScript();

const require = createRequire(import.meta.url);
const adapterPath = join(dirname(require.resolve("jest-circus/runner")), "jestAdapterInit.js");
const { ModuleMocker } = require("jest-mock");
const { installGlobals } = await import("./globals.mjs");

const EVENT_HANDLERS = Symbol.for("EVENT_HANDLERS");
const TEST_TIMEOUT = Symbol.for("TEST_TIMEOUT_SYMBOL");
let runs = 0;

/** jest-circus keeps its state, event handlers and file timeout on globalThis: each file starts without them. */
function freshCircus() {
  delete globalThis[EVENT_HANDLERS];
  delete globalThis[TEST_TIMEOUT];
  for (const symbol of Object.getOwnPropertySymbols(globalThis)) {
    if (symbol.description === "JEST_STATE_SYMBOL") delete globalThis[symbol];
  }
  delete require.cache[adapterPath];
  return require(adapterPath);
}

function jestObject() {
  const mocker = new ModuleMocker(globalThis);
  const jest = {
    setTimeout(ms) {
      globalThis[TEST_TIMEOUT] = ms;
      return jest;
    },
    fn: mocker.fn.bind(mocker),
    spyOn: mocker.spyOn.bind(mocker),
    clearAllMocks: () => (mocker.clearAllMocks(), jest),
    resetAllMocks: () => (mocker.resetAllMocks(), jest),
    restoreAllMocks: () => (mocker.restoreAllMocks(), jest),
  };
  return jest;
}

/** What crosses the IPC channel: failure details may hold functions or cycles; keep what JSON can say. */
function plain(value) {
  const seen = new WeakSet();
  try {
    return JSON.parse(
      JSON.stringify(value, (_key, item) => {
        if (typeof item === "function" || typeof item === "symbol") return undefined;
        if (typeof item === "bigint") return item.toString();
        if (item instanceof Error) return { name: item.name, message: item.message, stack: item.stack };
        if (item && typeof item === "object") {
          if (seen.has(item)) return undefined;
          seen.add(item);
        }
        return item;
      }),
    );
  } catch {
    return null;
  }
}

const PROCESS_ERROR_EVENTS = ["uncaughtException", "unhandledRejection", "rejectionHandled"];

async function runFile(run) {
  // jest-circus swaps the process's error listeners at setup and puts them back at teardown; a file that fails to
  // load never reaches teardown, so they are put back here.
  const listeners = PROCESS_ERROR_EVENTS.map((event) => [event, process.rawListeners(event)]);
  try {
    return await runCircus(run);
  } catch (error) {
    for (const [event, saved] of listeners) {
      process.removeAllListeners(event);
      for (const listener of saved) process.on(event, listener);
    }
    throw error;
  }
}

async function runCircus({ testPath, config, globalConfig }) {
  const adapter = freshCircus();
  const start = Date.now();
  await adapter.initialize({
    config,
    globalConfig,
    environment: { global: globalThis },
    runtime: { enterTestCode() {}, leaveTestCode() {} },
    localRequire: require,
    parentProcess: process,
    sendMessageToJest: undefined,
    setGlobalsForRuntime: (globals) => installGlobals({ ...globals, jest: jestObject() }),
    testPath,
  });
  // A unique URL: the file's own module is evaluated for this run; what it imports is shared with earlier files.
  await import(`${pathToFileURL(testPath).href}?run=${++runs}`);
  const result = await adapter.runAndTransformResultsToJestFormat({
    config,
    globalConfig,
    setupAfterEnvPerfStats: { setupAfterEnvStart: start, setupAfterEnvEnd: start },
    testPath,
  });
  const end = Date.now();
  for (const test of result.testResults) test.failureDetails = test.failureDetails.map(plain);
  result.perfStats = {
    ...result.perfStats,
    start,
    end,
    runtime: end - start,
    slow: (end - start) / 1000 > config.slowTestThreshold,
    loadTestsEnd: start,
  };
  return result;
}

process.on("message", (message) => {
  if (message?.type !== "run") return;
  runFile(message).then(
    (result) => process.send({ type: "result", result, rss: process.memoryUsage().rss }),
    (error) =>
      process.send({
        type: "error",
        error: { message: error?.message ?? String(error), stack: error?.stack ?? String(error) },
      }),
  );
});
// The runner closes the channel when it is done with this worker: leave, whatever a test left running.
process.on("disconnect", () => process.exit(0));
process.send({ type: "ready" });
