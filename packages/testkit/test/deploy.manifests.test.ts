// The Kubernetes manifests (deploy/k8s: base, production overlay, release Job), their rendering for this machine's
// topology run, and docker/compose.yaml, checked offline. Every object is validated against the published schemas:
// Kubernetes' OpenAPI schemas (kubernetes-models) and KEDA's CRD schemas (@kubernetes-models/keda). The checks after
// that hold the manifests to what the apps do (probes, ports, drains, metric names), which no schema knows.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Job } from "kubernetes-models/batch/v1";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, Pod, Secret, Service } from "kubernetes-models/v1";
import { parse } from "yaml";
import {
  APPS,
  loadManifests,
  localApps,
  localConfig,
  localFakes,
  localInfrastructure,
  localMigration,
  localPorts,
  type LocalTopology,
  type Manifest,
} from "../../../scripts/deploy/manifests.ts";
import { REPO_ROOT } from "../src/index.ts";

/** The schema of each kind the manifests use; a kind missing here fails the test instead of going unchecked. */
const MODELS: Record<string, { validate(): void } & (new (data: never) => { validate(): void })> = {
  "apps/v1/Deployment": Deployment,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "batch/v1/Job": Job,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "v1/ConfigMap": ConfigMap,
  "v1/Namespace": Namespace,
  "v1/Pod": Pod,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "keda.sh/v1alpha1/ScaledObject": ScaledObject,
} as never;

function validate(document: Manifest): void {
  const Model = MODELS[`${document.apiVersion}/${document.kind}`];
  if (!Model) throw new Error(`${document.apiVersion} ${document.kind}: sem esquema conhecido`);
  new Model(document as never).validate();
}

const files = loadManifests();
const all = files.flatMap((file) => file.documents.map((document) => ({ file: file.file, document })));
const find = (kind: string, name: string) =>
  all.find(({ document }) => document.kind === kind && document.metadata.name === name)?.document;

interface Container {
  name: string;
  image: string;
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string } }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
}
interface PodSpec {
  containers: Container[];
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
}
const podSpec = (document: Manifest) =>
  (document.spec as { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } }).template;
const envValue = (container: Container, name: string) => container.env?.find((e) => e.name === name)?.value;

describe("deploy/k8s against the Kubernetes and KEDA schemas", () => {
  it("lists the base, the production overlay and the release's Job", () => {
    expect(files.map((f) => f.file)).toEqual(
      expect.arrayContaining([
        "base/api.yaml",
        "base/dispatcher.yaml",
        "overlays/production/namespace.yaml",
        "release/migrate-job.yaml",
      ]),
    );
  });

  it.each(all.map(({ file, document }) => [`${file}: ${document.kind}/${document.metadata.name}`, document] as const))(
    "%s is valid",
    (_, document) => {
      expect(() => validate(document)).not.toThrow();
    },
  );

  it("a schema violation is caught (the validation is not a no-op)", () => {
    const broken = structuredClone(find("Deployment", "api")) as Manifest;
    (podSpec(broken).spec.containers[0] as unknown as { ports: unknown[] }).ports = [{ containerPort: "8080" }];
    expect(() => validate(broken)).toThrow(/containerPort/);
    const scaled = structuredClone(find("ScaledObject", "dispatcher")) as Manifest & { spec: { triggers: unknown[] } };
    scaled.spec.triggers = [{ type: "prometheus", metadata: { threshold: 2000 } }];
    expect(() => validate(scaled)).toThrow(/threshold/);
  });
});

describe("deploy/k8s against what the apps do", () => {
  const secret = find("Secret", "gateway-secrets") as Manifest & { stringData: Record<string, string> };
  const deployments = APPS.map((app) => [app, find("Deployment", app) as Manifest] as const);

  it.each(deployments)("%s: probes on the app's own endpoints and port, resources, non-root, read-only", (app, d) => {
    const { spec, metadata } = podSpec(d);
    const container = spec.containers[0] as Container;
    const portNames = new Set(container.ports?.map((p) => p.name));
    const readiness = container.readinessProbe?.httpGet;
    expect(readiness?.path).toBe(app === "panel" ? "/healthz" : "/readyz");
    expect(container.livenessProbe?.httpGet?.path).toBe("/healthz");
    expect(portNames.has(String(readiness?.port))).toBe(true);
    expect(container.resources?.requests?.cpu).toBeDefined();
    expect(container.resources?.limits?.memory).toBe(container.resources?.requests?.memory);
    expect(spec.securityContext?.runAsNonRoot).toBe(true);
    expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(container.image).toBe(`gateway-${app}`);
    expect(metadata.labels["app.kubernetes.io/component"]).toBe(app);
    // Every Secret key referenced exists; the shared ConfigMap is mounted.
    for (const variable of container.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      if (ref) expect(Object.keys(secret.stringData)).toContain(ref.key);
    }
    expect(container.envFrom?.[0]?.configMapRef?.name).toBe("gateway-config");
  });

  it.each(deployments)("%s: a PodDisruptionBudget selects it", (app) => {
    const pdb = find("PodDisruptionBudget", app) as Manifest & { spec: { selector: { matchLabels: object } } };
    expect(podSpec(find("Deployment", app) as Manifest).metadata.labels).toMatchObject(pdb.spec.selector.matchLabels);
  });

  it("the grace periods cover each app's own drain on SIGTERM", () => {
    const grace = (app: string) =>
      podSpec(find("Deployment", app) as Manifest).spec.terminationGracePeriodSeconds ?? 30;
    // apps/api/src/main.ts: requests in flight finish (a send waits for Meta up to META_TIMEOUT_MS, 15 s) after 5 s
    // of preStop. apps/dispatcher/src/main.ts exits after WEBHOOK_TIMEOUT_MS + 20 s at most (10 + 20);
    // apps/campaign-worker/src/main.ts after META_TIMEOUT_MS + CAMPAIGN_TURN_MAX_WAIT_MS + 20 s (15 + 10 + 20).
    expect(grace("api")).toBeGreaterThan(5 + 15);
    expect(grace("dispatcher")).toBeGreaterThan(10 + 20);
    expect(grace("campaign-worker")).toBeGreaterThan(15 + 10 + 20);
    expect(grace("panel")).toBeGreaterThan(5 + 15);
  });

  it("autoscaling: the API on CPU, the workers on the queue gauges the apps export", () => {
    const hpa = find("HorizontalPodAutoscaler", "api") as Manifest & {
      spec: { scaleTargetRef: { name: string }; metrics: { resource?: { name: string } }[] };
    };
    expect(hpa.spec.scaleTargetRef.name).toBe("api");
    expect(hpa.spec.metrics[0]?.resource?.name).toBe("cpu");
    const sources = [
      readFileSync(join(REPO_ROOT, "packages/jobs/src/metrics.ts"), "utf8"),
      readFileSync(join(REPO_ROOT, "apps/campaign-worker/src/metrics.ts"), "utf8"),
    ].join("\n");
    for (const [name, gauge] of [
      ["dispatcher", "gw_webhook_queue_jobs"],
      ["campaign-worker", "gw_campaign_queue_jobs"],
    ] as const) {
      const scaled = find("ScaledObject", name) as Manifest & {
        spec: { scaleTargetRef: { name: string }; triggers: { metadata: { query: string } }[] };
      };
      expect(scaled.spec.scaleTargetRef.name).toBe(name);
      expect(scaled.spec.triggers[0]?.metadata.query).toContain(gauge);
      expect(sources).toContain(`name: "${gauge}"`);
    }
  });

  it("the internal ports (metrics, Bull Board, probes) are reachable from the namespace only", () => {
    type Policy = Manifest & {
      spec: { ingress?: { from?: { podSelector?: object }[]; ports?: { port: number }[] }[] };
    };
    const publicPorts = (find("NetworkPolicy", "gateway-public") as Policy).spec.ingress?.flatMap((r) => r.ports ?? []);
    expect(publicPorts?.map((p) => p.port).sort()).toEqual([8080, 8083]);
    const internal = (find("NetworkPolicy", "gateway-internal") as Policy).spec.ingress ?? [];
    expect(
      internal
        .flatMap((rule) => rule.ports ?? [])
        .map((p) => p.port)
        .sort(),
    ).toEqual([8081, 8082, 8084]);
    for (const rule of internal) expect(rule.from).toEqual([{ podSelector: {} }]);
    expect((find("NetworkPolicy", "gateway-default-deny-ingress") as Policy).spec.ingress).toBeUndefined();
  });

  it("migrations run in the release's Job, straight to PostgreSQL, never in an app's pod", () => {
    const job = find("Job", "gateway-migrate") as Manifest & { spec: { template: { spec: PodSpec } } };
    const container = job.spec.template.spec.containers[0] as Container;
    expect(container.image).toBe("gateway-migrate");
    expect(container.env?.find((e) => e.name === "DATABASE_URL")?.valueFrom?.secretKeyRef?.key).toBe(
      "DATABASE_DIRECT_URL",
    );
    const dockerfile = readFileSync(join(REPO_ROOT, "docker/Dockerfile"), "utf8");
    expect(dockerfile).not.toMatch(/CMD \[[^\]]*migrate[^\]]*api\/main/);
  });

  it("the production overlay names an image for every container of the base and the Job", () => {
    const overlay = parse(
      readFileSync(join(REPO_ROOT, "deploy/k8s/overlays/production/kustomization.yaml"), "utf8"),
    ) as {
      images: { name: string }[];
    };
    const used = new Set(
      all.flatMap(({ document }) =>
        document.kind === "Deployment" || document.kind === "Job"
          ? podSpec(document).spec.containers.map((c) => c.image)
          : [],
      ),
    );
    expect(overlay.images.map((i) => i.name).sort()).toEqual([...used].sort());
  });

  it("the images run as a non-root user, with the production V8 flags (docs/performance.md)", () => {
    const dockerfile = readFileSync(join(REPO_ROOT, "docker/Dockerfile"), "utf8");
    expect(dockerfile).toMatch(/FROM \$\{NODE_IMAGE\} AS runtime[\s\S]*USER 1000:1000/);
    for (const app of ["api", "dispatcher", "panel"]) {
      expect(dockerfile).toContain(
        `CMD ["node", "--max-old-space-size=128", "--liftoff-only", "dist/${app}/main.mjs"]`,
      );
    }
    for (const target of [...APPS, "migrate"]) expect(dockerfile).toContain(`FROM runtime AS ${target}\n`);
  });
});

describe("the topology run's rendering for podman (scripts/deploy/manifests.ts)", () => {
  const topology: LocalTopology = {
    tag: "test",
    ports: localPorts(27000),
    replicas: { api: 2, dispatcher: 2, "campaign-worker": 1, panel: 1 },
    secrets: Object.fromEntries(
      Object.keys((find("Secret", "gateway-secrets") as Manifest & { stringData: object }).stringData).map((k) => [
        k,
        "x",
      ]),
    ),
    config: { REDIS_SENTINELS: "127.0.0.1:27391", REDIS_SENTINEL_MASTER: "gateway" },
    receiverDir: "/tmp",
    signingSecret: "segredo",
  };
  const rendered = [
    ...localConfig(files, topology),
    ...localApps(files, topology),
    localMigration(files, topology),
    ...localInfrastructure(topology, { PG_USER: "gateway" }),
    ...localFakes(topology, {}),
  ];

  it.each(rendered.map((document) => [`${document.kind}/${document.metadata.name}`, document] as const))(
    "%s is valid",
    (_, document) => {
      expect(() => validate(document)).not.toThrow();
    },
  );

  it("gives every replica its own loopback ports and keeps the base's images and security", () => {
    const apis = rendered.filter((d) => d.kind === "Deployment" && d.metadata.name.startsWith("api-"));
    expect(apis.map((d) => d.metadata.name)).toEqual(["api-1", "api-2"]);
    const ports = apis.map((d) => envValue(podSpec(d).spec.containers[0] as Container, "API_PORT"));
    expect(new Set(ports).size).toBe(2);
    for (const d of apis) {
      const container = podSpec(d).spec.containers[0] as Container;
      expect(container.image).toBe("localhost/gateway-api:test");
      expect(envValue(container, "API_HOST")).toBe("127.0.0.1");
      expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
    }
  });
});

describe("docker/compose.yaml", () => {
  const compose = parse(readFileSync(join(REPO_ROOT, "docker/compose.yaml"), "utf8"), { merge: true }) as {
    services: Record<string, { ports?: string[]; depends_on?: Record<string, { condition: string }> }>;
  };

  it("publishes the internal ports (API 8082, dispatcher 8081, campaign worker 8084) on loopback only", () => {
    const published = Object.values(compose.services).flatMap((service) => service.ports ?? []);
    for (const port of ["8081", "8082", "8084"]) {
      const bindings = published.filter((p) => p.split(":").at(-1) === port);
      expect(bindings.length).toBeGreaterThan(0);
      for (const binding of bindings) expect(binding.startsWith("127.0.0.1:")).toBe(true);
    }
  });

  it("runs the migrations once, before the API", () => {
    expect(compose.services.api?.depends_on?.migrate?.condition).toBe("service_completed_successfully");
  });
});
