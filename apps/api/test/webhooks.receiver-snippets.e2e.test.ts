// The receivers of docs/webhooks.md in PHP, Python and Go (docs/receivers/), each run by its language's own runtime
// (Debian's php-cli, python3 and golang, which scripts/test.sh installs when missing) as the endpoint of an
// integration: they must verify the gateway's real signed deliveries under both schemes, through a rotation's overlap
// too, and refuse what the gateway did not sign. A snippet that drifts from the signer, or from the page that shows
// it, fails here.
import { execFile, spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { rotateIntegrationSecret } from "@gw/core/accounts";
import type { Dispatcher } from "@gw/dispatcher";
import { signatureHeaders } from "@gw/signer";
import {
  contactWrites,
  createTestAccount,
  seedIntegration,
  startTestDispatcher,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "@gw/test-stack";
import { REPO_ROOT, eventually, freePort, testActor, testSecretBox } from "@gw/testkit";

type Language = "php" | "python" | "go";
type Scheme = "pt" | "standard-webhooks";

/** Each snippet's file and the fence it is shown in on docs/webhooks.md. */
const SNIPPETS: Record<Language, { file: string; fence: string }> = {
  php: { file: "docs/receivers/webhook.php", fence: "php" },
  python: { file: "docs/receivers/webhook.py", fence: "python" },
  go: { file: "docs/receivers/webhook.go", fence: "go" },
};
const LANGUAGES = Object.keys(SNIPPETS) as Language[];
const SCHEMES: Scheme[] = ["pt", "standard-webhooks"];

interface SnippetReceiver {
  language: Language;
  scheme: Scheme;
  integrationId: string;
  /** The secret the receiver was started with (kept through the rotation below: the old one). */
  secret: string;
  url: string;
  child: ChildProcessByStdio<null, Readable, Readable>;
  output(): string;
}

let gateway: TestGateway;
let dispatcher: Dispatcher;
let account: TestAccount;
let receivers: SnippetReceiver[] = [];

/**
 * The Go snippet, compiled. With a C compiler on PATH the build uses the standard library Debian's golang ships
 * compiled (about a second); without one, cgo is off and Go compiles its standard library once into its cache.
 */
async function buildGoReceiver(): Promise<string> {
  const binary = join(mkdtempSync(join(tmpdir(), "gw-go-receiver-")), "webhook");
  const hasCCompiler = (process.env.PATH ?? "").split(":").some((dir) => dir !== "" && existsSync(join(dir, "gcc")));
  await promisify(execFile)("go", ["build", "-o", binary, join(REPO_ROOT, SNIPPETS.go.file)], {
    cwd: REPO_ROOT,
    env: { ...process.env, CGO_ENABLED: hasCCompiler ? "1" : "0", GOTOOLCHAIN: "local", GOPROXY: "off", GOFLAGS: "" },
    timeout: 120_000,
  });
  return binary;
}

function startSnippet(
  language: Language,
  input: { port: number; secret: string; scheme: Scheme; goBinary: string },
): Pick<SnippetReceiver, "child" | "output"> {
  const file = join(REPO_ROOT, SNIPPETS[language].file);
  const [command, args] =
    language === "php"
      ? ["php", ["-S", `127.0.0.1:${input.port}`, file]]
      : language === "python"
        ? ["python3", [file]]
        : [input.goBinary, []];
  const child = spawn(command, args, {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(input.port),
      WEBHOOK_SECRET: input.secret,
      WEBHOOK_SIGNATURE_SCHEME: input.scheme,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  return { child, output: () => output };
}

const label = (receiver: Pick<SnippetReceiver, "language" | "scheme">) => `${receiver.language}/${receiver.scheme}`;

/** A contact writes in: one message.received for each receiver's integration. Answers the delivery id of each. */
async function deliverOneEvent(text: string): Promise<Map<string, string>> {
  const inbound = await contactWrites(gateway, {
    phone_number_id: account.phoneNumberId,
    from: "5511955550001",
    type: "text",
    text,
  });
  expect(inbound.webhook_status).toBe(200);
  const deliveries = await eventually(async () => {
    const rows = await gateway.db.delivery.findMany({
      where: { accountId: account.accountId, body: { contains: inbound.id } },
      select: { id: true, integrationId: true },
    });
    return rows.length === receivers.length ? rows : undefined;
  });
  return new Map(deliveries.map((row) => [row.integrationId, row.id.toString()]));
}

/** Each delivery once its first attempt is recorded: its status and the answer's code, by receiver. */
async function settled(deliveryIds: Map<string, string>): Promise<Record<string, [string, number | null]>> {
  const rows = await eventually(async () => {
    const found = await gateway.db.delivery.findMany({
      where: { id: { in: [...deliveryIds.values()].map(BigInt) } },
      select: { integrationId: true, status: true, lastStatusCode: true, attemptCount: true },
    });
    return found.every((row) => row.attemptCount > 0 && row.status !== "delivering") ? found : undefined;
  });
  return Object.fromEntries(
    receivers.map((receiver) => {
      const row = rows.find((r) => r.integrationId === receiver.integrationId);
      return [label(receiver), [row?.status ?? "missing", row?.lastStatusCode ?? null]];
    }),
  );
}

const allDelivered = () =>
  Object.fromEntries(receivers.map((receiver) => [label(receiver), ["delivered", 200]])) as Record<
    string,
    [string, number]
  >;

beforeAll(async () => {
  let goBinary: string;
  [goBinary, gateway] = await Promise.all([
    buildGoReceiver(),
    startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } }),
  ]);
  account = await createTestAccount(gateway.db);
  for (const language of LANGUAGES)
    for (const scheme of SCHEMES) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/webhooks`;
      const seeded = await seedIntegration(gateway.db, {
        accountId: account.accountId,
        url,
        events: ["message.received"],
        scheme,
      });
      const started = startSnippet(language, { port, secret: seeded.secret, scheme, goBinary });
      receivers.push({ language, scheme, integrationId: seeded.integrationId, secret: seeded.secret, url, ...started });
    }
  // Up when it answers anything (a GET is refused by each snippet).
  await Promise.all(
    receivers.map((receiver) =>
      eventually(
        () =>
          fetch(receiver.url).then(
            () => true,
            () => undefined,
          ),
        { what: `${label(receiver)} up` },
      ),
    ),
  );
  dispatcher = await startTestDispatcher(gateway, { WEBHOOK_RETRY_SCHEDULE_MS: "60000" });
}, 90_000);

afterAll(async () => {
  await dispatcher?.stop();
  for (const receiver of receivers) {
    if (receiver.child.exitCode === null && receiver.child.signalCode === null) {
      receiver.child.kill("SIGTERM");
      await once(receiver.child, "exit");
    }
  }
  receivers = [];
  await gateway?.close();
});

describe("the PHP, Python and Go receivers of docs/webhooks.md", () => {
  it("verify the gateway's real signed deliveries under both schemes, and through a rotation's overlap with the old secret", async () => {
    const first = await deliverOneEvent("primeira");
    expect(await settled(first)).toEqual(allDelivered());
    // Each verified the delivery it acknowledged (the line a snippet prints after its check).
    for (const receiver of receivers)
      expect(receiver.output()).toContain(
        `verificado message.received delivery=${first.get(receiver.integrationId) ?? "?"}\n`,
      );

    // The secrets rotate with an overlap; the receivers keep the old one, which signs X-PT-Signature-Previous (pt) or
    // the second webhook-signature value (standard-webhooks).
    for (const receiver of receivers)
      await rotateIntegrationSecret(
        { db: gateway.db, secrets: testSecretBox() },
        { actor: testActor, integrationId: receiver.integrationId, overlapHours: 24 },
      );
    const second = await deliverOneEvent("segunda");
    expect(await settled(second)).toEqual(allDelivered());
    for (const receiver of receivers)
      expect(receiver.output()).toContain(`delivery=${second.get(receiver.integrationId) ?? "?"}\n`);
  });

  it("refuse with 401 a changed body, another secret, a stale timestamp and a missing signature", async () => {
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ event: "message.received", delivery_id: "900001", data: { text: "Oi" } });
    const post = (receiver: SnippetReceiver, headers: Record<string, string>, sent = body) =>
      fetch(receiver.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
        body: sent,
      }).then((res) => res.status);
    const signed = (receiver: SnippetReceiver, secret: string, timestamp: number) =>
      signatureHeaders(receiver.scheme, {
        secrets: { current: secret, previous: null },
        deliveryId: "900001",
        timestamp,
        body,
      });
    const answers = await Promise.all(
      receivers.map(async (receiver) => {
        const valid = signed(receiver, receiver.secret, now);
        return [
          label(receiver),
          {
            // The control: the same request, signed by the gateway's signer with the receiver's secret, is taken.
            signed: await post(receiver, valid),
            changedBody: await post(receiver, valid, body.replace("Oi", "Oi!")),
            otherSecret: await post(receiver, signed(receiver, `${receiver.secret.slice(0, -4)}AAA=`, now)),
            staleTimestamp: await post(receiver, signed(receiver, receiver.secret, now - 301)),
            unsigned: await post(receiver, {}),
          },
        ] as const;
      }),
    );
    const expected = { signed: 200, changedBody: 401, otherSecret: 401, staleTimestamp: 401, unsigned: 401 };
    expect(Object.fromEntries(answers)).toEqual(Object.fromEntries(receivers.map((r) => [label(r), expected])));
  });

  it("are shown on docs/webhooks.md exactly as they are run", () => {
    const page = readFileSync(join(REPO_ROOT, "docs/webhooks.md"), "utf8");
    for (const { file, fence } of Object.values(SNIPPETS))
      expect({
        file,
        shown: page.includes(`\`\`\`${fence}\n${readFileSync(join(REPO_ROOT, file), "utf8")}\`\`\`\n`),
      }).toEqual({ file, shown: true });
  });
});
