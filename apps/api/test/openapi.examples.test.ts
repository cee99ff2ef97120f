import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import request from "supertest";
import type { Dispatcher } from "@gw/dispatcher";
import { DEVELOPMENT_INTEGRATION_POLICY, setIntegration } from "@gw/core/accounts";
import { eventually, testActor, testSecretBox } from "@gw/testkit";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { startPipeline, stopPipeline, type Receiver } from "./support/pipeline.ts";

// Each documented request example goes through the API (against the provider sandbox), and the answers, for
// each operation and status, validate against the schema the document gives for that status (ajv, JSON Schema
// 2020-12, compiled from the served document's components). The signed webhooks a receiver gets validate against
// the documented webhooks, headers included.

type Json = Record<string, unknown>;

function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function at(root: unknown, ...path: string[]): Json {
  let current: unknown = root;
  for (const key of path) current = isJson(current) ? current[key] : undefined;
  if (!isJson(current)) throw new Error(`nada em ${path.join(" / ")}`);
  return current;
}

const BASE = "https://gateway.test/openapi.json";
/** A real one-page PDF (the sandbox's sample), for the document example. */
const PDF = readFileSync(new URL("../../provider-sandbox/src/media/samples/document.pdf", import.meta.url));

/** Rewrites the document's local refs (#/components/...) to the id under which the components are added to ajv. */
function absoluteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(absoluteRefs);
  if (!isJson(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `${BASE}${v}` : absoluteRefs(v),
    ]),
  );
}

class DocumentSchemas {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    this.ajv.addSchema({ $id: BASE, components: at(document, "components") });
  }

  private compile(key: string, schema: unknown): ValidateFunction {
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.ajv.compile(absoluteRefs(schema) as Json);
      this.cache.set(key, fn);
    }
    return fn;
  }

  /** Response body schema of `method path` for `status`; fails when the status is not documented. */
  response(method: string, path: string, status: number): ValidateFunction {
    const responses = at(this.document, "paths", path, method, "responses");
    if (!(String(status) in responses))
      throw new Error(`${method.toUpperCase()} ${path} não documenta o status ${status}`);
    return this.compile(
      `res ${method} ${path} ${status}`,
      at(responses, String(status), "content", "application/json", "schema"),
    );
  }

  requestBody(method: string, path: string): ValidateFunction {
    return this.compile(
      `req ${method} ${path}`,
      at(this.document, "paths", path, method, "requestBody", "content", "application/json", "schema"),
    );
  }

  examples(method: string, path: string): [string, unknown][] {
    const examples = at(this.document, "paths", path, method, "requestBody", "content", "application/json", "examples");
    return Object.entries(examples).map(([name, example]) => [name, at(example).value]);
  }

  webhookBody(event: string): ValidateFunction {
    return this.compile(
      `webhook ${event}`,
      at(this.document, "webhooks", event, "post", "requestBody", "content", "application/json", "schema"),
    );
  }

  webhookHeaders(event: string): { name: string; required: boolean; validate: ValidateFunction }[] {
    const parameters = at(this.document, "webhooks", event, "post").parameters as Json[];
    return parameters
      .filter((p) => p.in === "header")
      .map((p) => ({
        name: String(p.name),
        required: p.required === true,
        validate: this.compile(`webhook ${event} header ${String(p.name)}`, p.schema),
      }));
  }
}

/** Passes when `body` validates; otherwise fails showing ajv's errors. */
function expectValid(validate: ValidateFunction, body: unknown, what: string): void {
  const valid = validate(body);
  expect({ what, errors: valid ? null : validate.errors, body: valid ? null : body }).toEqual({
    what,
    errors: null,
    body: null,
  });
}

describe("documented examples and responses against the running API", () => {
  let gateway: TestGateway;
  let dispatcher: Dispatcher;
  let receiver: Receiver;
  let account: TestAccount;
  let schemas: DocumentSchemas;

  const api = () => request(gateway.app);
  /** Sends `req` and checks the answer against the document for its status. */
  async function checked(
    method: "get" | "post",
    docPath: string,
    req: request.Test,
    expectedStatus: number,
  ): Promise<request.Response> {
    const res = await req;
    expect({ route: `${method.toUpperCase()} ${docPath}`, status: res.status }).toEqual({
      route: `${method.toUpperCase()} ${docPath}`,
      status: expectedStatus,
    });
    expectValid(
      schemas.response(method, docPath, res.status),
      res.body,
      `${method.toUpperCase()} ${docPath} ${res.status}`,
    );
    return res;
  }

  beforeAll(async () => {
    gateway = await startTestGateway({
      env: { API_RATE_LIMIT_POINTS: "10000" },
      sandbox: { failAfterSend: ["5511922229009"] },
    });
    ({ receiver, account, dispatcher } = await startPipeline(gateway));
    // The document as served, not as built in-process.
    const served = await api().get("/public/v1/openapi.json");
    schemas = new DocumentSchemas(served.body as Json);
  });
  afterAll(async () => {
    await stopPipeline({ dispatcher, receiver, gateway });
  });

  it("POST /messages documents the text, template, Pix, list, buttons and document examples; each is valid against the request schema and sent with 200", async () => {
    const examples = schemas.examples("post", "/public/v1/messages");
    expect(examples.map(([name]) => name)).toEqual(["text", "template", "pix", "list", "buttons", "document"]);
    // Free text needs the contact's window: the example's recipient writes first.
    await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: "5511987654321",
      type: "text",
      text: "Oi!",
    });
    // A media id is one upload's: the document example is sent with the id this account's upload of a PDF got.
    const upload = await api()
      .post("/public/v1/media")
      .set(account.auth)
      .attach("file", PDF, { filename: "boleto-12345.pdf", contentType: "application/pdf" });
    expect(upload.status).toBe(201);
    const uploadedId = (upload.body as { data: { media_id: string } }).data.media_id;
    const kinds: Record<string, string> = {
      text: "text",
      list: "interactive",
      buttons: "interactive",
      document: "media",
    };
    for (const [name, example] of examples) {
      expectValid(schemas.requestBody("post", "/public/v1/messages"), example, `example ${name}`);
      const body = example as Json;
      const media = isJson(body.media) ? body.media : undefined;
      const sent = media ? { ...body, media: { ...media, media_id: uploadedId } } : body;
      const res = await checked(
        "post",
        "/public/v1/messages",
        api().post("/public/v1/messages").set(account.auth).set("Idempotency-Key", `exemplo-${name}`).send(sent),
        200,
      );
      expect(res.body.data).toMatchObject({
        to: "5511987654321",
        type: kinds[name] ?? "template",
        client_ref: body.client_ref,
      });
    }
    // The sandbox got the document by that id with the example's file name and caption.
    const sentDocument = (await (await fetch(`${gateway.sandbox.url}/_sandbox/sent`)).json()) as Json[];
    expect(sentDocument.map((s) => (isJson(s.body) ? s.body.document : undefined)).filter(Boolean)).toContainEqual({
      id: uploadedId,
      filename: "boleto-12345.pdf",
      caption: "Seu boleto",
    });
  });

  it("POST /validate documents an example that is valid and answered with 200", async () => {
    const examples = schemas.examples("post", "/public/v1/validate");
    expect(examples.length).toBeGreaterThan(0);
    for (const [name, body] of examples) {
      expectValid(schemas.requestBody("post", "/public/v1/validate"), body, `example ${name}`);
      const res = await checked(
        "post",
        "/public/v1/validate",
        api()
          .post("/public/v1/validate")
          .set(account.auth)
          .send(body as object),
        200,
      );
      expect(res.body.data).toMatchObject({ valid: true, to: "5511987654321" });
    }
  });

  it("POST /messages/{message_id}/read documents its examples; each is answered with 200 through the sandbox, and its refusals match the document", async () => {
    const docPath = "/public/v1/messages/{message_id}/read";
    const examples = schemas.examples("post", docPath);
    expect(examples.map(([name]) => name)).toEqual(["typing", "read"]);
    for (const [name, body] of examples) {
      expectValid(schemas.requestBody("post", docPath), body, `example ${name}`);
      // A message of its own for each example: the typing indicator is one per message at a time.
      const inbound = await contactWrites(gateway, {
        phone_number_id: account.phoneNumberId,
        from: "5511987650707",
        type: "text",
        text: `exemplo ${name}`,
      });
      expect(inbound.webhook_status).toBe(200);
      const path = `/public/v1/messages/${encodeURIComponent(inbound.id)}/read`;
      const res = await checked(
        "post",
        docPath,
        api()
          .post(path)
          .set(account.auth)
          .send(body as object),
        200,
      );
      expect(res.body.data).toMatchObject({ message_id: inbound.id, read: true, typing: name === "typing" });
      if (name === "typing")
        await checked(
          "post",
          docPath,
          api()
            .post(path)
            .set(account.auth)
            .send(body as object),
          429,
        );
    }
    await checked("post", docPath, api().post("/public/v1/messages/wamid.desconhecido/read").set(account.auth), 404);
    await checked(
      "post",
      docPath,
      api()
        .post(`/public/v1/messages/${"w".repeat(129)}/read`)
        .set(account.auth),
      422,
    );
    await checked("post", docPath, api().post("/public/v1/messages/x/read").send({}), 401);
  });

  it("the 200 answers of the read operations and of retry-failed match their documented schemas", async () => {
    await checked("get", "/public/v1/window/{to}", api().get("/public/v1/window/5511987654321").set(account.auth), 200);
    await checked("get", "/public/v1/window/{to}", api().get("/public/v1/window/11900001111").set(account.auth), 200);
    await checked("get", "/public/v1/templates", api().get("/public/v1/templates?status=ALL").set(account.auth), 200);
    const list = await checked(
      "get",
      "/public/v1/deliveries",
      api().get("/public/v1/deliveries?limit=2").set(account.auth),
      200,
    );
    const first = (list.body.data.deliveries as { id: number }[])[0];
    if (!first) throw new Error("nenhuma entrega listada");
    await checked(
      "get",
      "/public/v1/deliveries/{delivery_id}",
      api().get(`/public/v1/deliveries/${first.id}`).set(account.auth),
      200,
    );
    await checked(
      "post",
      "/public/v1/deliveries/retry-failed",
      api().post("/public/v1/deliveries/retry-failed").set(account.auth),
      200,
    );
  });

  it("error answers match the schema documented for their status", async () => {
    const noKey = (method: "get" | "post", path: string) =>
      method === "get" ? api().get(path) : api().post(path).send({});
    const cases: ["get" | "post", string, string][] = [
      ["post", "/public/v1/messages", "/public/v1/messages"],
      ["post", "/public/v1/validate", "/public/v1/validate"],
      ["get", "/public/v1/window/{to}", "/public/v1/window/5511987654321"],
      ["get", "/public/v1/templates", "/public/v1/templates"],
      ["get", "/public/v1/deliveries", "/public/v1/deliveries"],
      ["get", "/public/v1/deliveries/{delivery_id}", "/public/v1/deliveries/1"],
      ["post", "/public/v1/deliveries/{delivery_id}/retry", "/public/v1/deliveries/1/retry"],
      ["post", "/public/v1/deliveries/retry-failed", "/public/v1/deliveries/retry-failed"],
    ];
    for (const [method, docPath, path] of cases) await checked(method, docPath, noKey(method, path), 401);

    const send = (body: object) => api().post("/public/v1/messages").set(account.auth).send(body);
    await checked("post", "/public/v1/messages", send({ to: "11987654321" }), 400);
    await checked("post", "/public/v1/messages", send({ to: "11987650000", text: "oi" }), 422);
    await checked("post", "/public/v1/messages", send({ to: "x".repeat(33), text: "oi", button_url_index: 10 }), 422);
    await checked(
      "post",
      "/public/v1/messages",
      api()
        .post("/public/v1/messages")
        .set(account.auth)
        .set("Idempotency-Key", "k".repeat(65))
        .send({ to: "11987654321", text: "oi" }),
      422,
    );
    await checked(
      "post",
      "/public/v1/messages",
      api().post("/public/v1/messages").set(account.auth).set("Content-Type", "application/json").send("{nope"),
      422,
    );
    await checked(
      "post",
      "/public/v1/validate",
      api().post("/public/v1/validate").set(account.auth).send({ to: "", country: "BRA" }),
      422,
    );
    await checked(
      "get",
      "/public/v1/window/{to}",
      api()
        .get(`/public/v1/window/${"9".repeat(33)}`)
        .set(account.auth),
      422,
    );
    await checked(
      "get",
      "/public/v1/templates",
      api().get("/public/v1/templates?status=APROVADO").set(account.auth),
      400,
    );
    await checked("get", "/public/v1/deliveries", api().get("/public/v1/deliveries?limit=0").set(account.auth), 422);
    await checked(
      "get",
      "/public/v1/deliveries/{delivery_id}",
      api().get("/public/v1/deliveries/abc").set(account.auth),
      422,
    );
    await checked(
      "get",
      "/public/v1/deliveries/{delivery_id}",
      api().get("/public/v1/deliveries/999999999").set(account.auth),
      404,
    );
    await checked(
      "post",
      "/public/v1/deliveries/{delivery_id}/retry",
      api().post("/public/v1/deliveries/999999999/retry").set(account.auth),
      404,
    );
  });

  it("429 with Retry-After matches the documented response", async () => {
    const limited = await startTestGateway({
      env: { API_RATE_LIMIT_POINTS: "1", API_RATE_LIMIT_WINDOW_SECONDS: "60" },
    });
    try {
      const acc = await createTestAccount(limited.db);
      await request(limited.app).post("/public/v1/validate").set(acc.auth).send({ to: "11987654321" });
      const res = await request(limited.app).post("/public/v1/validate").set(acc.auth).send({ to: "11987654321" });
      expect(res.status).toBe(429);
      expectValid(schemas.response("post", "/public/v1/validate", 429), res.body, "POST /validate 429");
      expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.close();
    }
  });

  it("the signed webhooks the receiver gets (status sent/delivered/read/failed, received) match the documented webhooks, headers included", async () => {
    await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: "5511922229009",
      name: "Maria",
      type: "text",
      text: "Oi!",
    });
    const failing = await api()
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ to: "5511922229009", text: "Olá!" });
    expect(failing.status).toBe(200);
    await eventually(() => {
      const statuses = receiver.received
        .filter((r) => r.event.event === "message.status")
        .map((r) => (r.event.data as { status: string }).status);
      return (
        ["sent", "delivered", "read", "failed"].every((s) => statuses.includes(s)) &&
        receiver.received.some((r) => r.event.event === "message.received")
      );
    });
    for (const got of receiver.received) {
      const event = got.event.event;
      expectValid(schemas.webhookBody(event), got.event, `webhook ${event} ${got.meta.deliveryId}`);
      for (const header of schemas.webhookHeaders(event)) {
        const value = got.headers[header.name.toLowerCase()];
        if (value === undefined) {
          expect({ header: header.name, required: header.required }).toEqual({ header: header.name, required: false });
          continue;
        }
        expectValid(header.validate, value, `${event} header ${header.name}`);
      }
    }
    expect(receiver.rejected).toBe(0);
  });

  it("the signed account.update an integration that opted in gets matches the documented webhook, headers included", async () => {
    // Opt in (the same URL: its events are updated), then Meta moves the number to high throughput.
    await setIntegration(
      { db: gateway.db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: testSecretBox() },
      {
        accountId: account.accountId,
        url: receiver.url,
        events: ["message.status", "message.received", "account.update"],
        actor: testActor,
      },
    );
    await fetch(`${gateway.sandbox.url}/_sandbox/numbers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone_number_id: account.phoneNumberId, display_phone_number: "+55 11 4000-0000" }),
    });
    await fetch(`${gateway.sandbox.url}/_sandbox/numbers/quality-update`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        phone_number_id: account.phoneNumberId,
        waba_id: account.wabaId,
        event: "THROUGHPUT_UPGRADE",
      }),
    });
    await eventually(() => receiver.received.some((r) => r.event.event === "account.update"));
    const got = receiver.received.find((r) => r.event.event === "account.update");
    if (!got) throw new Error("nenhum account.update");
    expectValid(schemas.webhookBody("account.update"), got.event, "webhook account.update");
    for (const header of schemas.webhookHeaders("account.update")) {
      const value = got.headers[header.name.toLowerCase()];
      if (value === undefined) {
        expect({ header: header.name, required: header.required }).toEqual({ header: header.name, required: false });
        continue;
      }
      expectValid(header.validate, value, `account.update header ${header.name}`);
    }
    expect(got.event.data).toMatchObject({
      waba_id: account.wabaId,
      field: "phone_number_quality_update",
      event: "THROUGHPUT_UPGRADE",
      phone_number_id: account.phoneNumberId,
      effects: { messaging_rate_per_second: 1000 },
    });
    expect(receiver.rejected).toBe(0);
  });

  it("the envelope kept with a delivery (GET /deliveries/{id}) is the documented webhook body", async () => {
    const list = await api().get("/public/v1/deliveries?limit=200").set(account.auth);
    const ids = (list.body.data.deliveries as { id: number }[]).map((d) => d.id);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids.slice(0, 10)) {
      const one = await checked(
        "get",
        "/public/v1/deliveries/{delivery_id}",
        api().get(`/public/v1/deliveries/${id}`).set(account.auth),
        200,
      );
      const envelope = one.body.data.envelope as { event: string };
      expectValid(schemas.webhookBody(envelope.event), envelope, `envelope of delivery ${id}`);
    }
  });

  it("POST /deliveries/{id}/retry refuses a pending delivery with the documented 422", async () => {
    const delivery = await gateway.db.delivery.findFirst({
      where: { accountId: account.accountId, status: "delivered" },
    });
    if (!delivery) throw new Error("nenhuma entrega entregue");
    const pending = await gateway.db.delivery.create({
      data: {
        accountId: account.accountId,
        integrationId: delivery.integrationId,
        event: "message.status",
        status: "delivering",
        body: "{}",
        occurredAt: new Date(),
      },
    });
    try {
      await checked(
        "post",
        "/public/v1/deliveries/{delivery_id}/retry",
        api().post(`/public/v1/deliveries/${pending.id}/retry`).set(account.auth),
        422,
      );
    } finally {
      await gateway.db.delivery.delete({ where: { id: pending.id } });
    }
  });

  it("POST /deliveries/{id}/retry answers 200 with the documented RetryOut", async () => {
    const delivery = await gateway.db.delivery.findFirst({
      where: { accountId: account.accountId, status: "delivered" },
    });
    if (!delivery) throw new Error("nenhuma entrega entregue");
    await checked(
      "post",
      "/public/v1/deliveries/{delivery_id}/retry",
      api().post(`/public/v1/deliveries/${delivery.id}/retry`).set(account.auth),
      200,
    );
  });
});
