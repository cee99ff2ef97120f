import type { Dispatcher } from "@gw/dispatcher";
import { createTestAccount, startTestDispatcher, type TestAccount, type TestGateway } from "@gw/test-stack";
import { startReceiver } from "./receiver.ts";

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * Around a started gateway, the rest of the webhook pipeline: a receiver on loopback that verifies every signature,
 * an account whose integration points at it (message.status and message.received), and a dispatcher.
 */
export async function startPipeline(
  gateway: TestGateway,
): Promise<{ receiver: Receiver; account: TestAccount; dispatcher: Dispatcher }> {
  let secret = "";
  const receiver = await startReceiver(() => secret);
  const account = await createTestAccount(gateway.db, { integrationUrl: receiver.url });
  secret = account.signingSecret ?? "";
  const dispatcher = await startTestDispatcher(gateway);
  return { receiver, account, dispatcher };
}

/** Stops what `startPipeline` started, and the gateway, in that order; what never started is skipped. */
export async function stopPipeline(parts: {
  dispatcher?: Dispatcher;
  receiver?: Receiver;
  gateway?: TestGateway;
}): Promise<void> {
  await parts.dispatcher?.stop();
  await parts.receiver?.close();
  await parts.gateway?.close();
}
