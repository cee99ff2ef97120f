// SSRF guard: which addresses webhook URLs may reach, at registration and at every attempt. Development
// (WEBHOOK_ALLOW_PRIVATE_NETWORKS) adds loopback and private networks; link-local and cloud metadata addresses stay
// refused in every form (issue 35, item 4).
// Every connection these tests make stays on loopback: the guard refusing before connecting is what is tested,
// so no test points at a private or public address that would actually be contacted (other addresses are only
// classified, or given to the guarded lookup through a fake resolver).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { LookupAddress } from "node:dns";
import type { AddressInfo } from "node:net";
import { createDb, type Db } from "@gw/db";
import { testEnv, testActor, testSecretBox } from "@gw/testkit";
import {
  DEVELOPMENT_INTEGRATION_POLICY,
  IntegrationUrlError,
  PRODUCTION_INTEGRATION_POLICY,
  createAccount,
  setIntegration,
} from "../src/accounts/accounts.ts";
import {
  DELIVERY_ERROR_KIND_MESSAGES,
  classifyError,
  createWebhookSender,
  type WebhookSender,
} from "../src/deliveries/index.ts";
import {
  ADDRESS_REFUSED_CODE,
  classifyAddress,
  createGuardedLookup,
  ipLiteralHost,
  type Resolver,
} from "@gw/webhook-sender";

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["::1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["100.64.0.1", "carrierGradeNat"],
    ["100.127.255.254", "carrierGradeNat"],
    ["100.100.100.200", "cloudMetadata"],
    // Azure's platform address is public unicast: refused as what it serves.
    ["168.63.129.16", "cloudMetadata"],
    ["fd00:ec2::254", "cloudMetadata"],
    ["fc00::1", "uniqueLocal"],
    ["fd12:3456::1", "uniqueLocal"],
    ["fe80::1", "linkLocal"],
    ["[fe80::1]", "linkLocal"],
    ["::ffff:127.0.0.1", "ipv4Mapped"],
    ["::ffff:7f00:1", "ipv4Mapped"],
    ["::ffff:a9fe:a9fe", "ipv4Mapped"],
    // Even a public IPv4 behind a mapped address: no resolver answers that for a real endpoint.
    ["::ffff:8.8.8.8", "ipv4Mapped"],
    ["::7f00:1", "ipv4Compatible"],
    // ipaddr.js reads the dotted IPv4-compatible form as mapped: refused either way.
    ["::127.0.0.1", "ipv4Mapped"],
    ["64:ff9b::7f00:1", "nat64:loopback"],
    ["64:ff9b::a9fe:a9fe", "nat64:linkLocal"],
    ["64:ff9b:1::a00:1", "rfc6052"],
    ["2002:7f00:1::1", "6to4"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.10", "reserved"],
    ["198.51.100.7", "reserved"],
    ["203.0.113.9", "reserved"],
    ["198.18.0.1", "reserved"],
    ["240.0.0.1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["100::1", "discard"],
    ["fec0::1", "deprecatedSiteLocal"],
    ["4000::1", "notGlobalUnicast"],
    // Not the canonical form a resolver returns: never taken for a public address.
    ["2130706433", "invalid"],
    ["example.com", "invalid"],
  ])("refuses %s (%s)", (address, range) => {
    expect(classifyAddress(address)).toEqual({ range, allowed: false });
  });

  it.each(["8.8.8.8", "1.1.1.1", "200.160.2.3", "2001:4860::8888", "2606:4700:4700::1111", "64:ff9b::808:808"])(
    "allows the public address %s",
    (address) => {
      expect(classifyAddress(address)).toEqual({ range: "unicast", allowed: true });
    },
  );

  it.each([
    ["http://2130706433/", "127.0.0.1"],
    ["http://0x7f.0.0.1/", "127.0.0.1"],
    ["http://0177.0.0.1/", "127.0.0.1"],
    ["http://127.1/", "127.0.0.1"],
    ["http://0/", "0.0.0.0"],
    ["https://[::ffff:127.0.0.1]:8443/x", "::ffff:7f00:1"],
    ["https://[::1]/", "::1"],
  ])("reads the IP literal of %s as %s (WHATWG URL normalizes it) and refuses it", (url, literal) => {
    expect(ipLiteralHost(new URL(url))).toBe(literal);
    expect(classifyAddress(literal).allowed).toBe(false);
  });

  it("takes a name for a name", () => {
    expect(ipLiteralHost(new URL("https://hooks.example.com/x"))).toBeNull();
  });
});

/** The clouds' metadata and platform addresses, and forms that reach them without naming them (with their range). */
const METADATA_ADDRESSES: [string, string][] = [
  ["169.254.169.254", "linkLocal"], // AWS, GCP, Azure, Oracle, DigitalOcean IMDS
  ["169.254.170.2", "linkLocal"], // AWS ECS task credentials
  ["169.254.0.23", "linkLocal"], // Tencent Cloud
  ["fd00:ec2::254", "cloudMetadata"], // AWS IMDS over IPv6
  ["fd00:ec2::23", "cloudMetadata"], // EKS Pod Identity
  ["100.100.100.200", "cloudMetadata"], // Alibaba Cloud
  ["168.63.129.16", "cloudMetadata"], // Azure WireServer
  ["fe80::a9fe:a9fe", "linkLocal"],
  ["::ffff:169.254.169.254", "ipv4Mapped"],
  ["::ffff:a9fe:a9fe", "ipv4Mapped"],
  ["::ffff:100.100.100.200", "ipv4Mapped"],
  ["64:ff9b::a9fe:a9fe", "nat64:linkLocal"],
  ["64:ff9b::6464:64c8", "nat64:cloudMetadata"],
  ["::a9fe:a9fe", "ipv4Compatible"],
  ["2002:a9fe:a9fe::1", "6to4"],
];

/** A URL whose host is `address` (IPv6 in brackets); port 9 (discard), so nothing would answer a POST that got out. */
const urlOf = (address: string, path = "/latest/meta-data/") =>
  `http://${address.includes(":") ? `[${address}]` : address}:9${path}`;

describe("classifyAddress with private networks allowed (development)", () => {
  const development = { allowPrivateNetworks: true };

  it.each(METADATA_ADDRESSES)("still refuses the metadata address %s (%s)", (address, range) => {
    expect(classifyAddress(address, development)).toEqual({ range, allowed: false });
    expect(classifyAddress(address)).toEqual({ range, allowed: false });
  });

  it.each([
    ["fe80::1", "linkLocal"],
    ["169.254.1.1", "linkLocal"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.10", "reserved"],
  ])("refuses what no developer's receiver is on: %s (%s)", (address, range) => {
    expect(classifyAddress(address, development)).toEqual({ range, allowed: false });
  });

  it.each([
    ["127.0.0.1", "loopback"],
    ["::1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["fd12:3456::1", "uniqueLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["::ffff:127.0.0.1", "ipv4Mapped"],
    ["::ffff:192.168.0.10", "ipv4Mapped"],
    ["64:ff9b::c0a8:a", "nat64:private"],
    ["8.8.8.8", "unicast"],
  ])("allows the developer's networks: %s (%s)", (address, range) => {
    expect(classifyAddress(address, development)).toEqual({ range, allowed: true });
  });
});

describe("createGuardedLookup", () => {
  /** A resolver answering `addresses` for any name, without touching the network. */
  const answering =
    (addresses: string[]): Resolver =>
    (_hostname, _options, callback) =>
      callback(
        null,
        addresses.map((address): LookupAddress => ({ address, family: address.includes(":") ? 6 : 4 })),
      );

  function run(resolver: Resolver, all: boolean) {
    return new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family: unknown }>((resolve) => {
      createGuardedLookup(resolver)("hooks.example.com", { all }, (error, address, family) =>
        resolve({ error, address, family }),
      );
    });
  }

  it("hands over the checked addresses when every one is public", async () => {
    const resolver = answering(["8.8.8.8", "2001:4860::8888"]);
    expect(await run(resolver, false)).toEqual({ error: null, address: "8.8.8.8", family: 4 });
    expect(await run(resolver, true)).toEqual({
      error: null,
      address: [
        { address: "8.8.8.8", family: 4 },
        { address: "2001:4860::8888", family: 6 },
      ],
      family: undefined,
    });
  });

  it.each([["10.0.0.1"], ["169.254.169.254"], ["::1"], ["::ffff:127.0.0.1"], ["fd00::5"]])(
    "fails with ERR_GW_ADDRESS_REFUSED when one of the addresses is %s",
    async (bad) => {
      for (const all of [false, true]) {
        const { error, address } = await run(answering(["8.8.8.8", bad]), all);
        expect(error?.code).toBe(ADDRESS_REFUSED_CODE);
        expect(error?.message).toContain(bad);
        expect(address).toEqual([]);
      }
    },
  );

  it.each(METADATA_ADDRESSES)(
    "with private networks allowed, still fails when a name resolves to the metadata address %s",
    async (bad) => {
      for (const all of [false, true]) {
        const { error, address } = await new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>(
          (resolve) => {
            createGuardedLookup(answering(["127.0.0.1", bad]), { allowPrivateNetworks: true })(
              "metadata.google.internal",
              { all },
              (error, address) => resolve({ error, address }),
            );
          },
        );
        expect(error?.code).toBe(ADDRESS_REFUSED_CODE);
        expect(error?.message).toContain(bad);
        expect(address).toEqual([]);
      }
    },
  );

  it("with private networks allowed, hands over loopback and private addresses", async () => {
    const result = await new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) => {
      createGuardedLookup(answering(["127.0.0.1", "192.168.0.10", "::1"]), { allowPrivateNetworks: true })(
        "receiver.local",
        { all: true },
        (error, address) => resolve({ error, address }),
      );
    });
    expect(result).toEqual({
      error: null,
      address: [
        { address: "127.0.0.1", family: 4 },
        { address: "192.168.0.10", family: 4 },
        { address: "::1", family: 6 },
      ],
    });
  });

  it("passes a resolver error through and treats an empty answer as not found", async () => {
    const failing: Resolver = (_h, _o, callback) =>
      callback(Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" }), []);
    expect((await run(failing, false)).error?.code).toBe("ENOTFOUND");
    expect((await run(answering([]), true)).error?.code).toBe("ENOTFOUND");
  });

  it("checks what the system resolver answers: localhost is refused", async () => {
    const result = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      createGuardedLookup()("localhost", { all: true }, (error) => resolve(error)),
    );
    expect(result?.code).toBe(ADDRESS_REFUSED_CODE);
  });

  it("is reported as its own error kind, with a Portuguese message", () => {
    expect(classifyError(Object.assign(new Error("x"), { code: ADDRESS_REFUSED_CODE }))).toBe("address_refused");
    expect(DELIVERY_ERROR_KIND_MESSAGES.address_refused).toMatch(/endereço.*não foi enviada/);
  });
});

/** A node:http endpoint on 127.0.0.1 that counts every TCP connection and request it gets. */
async function startCountingReceiver() {
  const requests: IncomingHttpHeaders[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      requests.push(req.headers);
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  server.on("connection", () => (connections += 1));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    get connections() {
      return connections;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("createWebhookSender", () => {
  let receiver: Awaited<ReturnType<typeof startCountingReceiver>>;
  let guarded: WebhookSender;
  let development: WebhookSender;
  const options = { timeoutMs: 2_000, connectTimeoutMs: 1_000, maxSockets: 2, responseBodyLimit: 64 };
  const send = (sender: WebhookSender, url: string) =>
    sender.send({ url, body: '{"event":"message.status"}', headers: { "content-type": "application/json" } });

  beforeAll(async () => {
    receiver = await startCountingReceiver();
    guarded = createWebhookSender({ ...options, allowPrivateNetworks: false });
    development = createWebhookSender({ ...options, allowPrivateNetworks: true });
  });
  afterAll(async () => {
    guarded.close();
    development.close();
    await receiver.close();
  });

  // Each of these reaches the loopback receiver when nothing guards it (the development half proves it).
  const forms: [string, (port: number) => string][] = [
    ["an IPv4 literal", (port) => `http://127.0.0.1:${port}/webhooks`],
    ["a name that resolves to loopback", (port) => `http://localhost:${port}/webhooks`],
    ["a decimal IPv4", (port) => `http://2130706433:${port}/webhooks`],
    ["a hexadecimal IPv4", (port) => `http://0x7f.0.0.1:${port}/webhooks`],
    ["an IPv4-mapped IPv6 literal", (port) => `http://[::ffff:127.0.0.1]:${port}/webhooks`],
  ];

  it.each(forms)("guard on: %s is refused as address_refused and the receiver gets nothing", async (_form, url) => {
    const before = { connections: receiver.connections, requests: receiver.requests.length };
    const result = await send(guarded, url(receiver.port));
    expect(result).toMatchObject({ statusCode: null, responseBody: null, errorKind: "address_refused" });
    // Give a connection that should not exist the time to show up.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.connections).toBe(before.connections);
    expect(receiver.requests).toHaveLength(before.requests);
  });

  it.each(forms)("development setting: %s gets the POST", async (_form, url) => {
    const before = receiver.requests.length;
    const result = await send(development, url(receiver.port));
    expect(result).toMatchObject({ statusCode: 200, errorKind: null, responseBody: "ok" });
    expect(receiver.requests).toHaveLength(before + 1);
  });

  it.each(METADATA_ADDRESSES)(
    "development setting: the metadata address %s as the URL's host is address_refused before any connection",
    async (address) => {
      const result = await send(development, urlOf(address));
      expect(result).toMatchObject({ statusCode: null, responseBody: null, errorKind: "address_refused" });
    },
  );

  it("development setting: a name resolving to a metadata address is refused even beside loopback; the receiver gets nothing", async () => {
    const asked: string[] = [];
    // Each metadata name answers the loopback receiver first: let through, the POST would reach it.
    const names = new Map<string, string[]>(
      METADATA_ADDRESSES.map(([address], index) => [`metadados-${index}.invalid`, ["127.0.0.1", address]]),
    );
    names.set("receptor.invalid", ["127.0.0.1"]);
    const resolving = createWebhookSender({
      ...options,
      allowPrivateNetworks: true,
      resolve: (hostname, _options, callback) => {
        asked.push(hostname);
        const addresses = names.get(hostname) ?? [];
        callback(
          null,
          addresses.map((address): LookupAddress => ({ address, family: address.includes(":") ? 6 : 4 })),
        );
      },
    });
    try {
      const before = { connections: receiver.connections, requests: receiver.requests.length };
      for (const name of [...names.keys()].filter((n) => n.startsWith("metadados-"))) {
        const result = await send(resolving, `http://${name}:${receiver.port}/webhooks`);
        expect({ name, ...result }).toMatchObject({ name, statusCode: null, errorKind: "address_refused" });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(receiver.connections).toBe(before.connections);
      expect(receiver.requests).toHaveLength(before.requests);

      // The same sender delivers to a name of the developer's own machine: the guard is what refused above.
      const delivered = await send(resolving, `http://receptor.invalid:${receiver.port}/webhooks`);
      expect(delivered).toMatchObject({ statusCode: 200, errorKind: null });
      expect(receiver.requests).toHaveLength(before.requests + 1);
      expect(asked).toEqual(expect.arrayContaining([...names.keys()]));
    } finally {
      resolving.close();
    }
  });

  it("never sends userinfo: a URL with a user or password is invalid_url, even in development", async () => {
    const before = { connections: receiver.connections, requests: receiver.requests.length };
    for (const sender of [development, guarded]) {
      for (const userinfo of ["ana:segredo@", "ana@", ":segredo@"]) {
        const result = await send(sender, `http://${userinfo}127.0.0.1:${receiver.port}/webhooks`);
        expect(result).toMatchObject({ statusCode: null, errorKind: "invalid_url" });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.connections).toBe(before.connections);
    expect(receiver.requests).toHaveLength(before.requests);
  });
});

describe("setIntegration (registration)", () => {
  let db: Db;
  let accountId: string;

  beforeAll(async () => {
    db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
    accountId = (await createAccount({ db }, { actor: testActor, name: "Conta SSRF" })).id;
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  const register = (url: string, policy = PRODUCTION_INTEGRATION_POLICY) =>
    setIntegration(
      { db, policy, secrets: testSecretBox() },
      { actor: testActor, accountId, url, events: ["message.status"] },
    );

  async function expectRefused(
    url: string,
    reason: IntegrationUrlError["reason"],
    policy = PRODUCTION_INTEGRATION_POLICY,
  ) {
    const error: unknown = await register(url, policy).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(IntegrationUrlError);
    expect(error).toMatchObject({ reason });
    // A Portuguese sentence for the operator (the CLI prints it) or the tenant.
    expect((error as Error).message).toMatch(/^A URL da integração .+\.$/);
    expect(await db.integration.count({ where: { accountId, url } })).toBe(0);
  }

  it.each([
    "https://ana:segredo@hooks.example.com/h",
    "https://ana@hooks.example.com/h",
    "https://:x@hooks.example.com/",
  ])("refuses userinfo: %s", async (url) => {
    await expectRefused(url, "userinfo");
    await expectRefused(
      url.replace("https:", "http:").replace("hooks.example.com", "127.0.0.1"),
      "userinfo",
      DEVELOPMENT_INTEGRATION_POLICY,
    );
  });

  it.each(["http://hooks.example.com/h", "ftp://hooks.example.com/h"])(
    "production refuses a scheme other than https: %s",
    async (url) => {
      await expectRefused(url, "scheme");
    },
  );

  it.each([
    "https://127.0.0.1/h",
    "https://127.0.0.1:8443/h",
    "https://[::1]/h",
    "https://10.0.0.1/h",
    "https://172.16.0.1/h",
    "https://192.168.1.1/h",
    "https://169.254.169.254/latest/meta-data/",
    "https://0.0.0.0/h",
    "https://100.64.0.1/h",
    "https://[fc00::1]/h",
    "https://[fe80::1]/h",
    "https://[::ffff:127.0.0.1]/h",
    "https://[::ffff:7f00:1]/h",
    "https://224.0.0.1/h",
    "https://255.255.255.255/h",
    "https://2130706433/h",
    "https://0x7f.1/h",
    "https://localhost/h",
    "https://hooks.localhost./h",
  ])("production refuses a host on a non-public range: %s", async (url) => {
    await expectRefused(url, "address_refused");
  });

  it("refuses what is not a URL", async () => {
    await expectRefused("hooks.example.com/h", "invalid_url");
  });

  it("production accepts https to public hosts (no DNS at registration: the dispatcher checks every attempt)", async () => {
    for (const url of ["https://hooks.example.com/h", "https://8.8.8.8/h", "https://[2001:4860::8888]/h"]) {
      await expect(register(url)).resolves.toMatchObject({ url, active: true });
    }
  });

  it.each(METADATA_ADDRESSES)(
    "the development policy still refuses the metadata address %s (%s), and https to it too",
    async (address) => {
      await expectRefused(urlOf(address), "address_refused", DEVELOPMENT_INTEGRATION_POLICY);
      await expectRefused(urlOf(address).replace("http:", "https:"), "address_refused", DEVELOPMENT_INTEGRATION_POLICY);
      await expectRefused(urlOf(address), "scheme");
    },
  );

  it("the development policy accepts http and loopback receivers", async () => {
    const url = "http://127.0.0.1:9/webhooks";
    await expect(register(url, DEVELOPMENT_INTEGRATION_POLICY)).resolves.toMatchObject({ url });
  });
});
