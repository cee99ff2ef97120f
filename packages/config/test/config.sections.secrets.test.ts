import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { ConfigError, loadConfig, sections, z } from "@gw/config";

// SECRETS_KEYS, the key ring of the stored secrets: every process that reads it refuses to start without a usable
// one, and never echoes a key in its message.
const schema = z.object(sections.secrets());
const key = () => randomBytes(32).toString("base64");

function refusal(value: string | undefined): ConfigError {
  try {
    loadConfig(schema, value === undefined ? {} : { SECRETS_KEYS: value });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("the key ring was accepted");
}

describe("the stored secrets section (SECRETS_KEYS)", () => {
  it("reads id:base64 pairs in order, the first being the one that encrypts", () => {
    const current = randomBytes(32);
    const older = randomBytes(32);
    const { SECRETS_KEYS } = loadConfig(schema, {
      SECRETS_KEYS: ` k2027:${current.toString("base64")} , k2026:${older.toString("base64url")}`,
    });
    expect(SECRETS_KEYS.map((k) => k.id)).toEqual(["k2027", "k2026"]);
    expect(SECRETS_KEYS[0]?.key.equals(current)).toBe(true);
    expect(SECRETS_KEYS[1]?.key.equals(older)).toBe(true);
  });

  it("is required: absent or empty, the process does not start", () => {
    expect(refusal(undefined).message).toMatch(/SECRETS_KEYS: obrigatória e ausente/);
    expect(refusal("").variables).toEqual(["SECRETS_KEYS"]);
    expect(refusal(" , ").message).toMatch(/defina ao menos uma chave/);
  });

  it("refuses the example key of .env.example, whatever its id", () => {
    const example = /^SECRETS_KEYS=(.+)$/m.exec(
      readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../../../.env.example"), "utf8"),
    );
    const documented = example?.[1] ?? "";
    expect(documented).toMatch(/^[A-Za-z0-9_-]+:[A-Za-z0-9+/=]{44}$/);
    expect(refusal(documented).message).toMatch(/é a de exemplo do \.env\.example/);
    const exampleKey = documented.split(":")[1]!;
    expect(refusal(`k1:${key()},outra:${exampleKey}`).message).toMatch(/a chave outra é a de exemplo/);
  });

  it.each([
    ["a key that is not 32 bytes", `k1:${randomBytes(16).toString("base64")}`, /a chave k1 deve ter 32 bytes/],
    ["a key that is not base64", "k1:isto não é base64 de jeito nenhum!!", /a chave k1 deve ter 32 bytes/],
    ["all-zero bytes", `k1:${Buffer.alloc(32).toString("base64")}`, /a chave k1 não parece aleatória/],
    [
      "a passphrase",
      `k1:${Buffer.from("aaaabbbbccccddddaaaabbbbccccdddd").toString("base64")}`,
      /não parece aleatória/,
    ],
    ["an entry without an id", key(), /cada chave deve ter a forma/],
    ["an id with a colon-unsafe character", `k 1:${key()}`, /cada chave deve ter a forma/],
    ["the same id twice", `k1:${key()},k1:${key()}`, /o id k1 aparece mais de uma vez/],
  ])("refuses %s, naming the variable and never echoing the value", (_case, value, reason) => {
    const error = refusal(value);
    expect(error.variables).toEqual(["SECRETS_KEYS"]);
    expect(error.message).toMatch(reason);
    for (const part of value.split(/[,:]/).filter((p) => p.length > 8)) expect(error.message).not.toContain(part);
  });
});
