// Hardening item 4 with real processes: a campaign worker SIGKILLed while its sends are in flight (Meta has accepted
// them, its answers are late). Before, every such recipient ended `failed: send_unconfirmed` although Meta sent it
// exactly once. Now each send carries its recipient in Meta's `biz_opaque_callback_data`, the statuses Meta posts
// to the API name it, and the API records the send: every recipient Meta accepted ends sent, delivered or read, none
// twice, and the next worker finishes the rest (a request the kill cut before it reached Meta is the one exception:
// that recipient ends `send_unconfirmed`, never resent, as the runner's design says).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually } from "@gw/testkit";
import { startCampaignStack, spawnApp, type AppProcess } from "@gw/test-stack";
import {
  addNumber,
  addressee,
  campaignStatus,
  recipients,
  sandboxControl,
  sandboxSends,
  startedCampaign,
  startStatusApi,
  workerSettings,
  type Stack,
} from "./support.ts";

const RECIPIENTS = 60;
/** Meta accepts each send at once and answers it this late: the window in which the worker is killed. */
const ANSWER_DELAY_MS = 1_500;

let stack: Stack;
let statusApi: { close(): Promise<void> };
const workers: AppProcess[] = [];

beforeAll(async () => {
  // Statuses come well after the late answers: at the kill, a send Meta accepted is recorded only if the worker
  // recorded it (the statuses' adoption cannot have run yet), however late a loaded machine lands the kill.
  stack = await startCampaignStack({
    sandbox: { autoStatuses: true, statusDelaysMs: { sent: 3_000, delivered: 3_100, read: 3_200 } },
  });
  statusApi = await startStatusApi(stack);
  // Every send: processed (accepted, statuses posted) at once, answered late.
  await sandboxControl(stack, "faults", { mode: "slow", route: "messages", delay_ms: ANSWER_DELAY_MS, count: 10_000 });
}, 30_000);

afterAll(async () => {
  for (const worker of workers) await worker.stop();
  await statusApi.close();
  await stack.close();
});

async function spawnWorker(): Promise<AppProcess> {
  const worker = spawnApp(
    "campaign-worker",
    workerSettings(stack, {
      LOG_LEVEL: "info",
      CAMPAIGN_SWEEP_INTERVAL_MS: "500",
      META_TIMEOUT_MS: "4000",
      CAMPAIGN_REDRIVE_AFTER_MS: "12000",
    }),
  );
  workers.push(worker);
  await eventually(() => worker.output().includes("campaign worker started"), {
    timeoutMs: 20_000,
    what: "o worker iniciar",
  }).catch((error: Error) => {
    throw new Error(`${error.message}\n${worker.output().slice(-2_000)}`);
  });
  return worker;
}

describe("a campaign worker SIGKILLed while Meta holds its answers", () => {
  it("every recipient Meta accepted ends sent, delivered or read, none twice; the next worker finishes the campaign", async () => {
    const number = await addNumber(stack, 20);
    const campaignId = await startedCampaign(stack, number, recipients(RECIPIENTS, 7_000));
    const first = await spawnWorker();
    // Killed with sends accepted by Meta and their answers still on the way.
    await eventually(async () => (await sandboxSends(stack, number)).length >= 15, {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: "os primeiros envios aceitos",
    });
    first.child.kill("SIGKILL");
    await first.exited;
    const acceptedAtKill = new Set((await sandboxSends(stack, number)).map((s) => s.wamid));
    const { rows: recordedAtKill } = await stack.db.sql.query<{ wamid: string }>(
      `SELECT wamid FROM campaign_recipients WHERE campaign_id = $1 AND wamid IS NOT NULL`,
      [campaignId],
    );
    // The kill did land in the window: Meta had accepted sends the worker never recorded.
    const unrecordedByWorker = [...acceptedAtKill].filter((w) => !recordedAtKill.some((r) => r.wamid === w));
    expect(unrecordedByWorker.length).toBeGreaterThan(0);
    // The recipients in flight at the kill (reserved, `sending`): one whose request had not reached Meta yet when the
    // process died may end `send_unconfirmed` without a send (nothing proves it was not sent); no other may.
    const { rows: inFlight } = await stack.db.sql.query<{ contact: string }>(
      `SELECT contact FROM campaign_recipients WHERE campaign_id = $1 AND status = 'sending'`,
      [campaignId],
    );
    const inFlightAtKill = new Set(inFlight.map((r) => r.contact));

    await spawnWorker();
    await eventually(async () => (await campaignStatus(stack, campaignId)) === "completed", {
      timeoutMs: 90_000,
      intervalMs: 250,
      what: "a campanha terminar",
    });

    const sends = await sandboxSends(stack, number);
    const perRecipient = new Map<string, number>();
    for (const send of sends) perRecipient.set(addressee(send), (perRecipient.get(addressee(send)) ?? 0) + 1);
    expect([...perRecipient.entries()].filter(([, n]) => n > 1)).toEqual([]);
    // Every recipient was sent, but one whose request the kill cut before it reached Meta (checked below).
    expect(sends.length).toBeGreaterThan(RECIPIENTS - inFlightAtKill.size - 1);

    const wamidOf = new Map(sends.map((s) => [addressee(s), s.wamid]));
    // The last sends' statuses arrive 3 s after them: wait for them to be applied.
    const wrongRows = async () => {
      const { rows } = await stack.db.sql.query<{
        contact: string;
        status: string;
        wamid: string | null;
        error_code: string | null;
        message_status: string | null;
      }>(
        `SELECT r.contact, r.status, r.wamid, r.error_code, m.status AS message_status
         FROM campaign_recipients r LEFT JOIN messages m ON m.id = r.message_id WHERE r.campaign_id = $1`,
        [campaignId],
      );
      return rows.filter(
        (r) =>
          !(
            r.status === "sent" &&
            r.wamid === wamidOf.get(r.contact) &&
            ["sent", "delivered", "read"].includes(r.message_status ?? "")
          ) &&
          // Meta never got it: in flight at the kill, settled as unconfirmed and never resent.
          !(
            !wamidOf.has(r.contact) &&
            inFlightAtKill.has(r.contact) &&
            r.status === "failed" &&
            r.error_code === "send_unconfirmed"
          ),
      );
    };
    await eventually(async () => (await wrongRows()).length === 0, {
      timeoutMs: 20_000,
      intervalMs: 250,
      what: "os status de todos os envios",
    }).catch(() => undefined);
    const wrong = await wrongRows();
    expect(wrong).toEqual([]);
  }, 150_000);
});
