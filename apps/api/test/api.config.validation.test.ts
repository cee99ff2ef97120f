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

  it("takes a process lease of 6 s renewed every 2 s by default, and refuses one renewed less than twice within its TTL", () => {
    expect(loadApiConfig(valid)).toMatchObject({ PROCESS_LEASE_TTL_MS: 6_000, PROCESS_LEASE_RENEW_MS: 2_000 });
    let caught: unknown;
    try {
      loadApiConfig({ ...valid, PROCESS_LEASE_TTL_MS: "5000", PROCESS_LEASE_RENEW_MS: "3000" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variables).toEqual(["PROCESS_LEASE_RENEW_MS"]);
    expect((caught as ConfigError).message).toContain("metade de PROCESS_LEASE_TTL_MS");
  });

  it("rejects a non-numeric port", () => {
    expect(() => loadApiConfig({ ...valid, API_PORT: "http" })).toThrow(/API_PORT/);
  });
});
