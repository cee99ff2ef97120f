#!/usr/bin/env node
// `pnpm sdk:pack [FOLDER]`: the SDK as an integrator installs it until it is published (issue 38, item 1). Packs
// @pt-gateway/webhooks and @pt-gateway/client (`pnpm pack` builds each with tsup: prepack) into one folder, by default
// .data/sdk/ of this checkout, and prints the one `npm install` line that installs both: the client depends on
// @pt-gateway/webhooks@^1.1.0, which npm resolves only when both tarballs are in the same install.
//
// Why .data/sdk/: .data/ is this checkout's git-ignored local state (npm start keeps its files there), and a fixed
// folder gives a line with absolute paths that works from any project folder, printed the same on every run. FOLDER
// (relative to where the command was typed) puts the tarballs elsewhere, e.g. a folder another machine can read.
//
// Each tarball is packed into a private folder and then renamed into place: two runs at once (a test and a person)
// never let an `npm install` read a half-written tarball. Tarballs of an older version of the two packages are removed,
// so the folder holds exactly what the printed line installs.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The client first: the line reads as "the client, and what it needs". */
const PACKAGES = ["client", "webhooks"];
const TARBALL = /^pt-gateway-(client|webhooks)-.+\.tgz$/;

/** The path as a POSIX shell reads it: quoted only when it has to be. */
const shellWord = (path) => (/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`);

async function main() {
  // pnpm runs a script in the workspace root; INIT_CWD is where the command was typed.
  const given = process.argv[2];
  const folder = given ? resolve(process.env.INIT_CWD ?? process.cwd(), given) : join(ROOT, ".data", "sdk");
  await mkdir(folder, { recursive: true });
  const staging = await mkdtemp(join(folder, ".pack-"));
  try {
    await Promise.all(
      PACKAGES.map((name) =>
        run("pnpm", ["pack", "--pack-destination", staging], { cwd: join(ROOT, "packages", name) }).catch((error) => {
          process.stderr.write(`${error.stdout ?? ""}${error.stderr ?? ""}`);
          throw new Error(`não foi possível empacotar @pt-gateway/${name} (veja a saída acima)`);
        }),
      ),
    );
    const packed = (await readdir(staging)).filter((file) => TARBALL.test(file));
    const tarballs = PACKAGES.map((name) => packed.find((file) => file.startsWith(`pt-gateway-${name}-`)));
    if (tarballs.some((file) => file === undefined) || packed.length !== PACKAGES.length)
      throw new Error(`pnpm pack deixou ${packed.join(", ") || "nada"} em vez de um pacote de cada`);
    for (const file of tarballs) await rename(join(staging, file), join(folder, file));
    for (const file of await readdir(folder))
      if (TARBALL.test(file) && !tarballs.includes(file)) await rm(join(folder, file), { force: true });

    const line = `npm install ${tarballs.map((file) => shellWord(join(folder, file))).join(" ")}`;
    process.stdout.write(
      [
        `SDK empacotado em ${folder}:`,
        ...tarballs.map((file) => `  ${file}`),
        "",
        "No seu projeto (Node 20+), instale os dois pacotes num só comando (o client depende do webhooks):",
        "",
        line,
        "",
        "Só a verificação de webhooks? Basta o pacote pt-gateway-webhooks. Guia: docs/client.md.",
        "",
      ].join("\n"),
    );
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`[sdk:pack] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
