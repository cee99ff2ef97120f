import { describe, expect, it } from "@jest/globals";
import { eventually } from "../src/index.ts";

describe("eventually", () => {
  it("polls until the check returns something other than undefined, null or false, and returns it", async () => {
    const answers: unknown[] = [undefined, null, false, 0];
    let calls = 0;
    const value = await eventually(() => answers[calls++], { intervalMs: 1 });
    // 0 (like "") is a value: only undefined, null and false mean "not yet".
    expect(value).toBe(0);
    expect(calls).toBe(4);
  });

  it("gives up after timeoutMs, naming what it waited for", async () => {
    const started = Date.now();
    await expect(eventually(() => false, { timeoutMs: 100, intervalMs: 10, what: "the door to open" })).rejects.toThrow(
      "not reached within 100 ms: the door to open",
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it("stops at once when the check throws", async () => {
    let calls = 0;
    const failing = eventually(() => {
      calls++;
      throw new Error("the process exited");
    });
    await expect(failing).rejects.toThrow("the process exited");
    expect(calls).toBe(1);
  });
});
