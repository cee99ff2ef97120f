#!/usr/bin/env node
// `node scripts/build.mjs [--stage DIR] [app ...]`: one ES module per runnable app, `dist/<app>/main.mjs`
// (git-ignored), for production, the Dockerfile, the benches and the processes tests spawn (scripts/test.sh builds
// them once per run). Without arguments every app whose entry exists is built. With `--stage DIR`, each app's runtime
// tree is then assembled in DIR/<app> (what its image holds, below).
//
// What goes in a bundle: the app's own sources, the workspace packages (`@gw/*`, whose `exports` point at their
// TypeScript sources) and the generated Prisma client. Third-party packages stay out and are loaded from
// node_modules at run time, each from the exact file it resolves to from its importer (pnpm keeps every package's
// dependencies next to it, so a bare name in dist/ would find nothing): the import in the bundle is a relative
// path into node_modules/.pnpm. A bundle therefore runs from this checkout (or an image holding the same tree),
// never copied alone.
//
// Bundled sources keep their own `import.meta.url`: each module sees the URL of its source file (relative to the
// bundle), so assets found from it (swagger-ui-dist through createRequire, the migrations folder, the sandbox's
// media samples, the panel's assets, the Prisma client's `__dirname`) resolve as they do under tsx.
//
// Why bundles: under tsx an app carries tsx's loader thread and the transpiled sources (the API idles at ≈ 185 MB
// RSS under tsx, ≈ 140 MB as a bundle). See docs/performance.md.
//
// The staged tree (`--stage DIR`: DIR/<app>, copied to /app by the app's image target): the app's bundle folder
// (dist/<app>), the files its sources read at run time (RUNTIME_FILES), and from node_modules only the packages the
// bundle imports, with their own dependencies (declared, optional, peers; an optional peer only if the tree has it
// anyway), each at the path it has
// here, with pnpm's links between them. No other app's bundle, no TypeScript source, no test, no packages/testkit,
// no provider sandbox (except in its own image). Each staged tree is then loaded once with node and an invalid
// configuration: every module its bundle imports must resolve inside the tree, or the build fails.
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { isBuiltin } from "node:module";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Runnable apps: name → entry. The name is the folder under dist/. */
const APPS = {
  api: "apps/api/src/main.ts",
  dispatcher: "apps/dispatcher/src/main.ts",
  "provider-sandbox": "apps/provider-sandbox/src/main.ts",
  panel: "apps/panel/src/main.ts",
  "campaign-worker": "apps/campaign-worker/src/main.ts",
  // The migration runner, so that a production image needs no TypeScript loader at all.
  migrate: "packages/db/src/migrate-cli.ts",
  // The operator CLI: `pnpm gateway` runs its sources through tsx; the tests spawn this bundle (quicker to start).
  cli: "apps/cli/src/main.ts",
};

/**
 * Sources that find their siblings at run time and are rewritten at build time (a bundle cannot list a folder and
 * import what it finds): `{ list, load, files(dir) }` per source, the same list computed here and imported
 * statically. If the discovery code changes, the build fails rather than shipping an app without its modules.
 * None today: apps/api's public routes, the last such source, are now listed explicitly in their index.
 */
const DISCOVERED_FOLDERS = {};

/**
 * What a bundle reads at run time besides the modules it imports: files found from a source's own URL (see the
 * header), per bundled source that uses `import.meta.url`, as a function of the app. `--stage` copies them into the
 * app's tree; a bundled source that uses `import.meta.url` and is not listed here stops the staging, so no image
 * ships without the files its app reads.
 */
const RUNTIME_FILES = {
  // swagger-ui-dist's files, found with createRequire(import.meta.url) from the route's folder (apps/api's link).
  "apps/api/src/routes/docs.ts": () => ["apps/api/node_modules/swagger-ui-dist"],
  "apps/panel/src/app.ts": () => ["apps/panel/src/assets"],
  "apps/provider-sandbox/src/media/samples.ts": () => ["apps/provider-sandbox/src/media/samples"],
  // Only the migration runner reads the folder; the other apps bundle the module for @gw/db's other exports.
  "packages/db/src/migrate.ts": (app) => (app === "migrate" ? ["prisma/migrations"] : []),
  // Sets the Prisma client's __dirname; nothing is read from it (the query compiler is imported from @prisma/client).
  "packages/db/src/generated/client.ts": () => [],
};

const usage = `uso: node scripts/build.mjs [--stage PASTA] [${Object.keys(APPS).join("|")} ...]`;
const args = process.argv.slice(2);
if (args.includes("-h") || args.includes("--help")) {
  console.log(usage);
  process.exit(0);
}
const stageAt = args.indexOf("--stage");
const stageDir = stageAt >= 0 ? args[stageAt + 1] : undefined;
if (stageAt >= 0 && !stageDir) {
  console.error(`--stage pede uma pasta\n${usage}`);
  process.exit(2);
}
const requested = stageAt >= 0 ? args.filter((_, i) => i !== stageAt && i !== stageAt + 1) : args;
for (const name of requested) {
  if (!(name in APPS)) {
    console.error(`app desconhecido: ${name}\n${usage}`);
    process.exit(2);
  }
}
// Without arguments, the apps present in this checkout; a named app must exist.
const apps = requested.length ? requested : Object.keys(APPS).filter((name) => exists(join(ROOT, APPS[name])));

const started = performance.now();
const results = await Promise.all(apps.map((name) => buildApp(name)));
const built = results.map(({ outfile, bytes }) => `${relative(ROOT, outfile)} (${Math.round(bytes / 1024)} kB)`);
console.error(`[build] ${built.join(", ")} in ${Math.round(performance.now() - started)} ms`);
if (stageDir) {
  for (const result of results) {
    const summary = stageApp(result, resolve(stageDir, result.name));
    console.error(`[stage] ${result.name}: ${summary}`);
  }
}

async function buildApp(name) {
  const outdir = join(ROOT, "dist", name);
  const outfile = join(outdir, "main.mjs");
  rmSync(outdir, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: [join(ROOT, APPS[name])],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Node's own conditions only (a list, even empty, keeps esbuild's extra "module" condition out): every
    // external resolves to the file node itself would load (checked against import.meta.resolve when written).
    conditions: [],
    // Not minified: stack traces, CPU profiles and logs keep the source's names. The map is for reading a
    // trace by hand or `node --enable-source-maps`; it is not loaded by default (it costs memory).
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "none",
    logLevel: "warning",
    plugins: [externalPackages(outdir), ownImportMetaUrl(outdir)],
    metafile: true,
  });
  return { name, outdir, outfile, bytes: statSync(outfile).size, metafile: result.metafile };
}

/** Every bare import that is not a workspace package becomes an external import of the file node would load. */
function externalPackages(outdir) {
  return {
    name: "external-packages",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.resolving) return undefined;
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        // Workspace packages are bundled from their sources.
        if (args.path.startsWith("@gw/")) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { resolving: true },
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (!resolved.path.split(sep).includes("node_modules")) return undefined;
        return { path: toImportPath(relative(outdir, resolved.path)), external: true };
      });
    },
  };
}

/** Workspace sources get `import.meta.url` = their own source file's URL (see the header), found from the bundle. */
function ownImportMetaUrl(outdir) {
  return {
    name: "own-import-meta-url",
    setup(build) {
      build.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
        if (args.path.split(sep).includes("node_modules")) return undefined;
        let contents = readFileSync(args.path, "utf8");
        const discovered = DISCOVERED_FOLDERS[relative(ROOT, args.path).split(sep).join("/")];
        if (discovered) contents = inlineDiscovery(args.path, contents, discovered);
        if (contents.includes("import.meta.url")) {
          const own = `new URL(${JSON.stringify(toImportPath(relative(outdir, args.path)))}, import.meta.url).href`;
          contents = contents.replaceAll("import.meta.url", own);
        }
        return { contents, loader: /\.[cm]?ts$/.test(args.path) ? "ts" : "js" };
      });
    },
  };
}

function inlineDiscovery(path, contents, { list, load, files }) {
  if (!contents.includes(list) || !contents.includes(load)) {
    throw new Error(
      `${relative(ROOT, path)}: the folder discovery changed (expected \`${list}\` and \`${load}\`); update DISCOVERED_FOLDERS in scripts/build.mjs`,
    );
  }
  const names = files(dirname(path));
  const imports = names.map((file, i) => `import * as __discovered${i} from ${JSON.stringify(`./${file}`)};`);
  const table = `const __discovered = {${names.map((file, i) => `${JSON.stringify(file)}: __discovered${i}`).join(", ")}};`;
  return [
    ...imports,
    table,
    contents.replace(list, "Object.keys(__discovered)").replace(load, "__discovered[name]"),
  ].join("\n");
}

function toImportPath(path) {
  const posix = path.split(sep).join("/");
  return posix.startsWith(".") ? posix : `./${posix}`;
}

function exists(path) {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Staging: one app's runtime tree (see the header).

function stageApp({ name, outdir, outfile, metafile }, into) {
  rmSync(into, { recursive: true, force: true });
  const copy = (path) => {
    const from = join(ROOT, path);
    mkdirSync(dirname(join(into, path)), { recursive: true });
    cpSync(from, join(into, path), { recursive: true, verbatimSymlinks: true, dereference: false });
  };
  copy(relative(ROOT, outdir));

  // Files the sources read at run time; links among them (apps/api's swagger-ui-dist) bring their package along.
  const packages = new Set();
  const links = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const source = relative(ROOT, resolve(ROOT, input)).split(sep).join("/");
    if (source.split("/").includes("node_modules")) continue;
    const reads = RUNTIME_FILES[source];
    if (!reads) {
      if (readFileSync(join(ROOT, source), "utf8").includes("import.meta.url"))
        throw new Error(
          `${source} usa import.meta.url: diga em RUNTIME_FILES (scripts/build.mjs) o que ${name} lê dele`,
        );
      continue;
    }
    for (const path of reads(name)) {
      if (lstatSync(join(ROOT, path)).isSymbolicLink()) {
        links.add(path);
        packages.add(packageRoot(realpathSync(join(ROOT, path))));
      } else copy(path);
    }
  }

  // The packages the bundle imports (every external that is not Node's own), then their dependencies.
  const output = metafile.outputs[relative(ROOT, outfile).split(sep).join("/")] ?? {};
  for (const { path, external } of output.imports ?? []) {
    if (!external || isBuiltin(path)) continue;
    packages.add(packageRoot(realpathSync(resolve(outdir, path))));
  }
  const pending = [...packages];
  const optionalPeers = [];
  while (pending.length > 0) {
    const pkg = pending.pop();
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
    const optional = new Set(
      Object.entries(manifest.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta?.optional)
        .map(([peer]) => peer),
    );
    const names = Object.keys({
      ...manifest.dependencies,
      ...manifest.optionalDependencies,
      ...manifest.peerDependencies,
    });
    for (const dependency of names) {
      const found = findDependency(pkg, dependency);
      // An optional dependency or a peer that is not installed here is not installed in the image either.
      if (!found) continue;
      const target = packageRoot(realpathSync(found));
      // An optional peer is the host's to bring (@bull-board/api uses the app's bullmq; @prisma/client's `prisma`
      // CLI and `typescript` are brought by nothing that runs): linked below only if the tree has it anyway.
      if (optional.has(dependency)) {
        optionalPeers.push({ found, target });
        continue;
      }
      if (lstatSync(found).isSymbolicLink()) links.add(relative(ROOT, found));
      if (!packages.has(target)) {
        packages.add(target);
        pending.push(target);
      }
    }
  }
  for (const { found, target } of optionalPeers) {
    if (packages.has(target) && lstatSync(found).isSymbolicLink()) links.add(relative(ROOT, found));
  }
  for (const pkg of packages) copy(relative(ROOT, pkg));
  for (const link of links) {
    const at = join(into, link);
    mkdirSync(dirname(at), { recursive: true });
    if (!existsSync(at)) symlinkSync(readlinkSync(join(ROOT, link)), at);
  }
  checkStaged(name, into, relative(ROOT, outfile));
  return `${packages.size} pacotes de node_modules, ${Math.round(du(into) / 1024 / 1024)} MB`;
}

/** The folder of the package a file (or folder) belongs to: node_modules/<name> or node_modules/@scope/<name>. */
function packageRoot(file) {
  for (let dir = file; dir !== dirname(dir); dir = dirname(dir)) {
    const parent = dirname(dir);
    if (basename(parent) === "node_modules" && !basename(dir).startsWith(".")) return dir;
    if (basename(dirname(parent)) === "node_modules" && basename(parent).startsWith("@")) return dir;
  }
  throw new Error(`${file}: fora de node_modules`);
}

/** Where node finds `name` from a package's folder: the first node_modules/<name> walking up (pnpm's links). */
function findDependency(pkg, name) {
  for (let dir = pkg; dir.startsWith(ROOT) && dir !== dirname(dir); dir = dirname(dir)) {
    if (basename(dir) === "node_modules") continue;
    const candidate = join(dir, "node_modules", name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The staged tree, loaded alone: node runs the bundle from it with a configuration every app refuses (LOG_LEVEL),
 * after every module the bundle imports at start was resolved and evaluated. A module missing from the tree stops it
 * earlier, with ERR_MODULE_NOT_FOUND or "Cannot find module", and fails the build.
 */
function checkStaged(name, into, bundle) {
  const run = spawnSync(process.execPath, [bundle], {
    cwd: into,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "nenhum" },
    encoding: "utf8",
    timeout: 30_000,
  });
  const output = `${run.stderr ?? ""}${run.stdout ?? ""}`;
  if (!output.includes("Configuração inválida")) {
    throw new Error(`${name}: a árvore montada em ${into} não carrega sozinha:\n${output.slice(0, 2_000)}`);
  }
}

function du(path) {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const entry of readdirSync(path)) total += du(join(path, entry));
  return total;
}
