// The Kubernetes manifests under deploy/k8s, read as Kustomize lists them, and their rendering for this machine
// (`podman kube play`), used by scripts/test-deploy.sh and by testkit's offline validation test.
//
// Why a renderer for this machine and not a Kustomize overlay: podman (4.3 in Debian 12) runs Deployments,
// ConfigMaps and Pods, but every pod shares the host's network here (no traffic off loopback), so two replicas of
// one Deployment would bind the same port; it reads kube Secrets in a format of its own; and it has no scheduler,
// Service proxy, autoscaler, NetworkPolicy or Job controller. So each replica becomes a one-replica Deployment with
// ports of its own, the Secret's values reach the pods through a ConfigMap of the same name, the migration Job becomes
// a Pod, and the objects only a cluster acts on (Services, PDBs, HPA, ScaledObjects, NetworkPolicies) are left out.
// Everything else (images, commands, env wiring, resources, security contexts, volumes) is the base's, unchanged.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, stringify } from "yaml";

export const DEPLOY_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../deploy/k8s");

/** A Kubernetes object as parsed from YAML. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export interface ManifestFile {
  /** Relative to deploy/k8s. */
  file: string;
  documents: Manifest[];
}

/** Every document of a YAML file (aliases expanded). */
export function readManifests(path: string): Manifest[] {
  return parseAllDocuments(readFileSync(path, "utf8")).map((document) => {
    if (document.errors.length > 0) throw new Error(`${path}: ${document.errors[0]?.message ?? "YAML inválido"}`);
    return document.toJS({ maxAliasCount: 100 }) as Manifest;
  });
}

/** The files a kustomization lists under `resources` (folders followed), then the kustomization itself. */
export function kustomizationFiles(folder: string): string[] {
  const kustomization = readManifests(join(DEPLOY_DIR, folder, "kustomization.yaml"))[0] as unknown as {
    resources?: string[];
    patches?: { path?: string }[];
  };
  const files: string[] = [];
  for (const resource of kustomization.resources ?? []) {
    const path = join(folder, resource);
    if (resource.endsWith(".yaml")) files.push(path);
    else files.push(...kustomizationFiles(path));
  }
  return files;
}

/** The base, the release (migration Job) and what the production overlay adds, file by file. */
export function loadManifests(): ManifestFile[] {
  const files = new Set([...kustomizationFiles("overlays/production"), ...kustomizationFiles("release")]);
  return [...files].map((file) => ({ file, documents: readManifests(join(DEPLOY_DIR, file)) }));
}

/**
 * deploy/k8s/secret.example.yaml: the Secret `gateway-secrets` the pods read, its keys with placeholders. No
 * kustomization applies it (the secret store makes the real one); the run's ConfigMap of the same name has its keys.
 */
export function loadSecretExample(): Manifest & { stringData: Record<string, string> } {
  const [secret] = readManifests(join(DEPLOY_DIR, "secret.example.yaml"));
  if (secret?.kind !== "Secret" || secret.metadata.name !== "gateway-secrets")
    throw new Error("deploy/k8s/secret.example.yaml deve ser o Secret gateway-secrets");
  return secret as Manifest & { stringData: Record<string, string> };
}

export const APPS = ["api", "dispatcher", "campaign-worker", "panel"] as const;
export type App = (typeof APPS)[number];

/** Loopback ports of one topology run, all derived from one base so two runs can use separate ranges. */
export function localPorts(base: number) {
  return {
    postgres: base + 432,
    pgbouncer: base + 632,
    redisPrimary: base + 379,
    redisReplica: base + 380,
    sentinels: [base + 391, base + 392, base + 393],
    sandbox: base + 90,
    receiver: base + 99,
    /** Replica i (from 0) of an app listens on its port + 100 × i. */
    api: (i: number) => base + 80 + 100 * i,
    apiInternal: (i: number) => base + 82 + 100 * i,
    dispatcher: (i: number) => base + 81 + 100 * i,
    campaignWorker: (i: number) => base + 84 + 100 * i,
    panel: (i: number) => base + 83 + 100 * i,
  };
}
export type LocalPorts = ReturnType<typeof localPorts>;

export interface LocalTopology {
  /** Tag of the localhost/gateway-* images (scripts/images.sh). */
  tag: string;
  ports: LocalPorts;
  replicas: Record<App, number>;
  /** The Secret's values for this run. */
  secrets: Record<string, string>;
  /** ConfigMap values replaced for this machine (sandbox instead of Meta, Sentinels on loopback, ...). */
  config: Record<string, string>;
  /** Extra env per app (the test's shorter timers), applied to every replica. */
  env?: Partial<Record<App, Record<string, string>>>;
  /** Host folder the receiver writes its JSONL file to. */
  receiverDir: string;
  /** The integration's signing secret, known once the account is seeded. */
  signingSecret?: string;
}

type Env = { name: string; value?: string; valueFrom?: Record<string, { name: string; key: string }> };
interface Container {
  name: string;
  image: string;
  env?: Env[];
  [field: string]: unknown;
}
interface PodSpec {
  containers: Container[];
  [field: string]: unknown;
}

const clone = <T>(value: T): T => structuredClone(value);

function byKind(files: ManifestFile[], kind: string, name: string): Manifest {
  const found = files.flatMap((f) => f.documents).find((d) => d.kind === kind && d.metadata.name === name);
  if (!found) throw new Error(`${kind}/${name} não está nos manifestos`);
  return found;
}

const template = (deployment: Manifest) =>
  (deployment.spec as { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } }).template;

/** A pod spec made runnable by podman on this machine (see the header). */
function localPodSpec(spec: PodSpec, tag: string, podName: string): PodSpec {
  const local = clone(spec);
  local.hostNetwork = true;
  // podman 4.3 makes an emptyDir a named volume called by the volume's name, shared by every pod using that name:
  // each pod gets its own (`<pod>-<volume>`, removed by the harness afterwards).
  const volumes = (local.volumes ?? []) as { name: string; emptyDir?: unknown }[];
  const renamed = new Map<string, string>();
  for (const volume of volumes.filter((v) => v.emptyDir !== undefined)) {
    renamed.set(volume.name, `${podName}-${volume.name}`);
    volume.name = `${podName}-${volume.name}`;
  }
  for (const container of local.containers) {
    for (const mount of (container.volumeMounts ?? []) as { name: string }[])
      mount.name = renamed.get(mount.name) ?? mount.name;
  }
  // Probes: podman would run them as health checks with curl inside the image (there is none); the harness polls
  // /readyz itself. preStop hooks: podman has no endpoints to drain.
  for (const container of local.containers) {
    delete container.readinessProbe;
    delete container.livenessProbe;
    delete container.startupProbe;
    delete container.lifecycle;
    // Host network: a port is what the app binds (set per replica below); podman refuses port mappings there.
    delete container.ports;
    container.image = `localhost/${container.image}:${tag}`;
    container.imagePullPolicy = "Never";
    // Secrets through the ConfigMap of the same name (podman 4.3 cannot read kube Secrets back).
    for (const variable of container.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      if (ref) variable.valueFrom = { configMapKeyRef: ref };
    }
  }
  return local;
}

function setEnv(container: Container, values: Record<string, string>): void {
  container.env ??= [];
  for (const [name, value] of Object.entries(values)) {
    const existing = container.env.find((variable) => variable.name === name);
    if (existing) {
      delete existing.valueFrom;
      existing.value = value;
    } else container.env.push({ name, value });
  }
}

function deployment(name: string, labels: Record<string, string>, spec: PodSpec): Manifest {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels },
    spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec } },
  };
}

/** The per-replica ports of an app, as env overrides. */
function replicaEnv(app: App, i: number, ports: LocalPorts): Record<string, string> {
  switch (app) {
    case "api":
      return {
        API_HOST: "127.0.0.1",
        API_PORT: String(ports.api(i)),
        API_INTERNAL_HOST: "127.0.0.1",
        API_INTERNAL_PORT: String(ports.apiInternal(i)),
      };
    case "dispatcher":
      return { DISPATCHER_HOST: "127.0.0.1", DISPATCHER_PORT: String(ports.dispatcher(i)) };
    case "campaign-worker":
      return { CAMPAIGN_WORKER_HOST: "127.0.0.1", CAMPAIGN_WORKER_PORT: String(ports.campaignWorker(i)) };
    case "panel":
      return { PANEL_HOST: "127.0.0.1", PANEL_PORT: String(ports.panel(i)) };
  }
}

/** Name of replica i of an app on this machine (its podman pod is `<name>-pod-0`). */
export const replicaName = (app: App, i: number) => `${app}-${i + 1}`;

/**
 * The ConfigMaps of the run: the base's, with this machine's values, and the Secret's values (for every key of
 * deploy/k8s/secret.example.yaml) as a ConfigMap.
 */
export function localConfig(files: ManifestFile[], topology: LocalTopology): Manifest[] {
  const config = clone(byKind(files, "ConfigMap", "gateway-config"));
  config.data = { ...(config.data as Record<string, string>), ...topology.config };
  const keys = Object.keys(loadSecretExample().stringData);
  const missing = keys.filter((key) => topology.secrets[key] === undefined);
  if (missing.length > 0) throw new Error(`valores ausentes para o Secret: ${missing.join(", ")}`);
  return [
    config,
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "gateway-secrets" }, data: { ...topology.secrets } },
  ];
}

/** One one-replica Deployment per replica of each app, from the base's Deployments. */
export function localApps(files: ManifestFile[], topology: LocalTopology): Manifest[] {
  return APPS.flatMap((app) =>
    Array.from({ length: topology.replicas[app] }, (_, i) => {
      const base = byKind(files, "Deployment", app);
      const { metadata, spec } = template(base);
      const local = localPodSpec(spec, topology.tag, replicaName(app, i));
      for (const container of local.containers) {
        setEnv(container, { ...replicaEnv(app, i, topology.ports), ...topology.env?.[app] });
      }
      return deployment(replicaName(app, i), { ...metadata.labels, "gateway.test/replica": String(i + 1) }, local);
    }),
  );
}

/** The release's migration Job as a Pod that runs once (podman has no Job controller). */
export function localMigration(files: ManifestFile[], topology: LocalTopology): Manifest {
  const job = byKind(files, "Job", "gateway-migrate");
  const { metadata, spec } = (job.spec as { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } })
    .template;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "gateway-migrate", labels: metadata.labels },
    spec: localPodSpec(spec, topology.tag, "gateway-migrate"),
  };
}

/** A pod of the infrastructure image (deploy/podman/infra.sh role) with its env. */
function infraDeployment(name: string, role: string, tag: string, env: Record<string, string>): Manifest {
  const labels = { "app.kubernetes.io/name": "gateway-infra", "app.kubernetes.io/component": name };
  return deployment(name, labels, {
    hostNetwork: true,
    terminationGracePeriodSeconds: 10,
    containers: [
      {
        name: role,
        image: `localhost/gateway-infra:${tag}`,
        imagePullPolicy: "Never",
        args: [role],
        env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
      },
    ],
  });
}

/** The Redis servers' password (REDIS_URL's) and the Sentinels' (REDIS_SENTINEL_PASSWORD) of the run's Secret. */
function redisPasswords(secrets: Record<string, string>): Record<string, string> {
  const url = secrets.REDIS_URL && URL.canParse(secrets.REDIS_URL) ? new URL(secrets.REDIS_URL) : undefined;
  const redis = url?.password ? decodeURIComponent(url.password) : "";
  const sentinel = secrets.REDIS_SENTINEL_PASSWORD ?? "";
  return { ...(redis ? { REDIS_PASSWORD: redis } : {}), ...(sentinel ? { SENTINEL_PASSWORD: sentinel } : {}) };
}

/**
 * PostgreSQL, PgBouncer (transaction pooling), a Redis primary with one replica and three Sentinels: what production
 * gets from its managed services, made from Debian packages (deploy/podman/infra.sh). Redis and the Sentinels require
 * the passwords the pods get from the Secret (REDIS_URL's, REDIS_SENTINEL_PASSWORD).
 */
export function localInfrastructure(topology: LocalTopology, database: Record<string, string>): Manifest[] {
  const { ports, tag } = topology;
  const pg = { PG_PORT: String(ports.postgres), ...database };
  const passwords = redisPasswords(topology.secrets);
  const redis: Record<string, string> = passwords.REDIS_PASSWORD ? { REDIS_PASSWORD: passwords.REDIS_PASSWORD } : {};
  const sentinel = { SENTINEL_MASTER: topology.config.REDIS_SENTINEL_MASTER ?? "mymaster", ...passwords };
  return [
    infraDeployment("postgres", "postgres", tag, pg),
    infraDeployment("pgbouncer", "pgbouncer", tag, { ...pg, PGB_PORT: String(ports.pgbouncer) }),
    infraDeployment("redis-primary", "redis", tag, { ...redis, REDIS_PORT: String(ports.redisPrimary) }),
    infraDeployment("redis-replica", "redis", tag, {
      ...redis,
      REDIS_PORT: String(ports.redisReplica),
      REDIS_REPLICA_OF: String(ports.redisPrimary),
    }),
    ...ports.sentinels.map((port, i) =>
      infraDeployment(`redis-sentinel-${i + 1}`, "sentinel", tag, {
        ...sentinel,
        SENTINEL_PORT: String(port),
        REDIS_PRIMARY_PORT: String(ports.redisPrimary),
      }),
    ),
  ];
}

/** The provider sandbox (Meta) and the receiver (the integrator), from their images. */
export function localFakes(topology: LocalTopology, sandboxEnv: Record<string, string>): Manifest[] {
  const { ports, tag } = topology;
  const pod = (name: string, env: Record<string, string>, mounts: { name: string; hostPath: string }[] = []) =>
    deployment(
      name,
      { "app.kubernetes.io/name": "gateway-fake", "app.kubernetes.io/component": name },
      {
        hostNetwork: true,
        terminationGracePeriodSeconds: 10,
        securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 },
        containers: [
          {
            name,
            image: `localhost/gateway-${name}:${tag}`,
            imagePullPolicy: "Never",
            env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
            securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
            volumeMounts: mounts.map((mount) => ({ name: mount.name, mountPath: `/${mount.name}` })),
          },
        ],
        volumes: mounts.map((mount) => ({ name: mount.name, hostPath: { path: mount.hostPath, type: "Directory" } })),
      },
    );
  if (!topology.signingSecret) throw new Error("o segredo de assinatura da integração ainda não é conhecido");
  return [
    pod("provider-sandbox", { SANDBOX_HOST: "127.0.0.1", SANDBOX_PORT: String(ports.sandbox), ...sandboxEnv }),
    pod(
      "receiver",
      {
        RECEIVER_HOST: "127.0.0.1",
        PORT: String(ports.receiver),
        WEBHOOK_SECRET: topology.signingSecret,
        DATA_FILE: "/data/events.jsonl",
      },
      [{ name: "data", hostPath: topology.receiverDir }],
    ),
  ];
}

/** The named volumes podman makes for the emptyDirs of these documents (to remove after a run). */
export function emptyDirVolumes(documents: Manifest[]): string[] {
  return documents.flatMap((document) => {
    const spec = (document.kind === "Pod" ? document.spec : template(document).spec) as PodSpec | undefined;
    const volumes = (spec?.volumes ?? []) as { name: string; emptyDir?: unknown }[];
    return volumes.filter((volume) => volume.emptyDir !== undefined).map((volume) => volume.name);
  });
}

/** YAML for `podman kube play`, documents separated by `---`. */
export function toYaml(documents: Manifest[]): string {
  return documents.map((document) => stringify(document, { lineWidth: 0 })).join("---\n");
}
