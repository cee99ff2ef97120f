// The Kubernetes manifests (deploy/k8s: base, production overlay, release Job), their rendering for this machine's
// topology run, and docker/compose.yaml, checked offline. Every object is validated against the published schemas:
// Kubernetes' OpenAPI schemas (kubernetes-models) and KEDA's CRD schemas (@kubernetes-models/keda). The checks after
// that hold the manifests to what the apps do (probes, ports, drains, metric names), which no schema knows.
import { existsSync, readdirSync, readFileSync } from "node:fs";
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
  kustomizationFiles,
  loadManifests,
  loadSecretExample,
  localApps,
  localConfig,
  localFakes,
  localInfrastructure,
  localMigration,
  localPorts,
  readManifests,
  DEPLOY_DIR,
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
/** The Secret the pods read, as deploy/k8s/secret.example.yaml documents it (no kustomization applies it). */
const secretExample = loadSecretExample();
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

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: "In" | "NotIn" | "Exists" | "DoesNotExist"; values?: string[] }[];
}
interface Peer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: unknown;
}
type Policy = Manifest & {
  spec: {
    podSelector: Selector;
    policyTypes?: string[];
    ingress?: { from?: Peer[]; ports?: { port: number | string; protocol?: string }[] }[];
  };
};

/** Kubernetes' label selector semantics (an empty selector matches everything). */
function selects(selector: Selector, labels: Record<string, string>): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    const value = labels[key];
    if (operator === "In") return value !== undefined && values.includes(value);
    if (operator === "NotIn") return value === undefined || !values.includes(value);
    if (operator === "Exists") return value !== undefined;
    return value === undefined;
  });
  return byLabels && byExpressions;
}

/**
 * The namespace of a Prometheus address: `http://<service>.<namespace>.svc[.cluster.local]:<port>`; a bare service
 * name is in the gateway's own namespace.
 */
function prometheusNamespace(serverAddress: string, own: string): string {
  const labels = new URL(serverAddress).hostname.split(".");
  return labels.length >= 2 && (labels[2] === "svc" || labels.length === 2) ? (labels[1] as string) : own;
}

/**
 * Whether some NetworkPolicy (all live in the gateway's namespace) lets pods of namespace `from` reach `port` of the
 * pods with these labels. Policies are additive: one admitting rule is enough, once a policy selects the pods. A peer
 * with only a podSelector is the policy's own namespace; a namespaceSelector is matched against the label every
 * namespace carries (kubernetes.io/metadata.name).
 */
function admits(labels: Record<string, string>, container: Container, port: number, from: string): boolean {
  const own = "gateway";
  const namespaceLabels = { "kubernetes.io/metadata.name": from };
  const policies = all.map((a) => a.document).filter((d): d is Policy => d.kind === "NetworkPolicy");
  const selecting = policies.filter(
    (p) => selects(p.spec.podSelector, labels) && (p.spec.policyTypes ?? ["Ingress"]).includes("Ingress"),
  );
  if (selecting.length === 0) return true;
  const portMatches = (rulePort: number | string) =>
    rulePort === port || container.ports?.some((p) => p.name === rulePort && p.containerPort === port) === true;
  return selecting.some((policy) =>
    (policy.spec.ingress ?? []).some((rule) => {
      if (rule.ports && !rule.ports.some((p) => portMatches(p.port))) return false;
      if (!rule.from) return true;
      return rule.from.some((peer) => {
        if (peer.ipBlock) return false;
        if (!peer.namespaceSelector) return from === own;
        const podsAll =
          !peer.podSelector ||
          (Object.keys(peer.podSelector.matchLabels ?? {}).length === 0 && !peer.podSelector.matchExpressions?.length);
        return podsAll && selects(peer.namespaceSelector, namespaceLabels);
      });
    }),
  );
}

/** Every TypeScript source under a folder of the repository, concatenated. */
function sourcesOf(folder: string): string {
  return readdirSync(join(REPO_ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8"))
    .join("\n");
}

/**
 * The apps that export a gauge on their metrics port: the app registers it itself (`name: "<gauge>"` in its sources),
 * or calls the function of a package that does (packages/jobs' registerQueueDepthGauge).
 */
function exportersOf(gauge: string): string[] {
  const registrars = readdirSync(join(REPO_ROOT, "packages"))
    .filter((pkg) => existsSync(join(REPO_ROOT, "packages", pkg, "src")))
    .flatMap((pkg) => [...sourcesOf(`packages/${pkg}/src`).matchAll(/export function (\w+)\([^]*?\n}\n/g)])
    .filter((match) => match[0].includes(`name: "${gauge}"`))
    .map((match) => match[1] as string);
  return APPS.filter((app) => {
    const sources = sourcesOf(`apps/${app}/src`);
    return sources.includes(`name: "${gauge}"`) || registrars.some((fn) => new RegExp(`\\b${fn}\\(`).test(sources));
  });
}

/** The production overlay's kustomization and every one it builds on, with the folder each is in. */
function kustomizationTree(folder: string): (Record<string, never> & {
  folder: string;
  resources?: string[];
  secretGenerator?: unknown;
  patches?: ({ path?: string; patch?: string } | string)[];
  patchesStrategicMerge?: string[];
})[] {
  const kustomization = parse(readFileSync(join(DEPLOY_DIR, folder, "kustomization.yaml"), "utf8")) as {
    resources?: string[];
  };
  const nested = (kustomization.resources ?? [])
    .filter((resource) => !resource.endsWith(".yaml"))
    .flatMap((resource) => kustomizationTree(join(folder, resource)));
  return [{ ...kustomization, folder } as never, ...nested];
}

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

  it("secret.example.yaml: the Secret the pods read is valid", () => {
    expect(() => validate(secretExample)).not.toThrow();
  });

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
  const secret = secretExample;
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

  it("every ScaledObject's Prometheus can reach, through the NetworkPolicies, the metrics port of each pod it reads", () => {
    const overlay = parse(
      readFileSync(join(REPO_ROOT, "deploy/k8s/overlays/production/kustomization.yaml"), "utf8"),
    ) as { namespace: string };
    const scaledObjects = all.filter(({ document }) => document.kind === "ScaledObject").map((a) => a.document);
    expect(scaledObjects.length).toBeGreaterThan(0);
    let checked = 0;
    for (const scaled of scaledObjects) {
      const triggers = (scaled.spec as { triggers: { type: string; metadata: Record<string, string> }[] }).triggers;
      for (const trigger of triggers.filter((t) => t.type === "prometheus")) {
        const from = prometheusNamespace(trigger.metadata.serverAddress ?? "", overlay.namespace);
        const query = trigger.metadata.query ?? "";
        expect(query).toContain(`namespace="${overlay.namespace}"`);
        const gauges = [...new Set(query.match(/\bgw_[a-z_]+\b/g) ?? [])];
        expect(gauges.length).toBeGreaterThan(0);
        for (const gauge of gauges) {
          const apps = exportersOf(gauge);
          expect(apps.length).toBeGreaterThan(0);
          for (const app of apps) {
            const { metadata, spec } = podSpec(find("Deployment", app) as Manifest);
            const port = Number(
              (find("Deployment", app) as Manifest & { spec: { template: { metadata: { annotations: object } } } }).spec
                .template.metadata.annotations["prometheus.io/port" as keyof object],
            );
            expect(spec.containers[0]?.ports?.map((p) => p.containerPort)).toContain(port);
            const admitted = admits(metadata.labels, spec.containers[0] as Container, port, from);
            expect({ scaledObject: scaled.metadata.name, gauge, app, port, from, admitted }).toMatchObject({
              admitted: true,
            });
            checked++;
          }
        }
      }
    }
    // gw_webhook_queue_jobs from the API and the dispatchers, gw_campaign_queue_jobs from the campaign workers.
    expect(checked).toBeGreaterThanOrEqual(3);
  });

  it("only the metrics ports are open to another namespace (Bull Board's port needs its OPS_* sign-in)", () => {
    for (const { document } of all.filter((a) => a.document.kind === "NetworkPolicy")) {
      for (const rule of (document as Policy).spec.ingress ?? []) {
        const foreign = (rule.from ?? []).some((peer) => peer.namespaceSelector !== undefined);
        if (!foreign) continue;
        expect((rule.ports ?? []).map((p) => p.port).sort()).toEqual([8081, 8082, 8084]);
      }
    }
  });

  it("the Sentinels' password reaches every pod that talks to Redis, from the Secret", () => {
    const config = find("ConfigMap", "gateway-config") as Manifest & { data: Record<string, string> };
    expect(config.data.REDIS_SENTINELS).toBeTruthy();
    expect(config.data.REDIS_SENTINEL_TLS).toMatch(/^(true|false)$/);
    for (const [app, deployment] of deployments) {
      const container = podSpec(deployment).spec.containers[0] as Container;
      const secretOf = (name: string) => container.env?.find((e) => e.name === name)?.valueFrom?.secretKeyRef?.key;
      expect({ app, redis: secretOf("REDIS_URL"), sentinel: secretOf("REDIS_SENTINEL_PASSWORD") }).toEqual({
        app,
        redis: "REDIS_URL",
        sentinel: "REDIS_SENTINEL_PASSWORD",
      });
    }
    expect(Object.keys(secret.stringData)).toContain("REDIS_SENTINEL_PASSWORD");
  });

  it("the pods that follow NOTIFY hold their LISTEN session straight to PostgreSQL, not through PgBouncer", () => {
    const following = APPS.filter((app) => sourcesOf(`apps/${app}/src`).includes("followRevocations("));
    expect(following.sort()).toEqual(["api", "campaign-worker"]);
    for (const app of following) {
      const container = podSpec(find("Deployment", app) as Manifest).spec.containers[0] as Container;
      const listen = container.env?.find((e) => e.name === "DATABASE_LISTEN_URL")?.valueFrom?.secretKeyRef?.key;
      expect({ app, listen }).toEqual({ app, listen: "DATABASE_DIRECT_URL" });
    }
  });

  it("the production overlay emits no Secret: an apply never replaces the one the secret store made", () => {
    for (const folder of ["overlays/production", "release"]) {
      const emitted = kustomizationFiles(folder).flatMap((file) => readManifests(join(DEPLOY_DIR, file)));
      expect(emitted.filter((document) => document.kind === "Secret").map((d) => d.metadata.name)).toEqual([]);
      for (const kustomization of kustomizationTree(folder)) {
        expect(kustomization.secretGenerator).toBeUndefined();
        // A patch that carries a Secret would write its placeholders over the real one.
        for (const patch of [...(kustomization.patches ?? []), ...(kustomization.patchesStrategicMerge ?? [])]) {
          const path = typeof patch === "string" ? patch : patch.path;
          const text = path ? readFileSync(join(DEPLOY_DIR, kustomization.folder, path), "utf8") : "";
          expect(`${text} ${typeof patch === "string" ? "" : (patch.patch ?? "")}`).not.toMatch(/kind:\s*Secret/);
        }
      }
    }
    // The pods still read it: its keys are documented beside the manifests, never applied.
    expect(files.map((f) => f.file)).not.toContain("secret.example.yaml");
    expect(all.some(({ document }) => JSON.stringify(document).includes('"name":"gateway-secrets"'))).toBe(true);
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
    secrets: Object.fromEntries(Object.keys(secretExample.stringData).map((k) => [k, "x"])),
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

  it("runs Redis and the Sentinels with the passwords the pods get from the Secret", () => {
    const withPasswords: LocalTopology = {
      ...topology,
      secrets: {
        ...topology.secrets,
        REDIS_URL: "redis://:s3nha%2Fredis@127.0.0.1:6379/0",
        REDIS_SENTINEL_PASSWORD: "s3nha",
      },
    };
    const env = (name: string) =>
      Object.fromEntries(
        (
          podSpec(localInfrastructure(withPasswords, {}).find((d) => d.metadata.name === name) as Manifest).spec
            .containers[0]?.env ?? []
        ).map((e) => [e.name, e.value]),
      );
    expect(env("redis-primary")).toMatchObject({ REDIS_PASSWORD: "s3nha/redis" });
    expect(env("redis-replica")).toMatchObject({ REDIS_PASSWORD: "s3nha/redis" });
    for (const i of [1, 2, 3]) {
      expect(env(`redis-sentinel-${i}`)).toMatchObject({ SENTINEL_PASSWORD: "s3nha", REDIS_PASSWORD: "s3nha/redis" });
    }
    const infra = readFileSync(join(REPO_ROOT, "deploy/podman/infra.sh"), "utf8");
    expect(infra).toContain("requirepass %s");
    expect(infra).toContain("sentinel auth-pass $SENTINEL_MASTER $REDIS_PASSWORD");
  });

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
    services: Record<
      string,
      {
        ports?: string[];
        environment?: Record<string, string>;
        depends_on?: Record<string, { condition: string }>;
      }
    >;
  };

  it("publishes every port, the API's and the panel's too, on the host's loopback only", () => {
    const published = Object.entries(compose.services).flatMap(([name, service]) =>
      (service.ports ?? []).map((binding) => ({ name, binding })),
    );
    expect(published.map((p) => p.binding.split(":").at(-1))).toEqual(expect.arrayContaining(["8080", "8083"]));
    expect(published.filter(({ binding }) => !binding.startsWith("127.0.0.1:"))).toEqual([]);
  });

  it("takes META_APP_SECRET from the environment, required, with no default and no committed value", () => {
    const users = Object.entries(compose.services).filter(([, service]) => service.environment?.META_APP_SECRET);
    expect(users.map(([name]) => name).sort()).toEqual(["api", "provider-sandbox"]);
    for (const [, service] of users) {
      // Compose's `${NAME:?message}`: `up` stops with the message when it is unset or empty.
      expect(service.environment?.META_APP_SECRET).toMatch(/^\$\{META_APP_SECRET:\?[^}]+\}$/);
    }
    const smoke = readFileSync(join(REPO_ROOT, "scripts/deploy/compose-smoke.sh"), "utf8");
    expect(smoke).toMatch(/^export META_APP_SECRET$/m);
  });

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
