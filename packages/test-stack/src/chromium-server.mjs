// One Chromium for one jest worker (see browser.ts): `node chromium-server.mjs <endpoint file> <worker pid>
// <chromium>`. Launches Playwright's browser server, writes its WebSocket endpoint to the file and to stdout, and
// closes the browser and removes the file once the worker process is gone (checked twice a second), so the worker
// holds no handle of it and exits as soon as its tests are done.
import { rmSync, writeFileSync } from "node:fs";
import { chromium } from "playwright-core";

const [file, workerPid, executablePath] = process.argv.slice(2);
if (!file || !workerPid || !executablePath) {
  console.error("uso: node chromium-server.mjs <arquivo> <pid do worker> <chromium>");
  process.exit(2);
}
const server = await chromium.launchServer({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
writeFileSync(file, JSON.stringify({ wsEndpoint: server.wsEndpoint() }));
process.stdout.write(`${server.wsEndpoint()}\n`);

const workerAlive = () => {
  try {
    process.kill(Number(workerPid), 0);
    return true;
  } catch {
    return false;
  }
};
const timer = setInterval(() => {
  if (workerAlive()) return;
  clearInterval(timer);
  rmSync(file, { force: true });
  void server.close().finally(() => process.exit(0));
}, 500);
