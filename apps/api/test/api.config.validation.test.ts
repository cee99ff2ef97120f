import { describe, expect, it } from "@jest/globals";
import { ConfigError } from "@gw/config";
import { loadApiConfig } from "../src/config.ts";

const valid = {
  DATABASE_URL: "postgresql://postgres@127.0.0.1:55432/gateway",
  REDIS_URL: "redis://127.0.0.1:56379",
  META_ACCESS_TOKEN: "sandbox-token",
  META_APP_SECRET: "sandbox-app-secret",
  META_VERIFY_TOKEN: "sandbox-verify",
};

describe("API configuration from the environment", () => {
  it("applies the documented defaults", () => {
    const config = loadApiConfig(valid);
    expect(config.API_PORT).toBe(8080);
    expect(config.META_API_VERSION).toBe("v23.0");
  });

  it("rejects a bad DATABASE_URL with a readable error naming the variable, without echoing its value", () => {
    let caught: unknown;
    try {
      loadApiConfig({ ...valid, DATABASE_URL: "mysql://secret-password@db/x" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.variables).toEqual(["DATABASE_URL"]);
    expect(error.message).toMatch(/DATABASE_URL: deve ser uma URL postgresql:\/\//);
    expect(error.message).not.toContain("secret-password");
  });

  it("names every missing variable", () => {
    expect(() => loadApiConfig({})).toThrow(
      /DATABASE_URL: obrigatória e ausente[\s\S]*REDIS_URL: obrigatória e ausente/,
    );
  });

  it("rejects a non-numeric port", () => {
    expect(() => loadApiConfig({ ...valid, API_PORT: "http" })).toThrow(/API_PORT/);
  });
});
