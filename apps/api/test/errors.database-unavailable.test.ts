// A PostgreSQL restart or failover surfaces as SQLSTATE 57P01 / 57P03 / 08006, a pool time-out or a refused
// connection: the same request may work moments later, so each is 503 service_unavailable with Retry-After,
// never 500 internal_error. A query that fails for any other reason stays 500.
import { describe, expect, it } from "@jest/globals";
import express from "express";
import request from "supertest";
import { silentLogger } from "@gw/testkit";
import { errorHandler } from "../src/http/errors.ts";

function appThrowing(error: unknown) {
  const app = express();
  app.get("/x", () => {
    throw error;
  });
  app.use(errorHandler(silentLogger));
  return app;
}

function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe("database outages are 503 service_unavailable", () => {
  it.each([
    [
      "57P01 terminating connection due to administrator command",
      pgError("57P01", "terminating connection due to administrator command"),
    ],
    ["57P03 the database system is shutting down", pgError("57P03", "the database system is shutting down")],
    ["08006 connection failure", pgError("08006", "connection failure")],
    ["ECONNREFUSED", pgError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432")],
    ["pool time-out", new Error("timeout exceeded when trying to connect")],
    [
      "wrapped by Prisma's adapter",
      Object.assign(new Error("adapter error"), { cause: pgError("57P01", "terminating") }),
    ],
  ])("%s", async (_name, error) => {
    const res = await request(appThrowing(error)).get("/x");
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("5");
    expect(res.body).toMatchObject({ success: false, error: { code: "service_unavailable" } });
  });

  it("a query that fails for another reason stays 500 internal_error", async () => {
    const res = await request(appThrowing(pgError("22003", "value out of range for type integer"))).get("/x");
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ success: false, error: { code: "internal_error" } });
  });
});
