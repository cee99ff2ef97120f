#!/usr/bin/env node
// `node scripts/build.mjs [app ...]`: one ES module per runnable app, `dist/<app>/main.mjs` (git-ignored), for
// production, the Dockerfile, the benches and the processes tests spawn (scripts/test.sh builds them once per run). Without arguments every app whose entry exists is built.
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
import { readFileSync, rmSync, statSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
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

const usage = `uso: node scripts/build.mjs [${Object.keys(APPS).join("|")} ...]`;
const requested = process.argv.slice(2);
if (requested.includes("-h") || requested.includes("--help")) {
  console.log(usage);
  process.exit(0);
}
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

async function buildApp(name) {
  const outdir = join(ROOT, "dist", name);
  const outfile = join(outdir, "main.mjs");
  rmSync(outdir, { recursive: true, force: true });
  await esbuild.build({
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
  });
  return { outfile, bytes: statSync(outfile).size };
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
