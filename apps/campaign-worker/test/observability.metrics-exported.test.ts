// Every metric that the Grafana dashboard and the PrometheusRule of deploy/observability name is exported by one of
// the apps: the API (the registry its internal listener serves on /metrics), the dispatcher and the campaign worker
// (scraped on /metrics as Prometheus would), each started in this process. A renamed metric, or one the panels assume and no app exports, fails here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { parse } from "yaml";
import { REPO_ROOT, silentLogger } from "@gw/testkit";
import { ACCESS_TOKEN, startStack, type Stack } from "@gw/test-stack";
import { createCampaignWorker, loadCampaignWorkerConfig, type CampaignWorker } from "../src/index.ts";

const DIR = join(REPO_ROOT, "deploy/observability");

/** The PromQL expressions of the dashboard's panels and template variables, and of the rules. */
function expressions(): { source: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(join(DIR, "grafana-dashboard.json"), "utf8")) as {
    panels: { title: string; targets?: { expr: string }[] }[];
    templating: { list: { name: string; definition?: string }[] };
  };
  const rule = parse(readFileSync(join(DIR, "prometheus-rule.yaml"), "utf8")) as {
    spec: { groups: { rules: { alert: string; expr: string }[] }[] };
  };
  return [
    ...dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ source: `panel ${panel.title}`, expr: target.expr })),
    ),
    ...dashboard.templating.list
      .filter((variable) => variable.definition !== undefined)
      .map((variable) => ({ source: `variable ${variable.name}`, expr: variable.definition ?? "" })),
    ...rule.spec.groups.flatMap((group) =>
      group.rules.map((entry) => ({ source: `alert ${entry.alert}`, expr: entry.expr })),
    ),
  ];
}

const KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless"]);

/** The metric names a PromQL expression reads: identifiers that are neither functions, keywords nor labels. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // strings
    .replace(/\{[^}]*\}/g, "") // label matchers
    .replace(/\[[^\]]*\]/g, "") // ranges
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "") // grouping labels
    .replace(/label_values\(\s*([a-zA-Z_:][\w:]*)\s*,[^)]*\)/g, "$1") // Grafana's label_values(metric, label)
    .replace(/\$\w+/g, ""); // Grafana's variables
  return [...bare.matchAll(/[a-zA-Z_:][\w:]*(?!\w|\s*\()/g)]
    .map((match) => match[0])
    .filter((name) => !KEYWORDS.has(name) && !/^(e|inf|nan)$/i.test(name));
}

/** The sample names a /metrics page exports, from its `# TYPE` lines (a histogram's buckets, sum and count). */
function exportedNames(page: string): Set<string> {
  const names = new Set<string>();
  for (const [, name = "", type] of page.matchAll(/^# TYPE (\S+) (\w+)$/gm)) {
    names.add(name);
    if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(name + suffix);
    if (type === "summary") for (const suffix of ["_sum", "_count"]) names.add(name + suffix);
  }
  return names;
}

let stack: Stack;
let worker: CampaignWorker;
const pages: Record<string, string> = {};

beforeAll(async () => {
  stack = await startStack({ db: "isolated", sandbox: { autoStatuses: false }, api: true, dispatcher: true });
  worker = createCampaignWorker(
    loadCampaignWorkerConfig({
      DATABASE_URL: stack.databaseUrl,
      REDIS_URL: stack.redisUrl,
      REDIS_KEY_PREFIX: stack.redisPrefix,
      META_BASE_URL: stack.sandboxUrl,
      META_ACCESS_TOKEN: ACCESS_TOKEN,
      CAMPAIGN_WORKER_HOST: "127.0.0.1",
      CAMPAIGN_WORKER_PORT: "0",
      LOG_LEVEL: "warn",
    }),
    { logger: silentLogger, db: stack.db },
  );
  await worker.start();
  if (!stack.api || !stack.dispatcher) throw new Error("stack without API or dispatcher");
  pages.api = await stack.api.deps.metrics.registry.metrics();
  pages.dispatcher = await (await fetch(`http://127.0.0.1:${stack.dispatcher.port}/metrics`)).text();
  pages["campaign-worker"] = await (await fetch(`http://127.0.0.1:${worker.port}/metrics`)).text();
});

afterAll(async () => {
  await worker?.stop();
  await stack?.close();
});

describe("the operator's dashboard and alerts", () => {
  it("name only metrics that the API, the dispatcher or the campaign worker export", () => {
    const exported = new Set(Object.values(pages).flatMap((page) => [...exportedNames(page)]));
    // The pages were read: each app exports its own metrics.
    for (const name of ["gw_http_requests_total", "gw_webhook_attempts_total", "gw_campaign_ticks_total"])
      expect(exported.has(name)).toBe(true);
    const named = expressions().flatMap(({ source, expr }) => metricNames(expr).map((name) => ({ source, name })));
    expect(named.length).toBeGreaterThan(40);
    expect(named.filter(({ name }) => !exported.has(name))).toEqual([]);
  });

  it("reads the metric names of an expression, not its functions, labels or variables", () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le, integration_id) (rate(gw_x_bucket{integration_id=~"$integration_id"}[$__rate_interval]))) / on(pod) group_left gw_y or vector(0)',
      ),
    ).toEqual(["gw_x_bucket", "gw_y"]);
    expect(metricNames("label_values(gw_provider_sends_total, phone_number_id)")).toEqual(["gw_provider_sends_total"]);
  });
});
