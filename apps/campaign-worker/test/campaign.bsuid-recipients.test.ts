import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { learnContacts } from "@gw/core/contacts";
import { eventually, silentLogger } from "@gw/testkit";
import { createCampaignWorker, type CampaignWorker } from "../src/index.ts";
import { startCampaignStack } from "@gw/test-stack";
import {
  addNumber,
  campaignStatus,
  recipientStatuses,
  recipients,
  sandboxSends,
  startedCampaignDetail,
  workerConfig,
  type Row,
  type Stack,
} from "./support.ts";

// A campaign whose list mixes phones and BSUIDs (customers who share no phone, meta-2026 §1): each person gets the
// campaign exactly once, a BSUID goes to Meta in `recipient`, and a person the list names twice (by their phone and
// by their BSUID) is rejected on the second row before anything is sent.

let stack: Stack;
let worker: CampaignWorker;

beforeAll(async () => {
  stack = await startCampaignStack();
  worker = createCampaignWorker(workerConfig(stack), { logger: silentLogger, db: stack.db });
  await worker.start();
});

afterAll(async () => {
  await worker.stop();
  await stack.close();
});

/** A sandbox user with a username and no phone the sandbox knows: reachable by BSUID only. Its BSUID. */
async function usernameOnlyUser(username: string): Promise<string> {
  const res = await fetch(`${stack.sandboxUrl}/_sandbox/users`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, phone: null, name: username }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { user_id: string }).user_id;
}

const row = (to: string, n: number): Row => ({
  to,
  variables: ["Cliente", String(n), "2"],
  header_text: String(n),
  client_ref: `ref-${n}`,
});

describe("a campaign to phones and BSUIDs", () => {
  it("sends each person once (BSUIDs in `recipient`) and rejects a person named twice by phone and by BSUID", async () => {
    const number = await addNumber(stack, 20);
    const bsuids = await Promise.all([0, 1, 2, 3].map((i) => usernameOnlyUser(`cliente.sem.fone.${i}`)));
    // A person the gateway already knows by both identifiers (learnt from an earlier webhook).
    const knownPhone = "5511970000099";
    const knownBsuid = "BR.7000000000099";
    await learnContacts(stack.db.sql, [
      {
        accountId: stack.accountId,
        user: { phone: knownPhone, bsuid: knownBsuid, parentBsuid: null, username: "conhecida", name: null },
      },
    ]);
    const phones = recipients(8, 5_000);
    const rows: Row[] = [
      ...phones.slice(0, 4),
      ...bsuids.map((bsuid, i) => row(bsuid, 100 + i)),
      ...phones.slice(4),
      row(knownPhone, 200),
      row(knownBsuid, 201),
    ];

    const campaign = await startedCampaignDetail(stack, number, rows);
    expect(campaign.accepted_recipients).toBe(13);
    expect(campaign.rejected_rows).toEqual([expect.objectContaining({ row: 14, code: "duplicate_recipient" })]);
    expect(campaign.rejected_rows[0]?.message).toContain("linha 13");

    await eventually(async () => (await campaignStatus(stack, campaign.id)) === "completed", {
      timeoutMs: 30_000,
      what: "a campanha terminar",
    });
    expect(await recipientStatuses(stack, campaign.id)).toEqual({ sent: 13 });
    const sends = await sandboxSends(stack, number);
    const addressed = sends.map((send) => send.to ?? send.recipient).sort();
    expect(addressed).toEqual([...phones.map((p) => p.to), knownPhone, ...bsuids].sort());
    for (const send of sends.filter((s) => s.recipient !== null)) expect(send.to).toBeNull();
  }, 45_000);
});
