import { readFileSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import { dispatcherConfigSchema } from "../../dispatcher/src/config.ts";
import { sandboxConfigSchema } from "../../provider-sandbox/src/config.ts";
import { apiConfigSchema } from "../src/config.ts";

// `.env.example` documents every variable the apps read: a variable added to a config schema without a
// line there fails here, and so does a documented variable no schema reads any more.
const documented = new Set(
  readFileSync(new URL("../../../.env.example", import.meta.url), "utf8")
    .split("\n")
    .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined),
);
// Read by scripts/stack.sh, not by a zod schema.
const STACK_ONLY = ["GW_PG_PORT", "GW_REDIS_PORT"];

const schemas = { api: apiConfigSchema, dispatcher: dispatcherConfigSchema, "provider-sandbox": sandboxConfigSchema };

describe(".env.example", () => {
  it.each(Object.entries(schemas))("documents every variable of the %s config", (_app, schema) => {
    const missing = Object.keys(schema.shape).filter((name) => !documented.has(name));
    expect(missing).toEqual([]);
  });

  it("documents nothing that no app reads", () => {
    const read = new Set([...Object.values(schemas).flatMap((schema) => Object.keys(schema.shape)), ...STACK_ONLY]);
    expect([...documented].filter((name) => !read.has(name))).toEqual([]);
  });
});
