import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./ports.ts";

export interface ThrowawayPostgres {
  /** The `postgres` database of the cluster (superuser `postgres`, no password). */
  url: string;
  port: number;
  /** An empty database on this cluster; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /**
   * `pg_ctl restart -m fast`: every connection is terminated (57P01), the server comes back on the same port. With
   * `whileDown`, the server is stopped (`-m fast`) and started again once that resolves: an outage that lasts until
   * the caller has seen what it needed to see.
   */
  restart(options?: { whileDown?: () => Promise<unknown> }): Promise<void>;
  /** Stops the server (immediate) and removes its folder; safe to call twice. */
  stop(): Promise<void>;
}

/** Debian's newest PostgreSQL binaries (scripts/stack.sh installs them). */
function postgresBinaries(): string {
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, "bin", "pg_ctl")))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  const newest = versions.at(-1);
  if (newest === undefined) throw new Error(`PostgreSQL não encontrado em ${base}: rode scripts/stack.sh up uma vez.`);
  return join(base, newest, "bin");
}

/** The uid/gid of `postgres` from /etc/passwd: initdb and postgres refuse to run as root. */
function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (uid === undefined || gid === undefined) throw new Error("usuário postgres ausente: rode scripts/stack.sh up.");
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * A PostgreSQL cluster of the caller's own (initdb + pg_ctl on a free loopback port, data under a temporary
 * folder), for tests that restart or stop PostgreSQL without disturbing the server other suites share. As root the
 * binaries run as `postgres`, which must be able to reach the temporary folder (os.tmpdir(), normally /tmp).
 * fsync is off: nothing in it outlives the test.
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = postgresBinaries();
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? postgresUser() : null;
  const dir = mkdtempSync(join(tmpdir(), "gw-pg-"));
  const data = join(dir, "data");
  const socket = join(dir, "run");
  mkdirSync(data, { mode: 0o700 });
  mkdirSync(socket);
  if (owner) for (const path of [dir, data, socket]) chownSync(path, owner.uid, owner.gid);
  const port = await freePort();

  const run = (tool: string, args: string[]): Promise<void> =>
    new Promise((resolve, reject) => {
      execFile(
        join(bin, tool),
        args,
        { cwd: dir, timeout: 90_000, env: { PATH: process.env.PATH, HOME: dir, LC_ALL: "C.UTF-8" }, ...owner },
        (error, stdout, stderr) => {
          if (!error) return resolve();
          let log = "";
          try {
            log = readFileSync(join(dir, "server.log"), "utf8").slice(-2_000);
          } catch {
            // No log yet: initdb failed.
          }
          reject(new Error(`${tool} ${args[0] ?? ""} falhou: ${error.message}\n${stdout}${stderr}${log}`));
        },
      );
    });

  await run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]);
  const options = [
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${socket}`,
    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100",
  ].join(" ");
  const ctl = (...args: string[]) =>
    run("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-w", "-t", "60", ...args]);
  await ctl("-o", options, "start");
  let stopped = false;
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return `postgresql://postgres@127.0.0.1:${port}/${name}`;
    },
    async restart({ whileDown } = {}) {
      // pg_ctl restart keeps the options the server was started with (postmaster.opts).
      if (!whileDown) return ctl("-m", "fast", "restart");
      await ctl("-m", "fast", "stop");
      try {
        await whileDown();
      } finally {
        await ctl("-o", options, "start");
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await ctl("-m", "immediate", "stop").catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
