import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { RunningSandbox, SentMessage } from "../src/index.ts";
import { bodyParams, control, PHONE_ID, sendMessage, start, template, type Answer } from "./helpers.ts";
import { SEND_TO_BSUID, SEND_TO_BSUID_ANSWER, shapeOf } from "./meta-2026-samples.ts";

// POST /{phone-number-id}/messages addressed by BSUID (meta-2026 §1.6, §1.9): `recipient` instead of `to`, `to`
// wins when both are set, the answer names the BSUID and never the phone, BSUIDs are scoped to a portfolio, and
// authentication templates with OTP buttons cannot go to a BSUID (131062).
const TO = "5511988887777";
const OTHER_PORTFOLIO_NUMBER = "106540352249999";

interface UserView {
  user_id: string;
  parent_user_id: string;
}

const otpButton = { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "482913" }] };

function addressed(address: Record<string, string>, rest: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    ...address,
    type: "text",
    text: { body: "Olá" },
    ...rest,
  };
}

function expectError(answer: Answer, code: number, details?: RegExp): void {
  expect(answer.status).toBe(400);
  expect(answer.body.error?.code).toBe(code);
  if (details) expect(answer.body.error?.error_data?.details).toMatch(details);
}

describe("sends addressed by recipient (BSUID)", () => {
  let sandbox: RunningSandbox;
  let user: UserView;

  beforeAll(async () => {
    sandbox = await start({ numberPortfolios: { [OTHER_PORTFOLIO_NUMBER]: "900000000000001" } });
  });
  beforeEach(async () => {
    await control(sandbox.url, "/reset", { config: true });
    user = (await control<UserView>(sandbox.url, "/users", { username: "pablomorales", name: "Pablo M." })).body;
    // The user writes: the window is open for free text.
    await control(sandbox.url, "/inbound", {
      phone_number_id: PHONE_ID,
      username: "pablomorales",
      type: "text",
      text: "Oi",
    });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it("answers a BSUID send with the sample's shape: contacts[{input, user_id}], no wa_id", async () => {
    const answer = await sendMessage(sandbox.url, { ...SEND_TO_BSUID, recipient: user.user_id });
    expect(answer.status).toBe(200);
    expect(shapeOf(answer.body)).toEqual(shapeOf(SEND_TO_BSUID_ANSWER));
    expect(answer.body.contacts).toEqual([{ input: user.user_id, user_id: user.user_id }]);
    const [sent] = (await control<SentMessage[]>(sandbox.url, "/sent")).body;
    expect(sent).toMatchObject({ to: null, wa_id: null, recipient: user.user_id, user_id: user.user_id });
  });

  it("uses `to` when both are given (recipient ignored, even a bad one) and answers like a phone send", async () => {
    const answer = await sendMessage(sandbox.url, template(TO, "hello_world", [], "en_US"));
    const both = await sendMessage(sandbox.url, {
      ...template(TO, "hello_world", [], "en_US"),
      recipient: "not a bsuid",
    });
    expect(both.status).toBe(200);
    expect(both.body.contacts).toEqual(answer.body.contacts);
    expect(both.body.contacts).toEqual([{ input: TO, wa_id: TO }]);
  });

  it("refuses a send with neither to nor recipient with Meta's 100 'The parameter to is required.'", async () => {
    const answer = await sendMessage(sandbox.url, addressed({}));
    expectError(answer, 100, /^The parameter to is required\.$/);
  });

  it("refuses a malformed BSUID (100), and an unknown or other-portfolio one (131009)", async () => {
    for (const bad of ["5511988887777", "BR-123", "br.123", "BR.", `BR.${"1".repeat(129)}`, "BR.12_3"]) {
      expectError(await sendMessage(sandbox.url, addressed({ recipient: bad })), 100, /recipient/);
    }
    expectError(await sendMessage(sandbox.url, addressed({ recipient: "BR.1502576394655843" })), 131009, /portfolio/);
    // The same user seen from a number of another portfolio has another BSUID: this one names nobody there.
    const fromOther = await sendMessage(sandbox.url, addressed({ recipient: user.user_id }), {
      phoneId: OTHER_PORTFOLIO_NUMBER,
    });
    expectError(fromOther, 131009);
    const looked = await control<{ users: { user_ids: Record<string, string> }[] }>(
      sandbox.url,
      `/users?user_id=${user.user_id}`,
    );
    const otherId = looked.body.users[0]?.user_ids["900000000000001"] ?? "";
    expect(otherId).toMatch(/^US\.\d{20}$/);
    expect(otherId).not.toBe(user.user_id);
    const template = { type: "template", template: { name: "hello_world", language: { code: "en_US" } } };
    const right = await sendMessage(sandbox.url, addressed({ recipient: otherId }, template), {
      phoneId: OTHER_PORTFOLIO_NUMBER,
    });
    expect(right.status).toBe(200);
  });

  it("takes a parent BSUID only where the portfolio has parent BSUIDs enabled", async () => {
    expectError(await sendMessage(sandbox.url, addressed({ recipient: user.parent_user_id })), 131009);
    await control(sandbox.url, "/portfolios", { parent_user_ids: true });
    const answer = await sendMessage(sandbox.url, addressed({ recipient: user.parent_user_id }));
    expect(answer.status).toBe(200);
    expect(answer.body.contacts).toEqual([{ input: user.parent_user_id, user_id: user.parent_user_id }]);
  });

  it("refuses an authentication template with an OTP button to a BSUID with 131062 (HTTP 400), not to the phone", async () => {
    const otp = {
      type: "template",
      template: {
        name: "codigo_verificacao",
        language: { code: "pt_BR" },
        components: [bodyParams("482913"), otpButton],
      },
    };
    const answer = await sendMessage(sandbox.url, addressed({ recipient: user.user_id }, otp));
    expectError(answer, 131062);
    expect(answer.body.error?.message).toBe(
      "(#131062) Business-scoped User ID (BSUID) recipients are not supported for this message.",
    );
    const phoneUser = (await control<UserView>(sandbox.url, "/users", { phone: TO })).body;
    expectError(await sendMessage(sandbox.url, addressed({ recipient: phoneUser.user_id }, otp)), 131062);
    expect((await sendMessage(sandbox.url, addressed({ to: TO }, otp))).status).toBe(200);
    // Other templates go to a BSUID.
    const utility = { type: "template", template: { name: "hello_world", language: { code: "en_US" } } };
    expect((await sendMessage(sandbox.url, addressed({ recipient: user.user_id }, utility))).status).toBe(200);
  });

  it("applies the window, pair rate and unreachable list to the user, whichever way it is addressed", async () => {
    const looked = await control<{ users: UserView[] }>(sandbox.url, `/users?phone=${TO}`);
    const phoneUserId = looked.body.users[0]?.user_id ?? "";
    // No message from TO yet: free text to its BSUID is outside the window.
    expectError(await sendMessage(sandbox.url, addressed({ recipient: phoneUserId })), 131047);
    await control(sandbox.url, "/inbound", { phone_number_id: PHONE_ID, from: TO, type: "text", text: "Oi" });
    expect((await sendMessage(sandbox.url, addressed({ recipient: phoneUserId }))).status).toBe(200);

    await control(sandbox.url, "/config", { pairRate: { max: 1, windowMs: 60_000 } });
    expect((await sendMessage(sandbox.url, addressed({ to: TO }))).status).toBe(200);
    expectError(await sendMessage(sandbox.url, addressed({ recipient: phoneUserId })), 131056);

    await control(sandbox.url, "/config", { pairRate: null, unreachable: [user.user_id] });
    expectError(await sendMessage(sandbox.url, addressed({ recipient: user.user_id })), 131026);
  });
});
