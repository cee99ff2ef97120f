import { readFile } from "node:fs/promises";
import { describe, expect, it } from "@jest/globals";
import { WEBHOOK_OPERATIONS } from "@gw/contracts";
import { GENERATED_FILE, generateReceiverSchema } from "../src/generate.ts";
import { MESSAGE_RECEIVED_TYPES, MESSAGE_STATUSES, parseWebhookEvent, WEBHOOK_EVENTS } from "../src/index.ts";

// The receiver's types and vocabulary are generated from the contract's webhook schemas (@gw/contracts), as the
// client's are from the OpenAPI document: the committed file must be what the contract generates today, and every
// example the contract documents must be an event the receiver's parser accepts.

const committed = () => readFile(new URL(`../src/${GENERATED_FILE}`, import.meta.url), "utf8");

/** Every example body of every webhook the contract documents (the schema's own and the named ones). */
function contractExamples(): { event: string; body: unknown }[] {
  return WEBHOOK_OPERATIONS.flatMap((operation) => {
    const media = operation.request?.body?.content["application/json"] as
      | { schema?: { meta?: () => { example?: unknown } | undefined }; examples?: Record<string, { value: unknown }> }
      | undefined;
    const named = Object.values(media?.examples ?? {}).map((example) => example.value);
    const own = media?.schema?.meta?.()?.example;
    return [...(own === undefined ? [] : [own]), ...named].map((body) => ({ event: operation.path, body }));
  });
}

describe("@gw/receiver generated types", () => {
  it("are what `pnpm client:generate` writes from the contract, and the parser accepts every example the contract documents", async () => {
    if ((await committed()) !== (await generateReceiverSchema()))
      throw new Error(
        `packages/receiver/src/${GENERATED_FILE} não corresponde aos webhooks de @gw/contracts: rode \`pnpm client:generate\` e faça commit do resultado.`,
      );
    expect([...WEBHOOK_EVENTS]).toEqual(WEBHOOK_OPERATIONS.map((operation) => operation.path));

    const examples = contractExamples();
    expect(new Set(examples.map((example) => example.event))).toEqual(new Set(WEBHOOK_EVENTS));
    for (const { event, body } of examples) {
      const parsed = parseWebhookEvent(JSON.stringify(body));
      expect(parsed.event).toBe(event);
      if (parsed.event === "message.status") expect(MESSAGE_STATUSES).toContain(parsed.data.status);
      if (parsed.event === "message.received") expect(MESSAGE_RECEIVED_TYPES).toContain(parsed.data.type);
    }
  }, 60_000);

  it("differs as soon as the contract's webhooks change (the comparison can fail)", async () => {
    const withoutAccountUpdate = WEBHOOK_OPERATIONS.filter((operation) => operation.path !== "account.update");
    const generated = await generateReceiverSchema(withoutAccountUpdate);
    expect(generated).not.toBe(await committed());
    const events = /export const WEBHOOK_EVENTS = \[([^\]]*)\] as const;/.exec(generated)?.[1] ?? "";
    expect(events.replace(/\s+/g, " ").replace(/,\s*$/, "").trim()).toBe(
      '"message.status", "message.received", "order.updated", "conversation.handover", "conversation.updated"',
    );
    expect(generated).not.toContain("AccountUpdateData");
  }, 60_000);
});
