// The dispatch baseline: a bare BullMQ Worker (the product's BullMQ version, the dispatcher's kind of Redis
// connection) with a no-op processor, draining a queue the bench filled. Reports over IPC when it has completed
// BARE_EXPECT jobs: { type: "done", completed, firstAt, lastAt } (epoch ms of the first and last completion).
//   REDIS_URL, BARE_PREFIX, BARE_QUEUE, BARE_CONCURRENCY, BARE_EXPECT
import { Worker } from "bullmq";
import { createRedis } from "@gw/jobs";

const expect = Number(process.env.BARE_EXPECT);
const concurrency = Number(process.env.BARE_CONCURRENCY);
const { REDIS_URL, BARE_PREFIX, BARE_QUEUE } = process.env;
if (
  !REDIS_URL ||
  !BARE_PREFIX ||
  !BARE_QUEUE ||
  !Number.isInteger(expect) ||
  !Number.isInteger(concurrency) ||
  !process.send
) {
  process.stderr.write(
    "REDIS_URL, BARE_PREFIX, BARE_QUEUE, BARE_CONCURRENCY, BARE_EXPECT and an IPC channel are required\n",
  );
  process.exit(2);
}
const send = process.send.bind(process);

let completed = 0;
let firstAt: number | null = null;
let lastAt: number | null = null;
let reported = false;

// No-op: resolves at once (a processor must return a promise).
const worker = new Worker(BARE_QUEUE, () => Promise.resolve("ok"), {
  connection: createRedis(REDIS_URL, "worker"),
  prefix: BARE_PREFIX,
  concurrency,
});
worker.on("completed", () => {
  const now = Date.now();
  firstAt ??= now;
  lastAt = now;
  completed++;
  if (completed >= expect && !reported) {
    reported = true;
    send({ type: "done", completed, firstAt, lastAt });
  }
});
worker.on("error", (error: Error) => process.stderr.write(`bare worker: ${error.message}\n`));

process.on("SIGTERM", () => {
  void worker.close(true).finally(() => process.exit(0));
});
