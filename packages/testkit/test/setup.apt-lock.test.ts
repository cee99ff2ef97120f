// Both README commands install Debian packages through scripts/lib.sh's apt_install. On a fresh cloud VM another
// apt (unattended upgrades at first boot) often holds dpkg's lock: apt_install must wait for it, saying why in
// Portuguese, instead of failing at once. The lock here is a temporary file held with flock(1) (what /proc/locks
// shows for dpkg's fcntl lock alike), and apt-get is a stand-in that records its arguments: nothing is installed.
import { execFile, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "@jest/globals";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
// as_root goes through sudo for other users, and sudo resets PATH: the stand-in would not be the apt-get run.
const AS_ROOT = process.getuid?.() === 0;

const folder = mkdtempSync(join(tmpdir(), "gw-apt-lock-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function installWithStandIn(env: NodeJS.ProcessEnv): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => {
    execFile(
      "bash",
      ["-c", "source scripts/lib.sh; apt_install postgresql redis-server"],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 30_000 },
      (error, _stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    );
  });
}

(AS_ROOT ? it : it.skip)(
  "apt_install waits for a lock another apt holds, saying why in Portuguese, and tells apt-get to wait",
  async () => {
    const bin = join(folder, "bin");
    const calls = join(folder, "apt-get.calls");
    const lock = join(folder, "lock-frontend");
    writeFileSync(lock, "");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "apt-get"), `#!/bin/sh\necho "$*" >> ${calls}\n`);
    chmodSync(join(bin, "apt-get"), 0o755);

    const holder = spawn("flock", [lock, "sleep", "30"], { stdio: "ignore" });
    try {
      await waitForLock(lock);
      const result = await installWithStandIn({
        PATH: `${bin}:${process.env.PATH ?? ""}`,
        APT_LOCK_FILES: lock,
        APT_LOCK_TIMEOUT: "120",
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain("outro processo usa o apt agora");
      expect(result.stderr).toMatch(/pid \d+/);
      expect(result.stderr).toContain("Esperando até 120 s");
      const recorded = readFileSync(calls, "utf8").trim().split("\n");
      expect(recorded).toHaveLength(2); // update, then install
      for (const line of recorded) expect(line).toContain("-o DPkg::Lock::Timeout=120");
    } finally {
      holder.kill();
    }
  },
);

async function waitForLock(lock: string): Promise<void> {
  const inode = String(statSync(lock).ino);
  for (let tries = 0; tries < 100; tries++) {
    const locks = readFileSync("/proc/locks", "utf8");
    if (locks.split("\n").some((line) => line.split(/\s+/)[5]?.endsWith(`:${inode}`))) return;
    await new Promise((wake) => setTimeout(wake, 50));
  }
  throw new Error("flock did not take the lock");
}
