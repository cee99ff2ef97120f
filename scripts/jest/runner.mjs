// jest's runner for every tier (jest.config.ts): test files run in long-lived worker processes (worker.mjs) that
// load the modules under test once, instead of jest's default of a fresh vm context, and so a fresh copy of every
// module, per file. A third of a worker's CPU went to loading the same graph again for each of the ~300 files
// (docs/performance.md, "The suite's time"). jest still finds, orders and reports the files; jest-circus runs each.
//
// A worker is replaced after a file when it holds more memory than jest's `workerIdleMemoryLimit`, when it dies
// (the file it ran is reported failed), and when a file runs longer than FILE_DEADLINE_MS.
import { fork } from "node:child_process";
import { clearTimeout, setTimeout } from "node:timers";

const WORKER = new URL("./worker.mjs", import.meta.url);
const FILE_DEADLINE_MS = 10 * 60_000;
/** Without `workerIdleMemoryLimit` (jest gives it in bytes, having read "1GB" or "50%" itself). */
const DEFAULT_MEMORY_LIMIT = 1.5 * 1024 ** 3;

class Worker {
  #child;
  #ready;
  #pending = null;

  constructor(id) {
    const profileDir = process.env.GW_TEST_CPU_PROF;
    this.#child = fork(WORKER, [], {
      env: { ...process.env, JEST_WORKER_ID: String(id) },
      // GW_TEST_CPU_PROF=<dir>: each worker writes a V8 CPU profile there when it leaves (docs/performance.md).
      execArgv: profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.#ready = new Promise((resolve, reject) => {
      this.#child.once("message", (message) => (message?.type === "ready" ? resolve() : reject(new Error("worker"))));
      this.#child.once("exit", (code, signal) => reject(new Error(`worker saiu ao iniciar (${signal ?? code})`)));
    });
    this.#ready.catch(() => {});
    this.#child.on("message", (message) => {
      if (message?.type === "result" || message?.type === "error") this.#settle(message);
    });
    this.#child.on("exit", (code, signal) => {
      this.exited = true;
      this.#settle({
        type: "error",
        error: { message: `o worker de testes terminou (${signal ?? `código ${code}`})` },
      });
    });
  }

  #settle(message) {
    const pending = this.#pending;
    this.#pending = null;
    pending?.(message);
  }

  /** The file's result, or what stopped it: a worker that did not start, died or ran past the deadline. */
  async run(test, globalConfig) {
    try {
      await this.#ready;
    } catch (error) {
      return { type: "error", error: { message: error.message } };
    }
    const answer = new Promise((resolve) => (this.#pending = resolve));
    const deadline = setTimeout(() => {
      this.#settle({ type: "error", error: { message: `o arquivo passou de ${FILE_DEADLINE_MS / 60_000} min` } });
      this.stop();
    }, FILE_DEADLINE_MS);
    this.#child.send({ type: "run", testPath: test.path, config: test.context.config, globalConfig });
    try {
      return await answer;
    } finally {
      clearTimeout(deadline);
    }
  }

  /** True once the worker takes no more files (it was stopped or it died). */
  get gone() {
    return this.stopped || this.exited;
  }

  stop() {
    this.stopped = true;
    if (this.exited) return;
    if (this.#child.connected) this.#child.disconnect();
    // The worker leaves on disconnect; one stuck in synchronous code is killed.
    setTimeout(() => this.exited || this.#child.kill("SIGKILL"), 5_000).unref();
  }
}

export default class TestRunner {
  #globalConfig;

  constructor(globalConfig) {
    this.#globalConfig = globalConfig;
  }

  async runTests(tests, watcher, onStart, onResult, onFailure) {
    const queue = [...tests];
    const limit = this.#globalConfig.workerIdleMemoryLimit ?? DEFAULT_MEMORY_LIMIT;
    const lanes = Math.max(1, Math.min(this.#globalConfig.maxWorkers, queue.length));
    const lane = async (id) => {
      let worker = null;
      for (let test = queue.shift(); test; test = queue.shift()) {
        if (watcher.isInterrupted()) break;
        worker ??= new Worker(id);
        await onStart(test);
        const answer = await worker.run(test, this.#globalConfig);
        if (answer.type === "result") {
          await onResult(test, answer.result);
          if (answer.rss > limit) {
            worker.stop();
            worker = null;
          }
        } else {
          const error = new Error(answer.error.message);
          error.stack = answer.error.stack ?? answer.error.message;
          await onFailure(test, error);
          if (worker.gone) {
            worker.stop();
            worker = null;
          }
        }
      }
      worker?.stop();
    };
    await Promise.all(Array.from({ length: lanes }, (_, index) => lane(index + 1)));
  }
}
