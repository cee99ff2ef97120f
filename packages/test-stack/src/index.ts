// @gw/test-stack: the one way tests (and the benches) start the gateway. Test-only: no production code imports it.
export { buildBundles, bundleOf, ensureBundle } from "./bundles.ts";
export type { AppName } from "./bundles.ts";
export { reap, spawnApp } from "./processes.ts";
export type { AppProcess, Exit, SpawnOptions } from "./processes.ts";
export { ACCESS_TOKEN, APP_SECRET, VERIFY_TOKEN, closeServer, listen, spawnSandbox, startStack } from "./stack.ts";
export type { Stack, StackOptions } from "./stack.ts";
export { contactWrites, startTestDispatcher, startTestGateway } from "./gateway.ts";
export type { TestGateway } from "./gateway.ts";
export { startPanelStack } from "./panel.ts";
export type { PanelStack } from "./panel.ts";
export { downloadText, screenshot, sharedBrowser, signIn, textOf } from "./browser.ts";
export { startCampaignStack } from "./campaign.ts";
export type { CampaignStack } from "./campaign.ts";
export { PASSWORD, createTenant, createTestAccount, randomMetaId, seedAccount, seedIntegration } from "./seed.ts";
export type { ProcessAccount, SeededIntegration, TestAccount, TestTenant } from "./seed.ts";
export {
  kill,
  launchDispatcher,
  startApi,
  startPanel,
  startSandbox as startSandboxProcess,
  tail,
  waitUntilUp,
} from "./fault/apps.ts";
export type { RunningApp, Stack as ProcessStack } from "./fault/apps.ts";
export { startApiPods } from "./fault/pods.ts";
export type { ApiPods } from "./fault/pods.ts";
export { createWatchdog } from "./fault/watchdog.ts";
export type { Watchdog, WatchdogOptions } from "./fault/watchdog.ts";
export { sendWithRetries } from "./fault/client.ts";
export type { SendOutcome } from "./fault/client.ts";
export { redisCommand } from "./fault/redis.ts";
