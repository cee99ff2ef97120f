// The SDK as an integrator gets it, by docs/client.md's own commands (issue 38's acceptance): `pnpm sdk:pack` (which
// builds and packs both packages), the `npm install` line it prints run in a fresh npm project outside the workspace,
// then the menu bot of section 8, copied from the guide, run with tsx against the sandbox with the guide's curl
// commands (the stack's addresses and ids in place of npm start's). The guide's commands are this test's commands: a
// block changed in the guide changes what runs here. Also: a plain-Node program sending a message through the running
// gateway and verifying its real signed deliveries (both schemes), and the project typechecked under moduleResolution
// node16 and bundler. No package in the tarballs may depend on a private workspace package.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createTestAccount, seedIntegration, startStack, type Stack, type TestAccount } from "@gw/test-stack";
import { eventually, freePort, REPO_ROOT } from "@gw/testkit";

const run = promisify(execFile);
const RUNTIME_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies"] as const;

/** Where `pnpm sdk:pack` packs by default, and what the guide writes in its place. */
const SDK_FOLDER = join(REPO_ROOT, ".data/sdk");
const CHECKOUT_PLACEHOLDER = "/caminho/do/gateway";

/** A fenced block of docs/client.md between `<!-- name -->` and `<!-- /name -->`. */
function docsBlock(docs: string, name: string): string {
  const found = new RegExp(`<!-- ${name} -->\\n\\n\`\`\`(?:sh|ts)\\n([\\s\\S]*?)\`\`\`\\n\\n<!-- /${name} -->`).exec(
    docs,
  );
  if (found?.[1] === undefined) throw new Error(`docs/client.md has no block "${name}"`);
  return found[1];
}

/** A shell block's commands, one per entry: continuation lines joined, trailing comments cut. */
function commandsOf(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "");
}

/** The names an `export A=1 B=2` command sets. */
const exportedNames = (command: string) =>
  command
    .replace(/^export\s+/, "")
    .split(/\s+/)
    .map((pair) => pair.split("=")[0]);

/** The contact of the guide's curl bodies. */
const CONTACT = "5511987654321";

/** What GET /_sandbox/sent lists of one send. */
interface SentMessage {
  phone_number_id: string;
  to: string | null;
  type: string;
  body: { interactive?: unknown };
  raw: string;
}

type Manifest = { name: string; private?: boolean } & Partial<Record<string, Record<string, string>>>;

/** Every workspace package marked private (apps and packages). */
async function privateWorkspacePackages(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const kind of ["apps", "packages"]) {
    for (const folder of await readdir(join(REPO_ROOT, kind))) {
      const manifest = JSON.parse(
        await readFile(join(REPO_ROOT, kind, folder, "package.json"), "utf8").catch(() => "{}"),
      ) as Partial<Manifest>;
      if (manifest.private === true && manifest.name) names.add(manifest.name);
    }
  }
  return names;
}

/** Every package installed in the project's node_modules (scoped ones as `@scope/name`), at any depth. */
async function installedPackages(folder: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (modules: string): Promise<void> => {
    const entries = await readdir(modules, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const names = entry.name.startsWith("@")
        ? (await readdir(join(modules, entry.name))).map((name) => `${entry.name}/${name}`)
        : [entry.name];
      for (const name of names) {
        found.push(name);
        await walk(join(modules, name, "node_modules"));
      }
    }
  };
  await walk(join(folder, "node_modules"));
  return found;
}

const TSCONFIGS = {
  node16: { module: "node16", moduleResolution: "node16" },
  bundler: { module: "esnext", moduleResolution: "bundler" },
};

describe("@pt-gateway/client and @pt-gateway/webhooks installed from their tarballs, as docs/client.md says", () => {
  let docs: string;
  let project: string;
  let stack: Stack;
  let tarballs: string[];
  let packOutput: string;
  let installLine: string;
  /** The guide's `npx tsx bot.ts`, while it runs (its process group is ended after the tests). */
  let bot: ChildProcess | undefined;

  /** Runs one of the guide's shell commands in the project, the checkout's path in place of the guide's. */
  const shell = (command: string, env: Record<string, string> = {}) =>
    run("sh", ["-c", command.replaceAll(CHECKOUT_PLACEHOLDER, REPO_ROOT)], {
      cwd: project,
      env: { ...process.env, ...env },
      timeout: 90_000,
    });

  beforeAll(async () => {
    docs = await readFile(join(REPO_ROOT, "docs/client.md"), "utf8");
    project = await mkdtemp(join(tmpdir(), "pt-gateway-integrator-"));
    // Section 1: `pnpm sdk:pack` in the checkout, then its line in the project. The gateway starts once the packing
    // builds (two tsup runs, side by side) have left the cores.
    const [pack, install, ...rest] = commandsOf(docsBlock(docs, "sdk-install"));
    expect([pack, rest]).toEqual(["pnpm sdk:pack", []]);
    installLine = install ?? "";
    expect(installLine).toMatch(/^npm install \S+\/pt-gateway-client-[^ ]+\.tgz \S+\/pt-gateway-webhooks-[^ ]+\.tgz$/);
    packOutput = (await run("sh", ["-c", pack ?? ""], { cwd: REPO_ROOT, timeout: 110_000 })).stdout;
    tarballs = (await readdir(SDK_FOLDER)).filter((file) => file.endsWith(".tgz")).sort();

    const integratorFiles = join(REPO_ROOT, "packages/webhooks/test/integrator");
    await copyFile(join(integratorFiles, "integrate.mjs"), join(project, "integrate.mjs"));
    await copyFile(join(integratorFiles, "check.mts"), join(project, "check.mts"));
    // Section 8's project: the two files as the guide shows them, and a PDF as boleto.pdf.
    await writeFile(join(project, "menu-bot.ts"), docsBlock(docs, "menu-bot"));
    await writeFile(join(project, "bot.ts"), docsBlock(docs, "menu-bot-run"));
    await copyFile(
      join(REPO_ROOT, "apps/provider-sandbox/src/media/samples/document.pdf"),
      join(project, "boleto.pdf"),
    );
    for (const [name, options] of Object.entries(TSCONFIGS)) {
      await writeFile(
        join(project, `tsconfig.${name}.json`),
        JSON.stringify({
          compilerOptions: {
            ...options,
            target: "es2022",
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ["node"],
            // The guide's bot imports its menu bot by its .ts name, as tsx runs it.
            allowImportingTsExtensions: true,
          },
          // The guide's bot too: a reader who runs tsc on it gets no error.
          files: ["check.mts", "bot.ts"],
        }),
      );
    }
    const setUp = async () => {
      for (const command of commandsOf(docsBlock(docs, "try-project"))) await shell(command);
    };
    [stack] = await Promise.all([
      // npm start's development policy: a loopback http:// integration URL is accepted (docs/client.md, section 6).
      startStack({ sandbox: true, api: { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } }, dispatcher: true }),
      setUp(),
    ]);
  }, 240_000);

  afterAll(async () => {
    if (bot?.pid !== undefined && bot.exitCode === null) {
      const exited = new Promise((resolve) => bot?.once("exit", resolve));
      process.kill(-bot.pid, "SIGTERM");
      await exited;
    }
    await stack?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it("pnpm sdk:pack prints the guide's npm install line, which sections 1 and 8 both give", () => {
    expect(packOutput).toContain(`\n${installLine.replaceAll(CHECKOUT_PLACEHOLDER, REPO_ROOT)}\n`);
    expect(commandsOf(docsBlock(docs, "try-project"))).toContain(installLine);
    // No install by a name npm does not have yet (it would be a 404).
    expect(docs).not.toMatch(/npm install @pt-gateway\//);
  });

  it("packs both packages with built entry points and no dependency on a private workspace package", async () => {
    // Named by each package's own version: the guide's install line is checked against the pack's output above.
    const version = async (name: string) =>
      (JSON.parse(await readFile(join(REPO_ROOT, "packages", name, "package.json"), "utf8")) as { version: string })
        .version;
    const client = `pt-gateway-client-${await version("client")}.tgz`;
    const webhooks = `pt-gateway-webhooks-${await version("webhooks")}.tgz`;
    expect(tarballs).toEqual([client, webhooks]);
    const manifest = JSON.parse(await readFile(join(project, "package.json"), "utf8")) as Manifest;
    expect(manifest.dependencies).toEqual({
      "@pt-gateway/client": expect.stringMatching(new RegExp(`^file:.*/${client.replaceAll(".", "\\.")}$`)),
      "@pt-gateway/webhooks": expect.stringMatching(new RegExp(`^file:.*/${webhooks.replaceAll(".", "\\.")}$`)),
    });
    const privateNames = await privateWorkspacePackages();
    expect(privateNames).toContain("@gw/receiver");
    for (const name of ["client", "webhooks"]) {
      const manifest = JSON.parse(
        await readFile(join(project, "node_modules/@pt-gateway", name, "package.json"), "utf8"),
      ) as Manifest;
      expect(manifest.private).toBeUndefined();
      const runtime = RUNTIME_FIELDS.flatMap((field) => Object.entries(manifest[field] ?? {}));
      expect(
        runtime.filter(([dependency, range]) => privateNames.has(dependency) || range.startsWith("workspace:")),
      ).toEqual([]);
      expect(manifest.exports).toMatchObject({
        ".": { import: { types: "./dist/index.d.ts", default: "./dist/index.js" } },
      });
      const dist = await readdir(join(project, "node_modules/@pt-gateway", name, "dist"));
      expect(dist.sort()).toEqual(["index.cjs", "index.d.cts", "index.d.ts", "index.js"]);
      for (const file of dist) {
        const text = await readFile(join(project, "node_modules/@pt-gateway", name, "dist", file), "utf8");
        expect(text).not.toMatch(/(from\s*|require\(|import\()["']@gw\//);
      }
    }
    const installed = await installedPackages(project);
    expect(installed).toEqual(expect.arrayContaining(["@pt-gateway/client", "@pt-gateway/webhooks", "openapi-fetch"]));
    expect(installed.filter((name) => privateNames.has(name) || name.startsWith("@gw/"))).toEqual([]);
  });

  it("sends through the running gateway with the client and verifies its signed deliveries under plain Node", async () => {
    const [ptPort, standardPort] = [await freePort(), await freePort()];
    const account = await createTestAccount(stack.db);
    const pt = await seedIntegration(stack.db, {
      accountId: account.accountId,
      url: `http://127.0.0.1:${ptPort}/webhooks`,
      events: ["message.status"],
    });
    const standard = await seedIntegration(stack.db, {
      accountId: account.accountId,
      url: `http://127.0.0.1:${standardPort}/webhooks`,
      events: ["message.status"],
      scheme: "standard-webhooks",
    });
    expect(standard.secret).toMatch(/^whsec_/);
    const { stdout } = await run(process.execPath, ["integrate.mjs"], {
      cwd: project,
      timeout: 40_000,
      env: {
        PATH: process.env.PATH,
        GATEWAY_URL: stack.api?.url ?? "",
        API_KEY: account.apiKey,
        TO: "5511987654321",
        PT_PORT: String(ptPort),
        PT_SECRET: pt.secret,
        STANDARD_PORT: String(standardPort),
        STANDARD_SECRET: standard.secret,
      },
    });
    const seen = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
      cjs: Record<string, string>;
      forgedStatus: number;
      messageId: string;
      pt: Array<{ status: string; deliveryId: string; attempt: number | null }>;
      standard: Array<{ status: string; deliveryId: string; attempt: number | null }>;
    };
    expect(seen.cjs).toEqual({ client: "function", webhooks: "function" });
    expect(seen.forgedStatus).toBe(401);
    expect(seen.messageId).toMatch(/^wamid\./);
    const stored = await stack.db.message.findUnique({ where: { wamid: seen.messageId } });
    expect(stored?.accountId).toBe(account.accountId);
    for (const scheme of ["pt", "standard"] as const) {
      expect(seen[scheme].length).toBeGreaterThan(0);
      expect(seen[scheme][0]).toEqual({
        status: expect.any(String),
        deliveryId: expect.stringMatching(/^\d+$/),
        attempt: 1,
      });
    }
  }, 60_000);

  it("runs section 8's menu bot against the sandbox with the guide's commands: the list, a list tap answered with the PDF, a button tap", async () => {
    const account: TestAccount = await createTestAccount(stack.db);
    const botPort = await freePort();
    // npm start's addresses and demo number, as the guide writes them, and this stack's.
    const local = (command: string) =>
      command
        .replaceAll("http://127.0.0.1:8090", stack.sandboxUrl)
        .replaceAll("http://127.0.0.1:3000/", `http://127.0.0.1:${botPort}/`)
        .replaceAll('"100000000000001"', JSON.stringify(account.phoneNumberId));
    const env: Record<string, string> = { GATEWAY_URL: stack.api?.url ?? "", GATEWAY_API_KEY: account.apiKey };
    const curl = async <T>(command: string | undefined): Promise<T> => {
      expect(command).toMatch(/^curl -s -X POST /);
      return JSON.parse((await shell(local(command ?? ""), env)).stdout) as T;
    };
    const sentTo = async (type: string) =>
      ((await (await fetch(`${stack.sandboxUrl}/_sandbox/sent`)).json()) as SentMessage[]).filter(
        (sent) => sent.phone_number_id === account.phoneNumberId && sent.to === CONTACT && sent.type === type,
      );
    const deliveredToBot = (integrationId: string, messageId: string) =>
      eventually(
        async () =>
          (await stack.db.delivery.findMany({ where: { integrationId, event: "message.received" } })).find(
            (row) => row.status === "delivered" && row.body.includes(messageId),
          ),
        { timeoutMs: 20_000, intervalMs: 100, what: `o bot receber ${messageId}` },
      );

    // 2. The contact writes; the gateway stores it (the window is open) before anything points at the bot.
    const [text, ...others] = commandsOf(docsBlock(docs, "try-text"));
    expect(others).toEqual([]);
    const wrote = await curl<{ id: string; webhook_status: number }>(text);
    expect(wrote.webhook_status).toBe(200);
    await eventually(() => stack.db.inboundMessage.findUnique({ where: { wamid: wrote.id } }), {
      what: "o gateway guardar a mensagem do contato",
    });

    // 3. The integration, over the API, on the bot's URL.
    const [exportKey, create, exportSecret, ...more] = commandsOf(docsBlock(docs, "try-integration"));
    expect(more).toEqual([]);
    expect([exportedNames(exportKey ?? ""), exportedNames(exportSecret ?? "")]).toEqual([
      ["GATEWAY_URL", "GATEWAY_API_KEY"],
      ["GATEWAY_SIGNING_SECRET"],
    ]);
    const created = await curl<{ data: { id: string; payload_version: number; signing_secret: string } }>(create);
    expect(created.data).toMatchObject({ payload_version: 2, signing_secret: expect.stringMatching(/^whsec_/) });
    env.GATEWAY_SIGNING_SECRET = created.data.signing_secret;

    // 4. The bot starts and sends the list.
    const [start] = commandsOf(docsBlock(docs, "try-bot"));
    expect(start).toBe("npx tsx bot.ts");
    const output: string[] = [];
    bot = spawn("sh", ["-c", start ?? ""], {
      cwd: project,
      env: { ...process.env, ...env, PORT: String(botPort) },
      detached: true,
    });
    bot.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    bot.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    const waitFor = <T>(what: string, probe: () => Promise<T | undefined | false>) =>
      eventually(probe, { timeoutMs: 30_000, intervalMs: 100, what }).catch((error: Error) => {
        throw new Error(`${error.message}\n--- bot.ts\n${output.join("")}`);
      });
    const [menu] = await waitFor("o bot enviar a lista", async () => {
      const lists = await sentTo("interactive");
      return lists.length > 0 && lists;
    });
    expect(menu?.body.interactive).toMatchObject({ type: "list", action: { button: "Ver opções" } });

    // 5. The list tap: the bot gets row 7's id (payload version 2) and answers with the PDF, quoting the tap.
    const listTap = await curl<{ id: string; webhook_status: number }>(
      commandsOf(docsBlock(docs, "try-list-tap")).at(0),
    );
    expect(listTap.webhook_status).toBe(200);
    const [document] = await waitFor("o bot enviar o boleto", async () => {
      const documents = await sentTo("document");
      return documents.length > 0 && documents;
    });
    const raw = JSON.parse(document?.raw ?? "{}") as {
      document?: { id: string; filename: string };
      context?: { message_id: string };
    };
    expect(raw).toMatchObject({
      document: { id: expect.stringMatching(/^\d+$/), filename: "boleto.pdf" },
      context: { message_id: listTap.id },
    });
    const listDelivery = await deliveredToBot(created.data.id, listTap.id);
    expect((JSON.parse(listDelivery.body) as { data: { interactive: unknown } }).data.interactive).toMatchObject({
      type: "list_reply",
      id: "opcao-7",
      title: "Segunda via do boleto",
    });

    // 6. The button tap: delivered with its id, taken (204) and left without an answer.
    const buttonTap = await curl<{ id: string; webhook_status: number }>(
      commandsOf(docsBlock(docs, "try-button-tap")).at(0),
    );
    expect(buttonTap.webhook_status).toBe(200);
    const buttonDelivery = await waitFor("o bot receber o botão", () => deliveredToBot(created.data.id, buttonTap.id));
    expect(buttonDelivery.lastStatusCode).toBe(204);
    expect((JSON.parse(buttonDelivery.body) as { data: { interactive: unknown } }).data.interactive).toEqual({
      type: "button_reply",
      id: "falar-atendente",
      title: "Falar com atendente",
      description: null,
    });
    expect(await sentTo("document")).toHaveLength(1);

    // 7. "Falar com atendente" (issue 39): the bot hands the conversation to a person and says so, then stays quiet.
    const personTap = await curl<{ id: string; webhook_status: number }>(
      commandsOf(docsBlock(docs, "try-person-tap")).at(0),
    );
    expect(personTap.webhook_status).toBe(200);
    const [notice] = await waitFor("o bot avisar que uma pessoa vai atender", async () => {
      const texts = await sentTo("text");
      return texts.length > 0 && texts;
    });
    expect(JSON.stringify(notice?.body)).toContain("Uma pessoa da nossa equipe vai continuar a conversa aqui.");
    const conversation = (await (
      await fetch(`${stack.api?.url ?? ""}/public/v1/conversations/${CONTACT}`, {
        headers: { authorization: `Bearer ${account.apiKey}` },
      })
    ).json()) as { data: { handler: { value: string; note: string | null } } };
    expect(conversation.data.handler).toMatchObject({ value: "human" });
    // Option 7 again, while a person holds it: delivered with handler human, taken (204), and no second boleto.
    const quietTap = await curl<{ id: string; webhook_status: number }>(
      commandsOf(docsBlock(docs, "try-list-tap")).at(0),
    );
    const quiet = await waitFor("o bot receber a escolha sem responder", () =>
      deliveredToBot(created.data.id, quietTap.id),
    );
    expect((JSON.parse(quiet.body) as { data: { handler: string } }).data.handler).toBe("human");
    expect(quiet.lastStatusCode).toBe(204);
    expect(await sentTo("document")).toHaveLength(1);
    expect(await sentTo("text")).toHaveLength(1);
  }, 120_000);

  it.each(Object.keys(TSCONFIGS))(
    "typechecks the integrator's project with moduleResolution %s",
    async (name) => {
      const tsc = join(REPO_ROOT, "node_modules/typescript/bin/tsc");
      const result = await run(process.execPath, [tsc, "-p", `tsconfig.${name}.json`], { cwd: project }).catch(
        (error: Error & { stdout?: string }) => ({ stdout: error.stdout || error.message }),
      );
      expect(result.stdout).toBe("");
    },
    30_000,
  );
});
