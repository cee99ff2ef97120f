import { createHash } from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import fc from "fast-check";
import { isErrorCode } from "@gw/errors";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { buildOpenApiDocument } from "../src/openapi.ts";
import { uploadCases, type UploadCase } from "./support/multipart-arbitrary.ts";

// Property-based fuzzing of POST /public/v1/media with multipart bodies (issue 27, package B; the other endpoints are
// fuzz.endpoints.test.ts's): never a 5xx, always a status the document lists with a body valid against its schema,
// every 201 recorded in account_media and read back with its SHA-256, every refusal leaving nothing stored at Meta.
// FUZZ_SCALE multiplies the cases as in fuzz.endpoints.test.ts (unset: 0.5, 150 uploads, some 10-15 s).

const SCALE = Number(process.env.FUZZ_SCALE ?? 0.5);
const CASES = Math.max(1, Math.round(300 * SCALE));

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const BASE = "https://gateway.test/openapi.json";
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

const document = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Json;
const responses = ((document.paths as Json)["/public/v1/media"] as Json).post as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: BASE, components: document.components as Json });
const validators = new Map<number, ValidateFunction>();
function validatorFor(status: number): ValidateFunction | undefined {
  const response = (responses.responses as Json)[String(status)];
  if (!isJson(response)) return undefined;
  let validate = validators.get(status);
  if (!validate) {
    const schema = ((response.content as Json)["application/json"] as Json).schema;
    validate = ajv.compile(absoluteRefs(schema) as Json);
    validators.set(status, validate);
  }
  return validate;
}

interface Answer {
  status: number;
  json: unknown;
  text: string;
}

function send(apiUrl: string, auth: Record<string, string>, c: UploadCase): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL("/public/v1/media", apiUrl), {
      method: "POST",
      headers: {
        ...auth,
        ...(c.contentType ? { "content-type": c.contentType } : {}),
        "content-length": String(c.declaredLength ?? c.body.length),
      },
    });
    req.setTimeout(15_000, () => req.destroy(new Error("no answer in 15 s")));
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.once("error", reject);
      res.once("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json, text });
        // A body declared longer than sent (or cut) would keep the request open: the answer is what counts.
        req.destroy();
      });
    });
    req.once("error", (error) => {
      if (!req.destroyed || (error as NodeJS.ErrnoException).code !== "ECONNRESET") reject(error);
    });
    req.end(c.body);
  });
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let gateway: TestGateway;
let account: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "100000" } });
  account = await createTestAccount(gateway.db);
  other = await createTestAccount(gateway.db);
});

afterAll(async () => {
  await gateway.close();
});

async function storedAtSandbox(): Promise<number> {
  const res = await fetch(`${gateway.sandbox.url}/_sandbox/media/uploads`);
  const { uploads } = (await res.json()) as { uploads: { status: string }[] };
  return uploads.filter((u) => u.status === "stored").length;
}

describe("fuzzing POST /public/v1/media with multipart bodies", () => {
  it(
    `${CASES} uploads: no 5xx, documented answers, 201s recorded and readable, refusals store nothing`,
    async () => {
      const histogram = new Map<number, number>();
      const startedAt = Date.now();
      const harvested: { id: string; sha256: string }[] = [];
      await fc.assert(
        fc.asyncProperty(uploadCases({ own: account.phoneNumberId, other: other.phoneNumberId }), async (c) => {
          const before = await storedAtSandbox();
          const answer = await send(gateway.apiUrl, account.auth, c);
          histogram.set(answer.status, (histogram.get(answer.status) ?? 0) + 1);
          const where = `${c.kind} ${c.contentType} [${c.body.length}] -> ${answer.status} ${answer.text.slice(0, 300)}`;
          expect({ where, fivexx: answer.status >= 500 }).toEqual({ where, fivexx: false });
          const validate = validatorFor(answer.status);
          expect({ where, documented: validate !== undefined }).toEqual({ where, documented: true });
          expect({ where, valid: validate?.(answer.json) ?? false, errors: validate?.errors ?? null }).toEqual({
            where,
            valid: true,
            errors: null,
          });
          if (answer.status >= 400 && isJson(answer.json) && isJson(answer.json.error))
            expect(isErrorCode(String(answer.json.error.code))).toBe(true);
          if (c.expectUpload) expect({ where, status: answer.status }).toEqual({ where, status: 201 });
          if (answer.status === 201) {
            const data = (answer.json as { data: { media_id: string; sha256: string } }).data;
            const { rowCount } = await gateway.db.sql.query(
              `SELECT 1 FROM account_media WHERE account_id = $1 AND media_id = $2 AND sha256 = $3`,
              [account.accountId, data.media_id, data.sha256],
            );
            expect({ where, recorded: rowCount }).toEqual({ where, recorded: 1 });
            harvested.push({ id: data.media_id, sha256: data.sha256 });
          } else {
            expect({ where, stored: await storedAtSandbox() }).toEqual({ where, stored: before });
          }
        }),
        { numRuns: CASES },
      );
      // The harvested ids read back through GET /public/v1/media/{media_id} with their bytes.
      for (const media of harvested.slice(0, 10)) {
        const res = await fetch(`${gateway.apiUrl}/public/v1/media/${media.id}`, { headers: account.auth });
        expect(res.status).toBe(200);
        expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(media.sha256);
      }
      const statuses = [...histogram.entries()]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status}×${count}`)
        .join(" ");
      console.log(
        `fuzz POST /public/v1/media: ${CASES} cases in ${((Date.now() - startedAt) / 1000).toFixed(1)} s, 5xx: 0; statuses ${statuses}`,
      );
      expect(histogram.get(201) ?? 0).toBeGreaterThan(0);
    },
    240_000 * Math.max(SCALE, 0.5),
  );
});
