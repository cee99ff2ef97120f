// scripts/stack.sh from a checkout the `postgres` user cannot traverse (a root user's clone under /root, mode 700).
// As root the PostgreSQL binaries run as `postgres`, so a cluster under the checkout's .data/ cannot even be
// initialised; stack.sh keeps it out of the tree instead. The checkout here is a copy of what stack.sh reads
// (scripts/stack.sh, scripts/lib.sh, package.json) in a mode-700 temporary folder, with ports of its own: the
// stack started by `npm test` is never touched.
import { execFile } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "@jest/globals";
import pg from "pg";
import { freePort } from "../src/ports.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const AS_ROOT = process.getuid?.() === 0;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(command, args, { ...options, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      done({ code, stdout: stdout.trim(), stderr });
    });
  });
}

/** Redis's inline PING over a raw socket: no client library for one command. */
function redisPing(port: number): Promise<string> {
  return new Promise((done, fail) => {
    const socket = connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
    let reply = "";
    socket.setTimeout(5_000, () => socket.destroy(new Error("Redis did not answer")));
    socket.on("data", (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.endsWith("\r\n")) {
        socket.end();
        done(reply.trim());
      }
    });
    socket.on("error", fail);
  });
}

async function pgQuery(port: number, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/gateway` });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}

// A folder only root may enter, holding the checkout: what a clone under /root (mode 700) looks like to postgres.
const parent = AS_ROOT ? mkdtempSync(join(tmpdir(), "gw-unreachable-")) : "";
if (parent) chmodSync(parent, 0o700);
const checkout = join(parent, "checkout");
const stack = (command: string, env: NodeJS.ProcessEnv) =>
  run("bash", ["scripts/stack.sh", command], { cwd: checkout, env });
let cleanup: () => Promise<void> = () => Promise.resolve();

afterAll(async () => {
  await cleanup();
  if (parent) rmSync(parent, { recursive: true, force: true });
});

(AS_ROOT ? it : it.skip)(
  AS_ROOT
    ? "stack.sh up/down works from a checkout the postgres user cannot traverse, keeping the cluster between runs"
    : "stack.sh from a checkout postgres cannot traverse — SKIPPED: needs root (the server then runs as postgres)",
  async () => {
    mkdirSync(join(checkout, "scripts"), { recursive: true });
    for (const file of ["scripts/stack.sh", "scripts/lib.sh", "package.json"]) {
      copyFileSync(join(ROOT, file), join(checkout, file));
    }
    // The precondition the issue is about: postgres cannot reach the checkout.
    expect((await run("runuser", ["-u", "postgres", "--", "test", "-x", checkout], { cwd: "/" })).code).not.toBe(0);

    const pgPort = await freePort();
    let redisPort = await freePort();
    while (redisPort === pgPort) redisPort = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, GW_PG_PORT: String(pgPort), GW_REDIS_PORT: String(redisPort) };
    env.GW_PG_FSYNC = "off";
    delete env.GW_DATA_DIR;
    delete env.GW_STOP_ONLY;
    cleanup = async () => {
      await stack("down", env);
      // The out-of-tree cluster folder, removed only if its note names this checkout's .data.
      const where = await stack("where", env);
      const folder = dirname(where.stdout);
      const note = join(folder, "checkout");
      if (
        where.code === 0 &&
        existsSync(note) &&
        readFileSync(note, "utf8").trim() === join(realpathSync(checkout), ".data")
      ) {
        rmSync(folder, { recursive: true, force: true });
      }
    };

    const up = await stack("up", env);
    expect({ code: up.code, stderr: up.code === 0 ? "" : up.stderr }).toEqual({ code: 0, stderr: "" });
    expect(up.stdout).toBe("postgres redis");
    expect(up.stderr).not.toContain("Permission denied");

    // The cluster lives where postgres can reach it, outside the checkout, and `where` names it.
    const where = await stack("where", env);
    expect(where.code).toBe(0);
    expect(where.stdout.startsWith(realpathSync(parent))).toBe(false);
    expect((await run("runuser", ["-u", "postgres", "--", "test", "-O", where.stdout], { cwd: "/" })).code).toBe(0);
    const [setting] = await pgQuery(pgPort, "select current_setting('data_directory') as dir");
    expect(setting?.dir).toBe(where.stdout);
    expect(await redisPing(redisPort)).toBe("+PONG");
    await pgQuery(pgPort, "create table kept (answer int); insert into kept values (42)");

    // Safe to run twice: nothing new is started.
    const again = await stack("up", env);
    expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 0, stdout: "" });

    // `down` finds the out-of-tree server; the next `up` reuses the same cluster with its data.
    expect((await stack("down", env)).code).toBe(0);
    expect((await stack("status", env)).stdout).toBe("postgres: down\nredis: down");
    const restarted = await stack("up", env);
    expect({ code: restarted.code, stdout: restarted.stdout }).toEqual({ code: 0, stdout: "postgres redis" });
    expect(restarted.stderr).not.toContain("initdb");
    expect(await pgQuery(pgPort, "select answer from kept")).toEqual([{ answer: 42 }]);

    expect((await stack("down", env)).code).toBe(0);
    expect((await stack("status", env)).stdout).toBe("postgres: down\nredis: down");
  },
  120_000,
);
