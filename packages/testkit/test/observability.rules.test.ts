// The alerts of deploy/observability/prometheus-rule.yaml, checked by Prometheus' own tool: `promtool check rules`
// (syntax, PromQL, templates) and `promtool test rules` with prometheus-rule.test.yaml (series that must fire each
// alert and series that must not). promtool is Debian's `prometheus` package; scripts/test.sh installs it when it is
// missing and exports PROMTOOL_PATH.
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { parse, stringify } from "yaml";
import { REPO_ROOT } from "@gw/testkit";

const run = promisify(execFile);
const PROMTOOL = process.env.PROMTOOL_PATH ?? "promtool";
const DIR = join(REPO_ROOT, "deploy/observability");

interface PrometheusRule {
  apiVersion: string;
  kind: string;
  spec: { groups: { name: string; rules: { alert?: string; annotations?: Record<string, string> }[] }[] };
}

const rule = parse(readFileSync(join(DIR, "prometheus-rule.yaml"), "utf8")) as PrometheusRule;
const alerts = rule.spec.groups.flatMap((group) => group.rules);

let work: string;
beforeAll(() => {
  // promtool reads plain rule files: the PrometheusRule's spec, next to a copy of the unit tests that name it.
  work = mkdtempSync(join(tmpdir(), "gw-rules-"));
  writeFileSync(join(work, "rules.yaml"), stringify(rule.spec));
  copyFileSync(join(DIR, "prometheus-rule.test.yaml"), join(work, "prometheus-rule.test.yaml"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(PROMTOOL, args, { cwd: work });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    if (failed.code === "ENOENT")
      throw new Error(`promtool não encontrado (${PROMTOOL}): rode pelo npm test`, { cause: error });
    return { code: Number(failed.code), output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

describe("the gateway's PrometheusRule", () => {
  it("is a PrometheusRule with one alert for each condition the operators asked for, each with its runbook", () => {
    expect({ apiVersion: rule.apiVersion, kind: rule.kind }).toEqual({
      apiVersion: "monitoring.coreos.com/v1",
      kind: "PrometheusRule",
    });
    expect(alerts.map((entry) => entry.alert).sort()).toEqual([
      "GatewayBreakerOpen",
      "GatewayDeadLettersRising",
      "GatewayIngestionLag",
      "GatewayMetaApiVersionExpiring",
      "GatewayOldestDeliveryTooOld",
      "GatewayPodNearMemoryLimit",
      "GatewayProviderErrorRate",
      "GatewaySendJournalNotDraining",
      "GatewayUnconfirmedSends",
    ]);
    // Every runbook link names a heading of docs/deploy.md (GitHub's anchors: the heading lower-cased).
    const headings = new Set(
      [...readFileSync(join(REPO_ROOT, "docs/deploy.md"), "utf8").matchAll(/^#{2,4} (.+)$/gm)].map((match) =>
        (match[1] ?? "").toLowerCase(),
      ),
    );
    for (const entry of alerts)
      expect({ alert: entry.alert, runbook: entry.annotations?.runbook_url }).toEqual({
        alert: entry.alert,
        runbook: `docs/deploy.md#${(entry.alert ?? "").toLowerCase()}`,
      });
    expect(alerts.filter((entry) => !headings.has((entry.alert ?? "").toLowerCase())).map((e) => e.alert)).toEqual([]);
  });

  it("passes promtool check rules", async () => {
    const result = await promtool("check", "rules", "rules.yaml");
    expect(result).toEqual({ code: 0, output: expect.stringContaining(`SUCCESS: ${alerts.length} rules found`) });
  });

  it("fires each alert on the series that should fire it and on none of the others (promtool test rules)", async () => {
    const result = await promtool("test", "rules", "prometheus-rule.test.yaml");
    expect(result).toEqual({ code: 0, output: expect.stringContaining("SUCCESS") });
    // Every alert has a case that expects it to fire.
    const tests = parse(readFileSync(join(DIR, "prometheus-rule.test.yaml"), "utf8")) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const firing = new Set(
      tests.tests.flatMap((test) =>
        (test.alert_rule_test ?? []).filter((step) => step.exp_alerts.length > 0).map((step) => step.alertname),
      ),
    );
    expect(alerts.map((entry) => entry.alert).filter((name) => !firing.has(name ?? ""))).toEqual([]);
  });

  it("fails promtool test rules when an alert's threshold drifts from what its tests expect", async () => {
    // The unit tests can fail: the same tests against a rule whose threshold moved from 300 s to 3 600 s.
    const drifted = structuredClone(rule.spec);
    for (const group of drifted.groups)
      for (const entry of group.rules as { alert?: string; expr?: string }[])
        if (entry.alert === "GatewayOldestDeliveryTooOld") entry.expr = entry.expr?.replace("> 300", "> 3600");
    writeFileSync(join(work, "rules.yaml"), stringify(drifted));
    try {
      const result = await promtool("test", "rules", "prometheus-rule.test.yaml");
      expect(result.code).not.toBe(0);
      expect(result.output).toContain("GatewayOldestDeliveryTooOld");
    } finally {
      writeFileSync(join(work, "rules.yaml"), stringify(rule.spec));
    }
  });
});
