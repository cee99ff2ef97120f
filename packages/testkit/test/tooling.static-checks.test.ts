// The static checks that `npm test` runs first (scripts/check.sh) fail on what they guard. Each probe is linted,
// formatted or compiled in memory, or lives in a temporary folder outside the repository: no tracked file changes.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "@jest/globals";
import { ESLint } from "eslint";
import * as prettier from "prettier";
import ts from "typescript";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const SLOW = 60_000;

describe("ESLint (the repository's eslint.config.js)", () => {
  // Probe files do not exist, so no tsconfig.json owns them: the project service gives them the root
  // tsconfig.json's options instead. Every rule and boundary is the real configuration's.
  const PROBE = "static-check-probe.ts";
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: {
      files: ["**/*.ts"],
      languageOptions: {
        parserOptions: {
          projectService: {
            allowDefaultProject: [`*/*/src/${PROBE}`, `*/*/test/${PROBE}`, `bench/${PROBE}`],
            defaultProject: "tsconfig.json",
            // One probe file per folder linted below (typescript-eslint refuses more than 8 by default).
            maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 16,
          },
        },
      },
    },
  });
  const lint = async (dir: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: join(ROOT, dir, PROBE) });
    if (!result) throw new Error("ESLint returned no result");
    return {
      errorCount: result.errorCount,
      rules: result.messages.map((m) => m.ruleId),
      messages: result.messages.map((m) => m.message),
    };
  };

  it(
    "passes a clean file (so the failures below come from the probes)",
    async () => {
      const result = await lint("packages/signer/src", 'export const answer = Number("42");\n');
      expect(result).toEqual({ errorCount: 0, rules: [], messages: [] });
    },
    SLOW,
  );

  it(
    "fails on an explicit any and, with type information, on a floating promise",
    async () => {
      const result = await lint("packages/signer/src", "export const loose: any = 1;\nPromise.resolve(loose);\n");
      expect(result.errorCount).toBe(2);
      expect(result.rules).toEqual(["@typescript-eslint/no-explicit-any", "@typescript-eslint/no-floating-promises"]);
    },
    SLOW,
  );

  it(
    "fails when contracts imports @gw/core (the layers below the services)",
    async () => {
      const result = await lint("packages/contracts/src", 'export { sendMessage } from "@gw/core/messages";\n');
      expect(result.rules).toEqual(["import-x/no-restricted-paths"]);
      expect(result.messages[0]).toContain("never import it");
    },
    SLOW,
  );

  it(
    "fails when an app imports another app, by relative path or by package name",
    async () => {
      const relative = await lint("apps/dispatcher/src", 'export { createApp } from "../../api/src/app.ts";\n');
      expect(relative.rules).toEqual(["import-x/no-restricted-paths"]);
      expect(relative.messages[0]).toContain("An app never imports another app");
      const byName = await lint("apps/api/src", 'export { createDispatcher } from "@gw/dispatcher";\n');
      expect(byName.rules).toEqual(["import-x/no-restricted-paths"]);
    },
    SLOW,
  );

  it(
    "fails when production code imports the provider sandbox or a test/ folder; tests may use the sandbox",
    async () => {
      const sandbox = await lint("packages/core/src", 'export { startSandbox } from "@gw/provider-sandbox";\n');
      expect(sandbox.rules).toEqual(["import-x/no-restricted-paths"]);
      expect(sandbox.messages[0]).toContain("never imports the provider sandbox");
      const testFolder = await lint("packages/meta/src", 'export * from "../test/helpers.ts";\n');
      expect(testFolder.rules).toEqual(["import-x/no-restricted-paths"]);
      expect(testFolder.messages[0]).toContain("never imports a test/ folder");
      const fromTest = await lint("packages/core/test", 'export { startSandbox } from "@gw/provider-sandbox";\n');
      expect(fromTest.errorCount).toBe(0);
    },
    SLOW,
  );

  it(
    "lets @gw/test-stack start the apps, as a test folder may, and fails when production code imports it",
    async () => {
      const stack = await lint("packages/test-stack/src", 'export { createApp } from "@gw/api";\n');
      expect(stack.errorCount).toBe(0);
      const otherPackage = await lint("packages/testkit/src", 'export { createApp } from "@gw/api";\n');
      expect(otherPackage.rules).toEqual(["import-x/no-restricted-paths"]);
      expect(otherPackage.messages[0]).toContain("A package never imports an app");
      const production = await lint("apps/api/src", 'export { startStack } from "@gw/test-stack";\n');
      expect(production.rules).toEqual(["import-x/no-restricted-paths"]);
      expect(production.messages[0]).toContain("production code never imports it");
    },
    SLOW,
  );

  it(
    "fails when a test, a bench or a script imports another workspace's test/ folder; its own and @gw/testkit pass",
    async () => {
      const other = await lint(
        "apps/cli/test",
        'export { sandboxControl } from "../../api/test/support/sandbox-control.ts";\n',
      );
      expect(other.rules).toEqual(["import-x/no-restricted-paths"]);
      expect(other.messages[0]).toContain("never imports another workspace's test/ folder");
      const bench = await lint(
        "bench",
        'export { sandboxControl } from "../apps/api/test/support/sandbox-control.ts";\n',
      );
      expect(bench.rules).toEqual(["import-x/no-restricted-paths"]);
      expect(bench.messages[0]).toContain("never import a test/ folder");
      const own = await lint("apps/cli/test", 'export { runCli } from "./run-cli.ts";\n');
      expect(own.errorCount).toBe(0);
      const kit = await lint("apps/cli/test", 'export { eventually } from "@gw/testkit";\n');
      expect(kit.errorCount).toBe(0);
    },
    SLOW,
  );
});

describe("Prettier (the repository's .prettierrc.json)", () => {
  const filepath = join(ROOT, "packages/signer/src/static-check-probe.ts");

  it("accepts formatted code and rejects drift, at 120 columns", async () => {
    const options = { ...(await prettier.resolveConfig(filepath)), filepath };
    expect(options.printWidth).toBe(120);
    const formatted = 'export const greeting = ["olá", "mundo"].join(" ");\n';
    expect(await prettier.check(formatted, options)).toBe(true);
    expect(await prettier.check("export const greeting = ['olá','mundo'].join(' ')\n", options)).toBe(false);
    // One call of 121 columns is wrapped; the same call at 120 columns stays on its line.
    const head = `export const x = f(${'"a", '.repeat(15)}"`;
    const call = (width: number) => `${head}${"b".repeat(width - head.length - 3)}");\n`;
    expect(call(120).length - 1).toBe(120);
    expect(await prettier.check(call(120), options)).toBe(true);
    expect(await prettier.check(call(121), options)).toBe(false);
  });
});

describe("tsc (the root tsconfig.json's options)", () => {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!config) throw new Error("tsconfig.json did not parse");
  const probe = join(ROOT, "packages/signer/src/static-check-probe.ts");
  const diagnose = (code: string) => {
    const host = ts.createCompilerHost(config.options);
    const readFile = host.readFile.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.fileExists = (file) => file === probe || ts.sys.fileExists(file);
    host.readFile = (file) => (file === probe ? code : readFile(file));
    host.getSourceFile = (file, language, onError, create) =>
      file === probe ? ts.createSourceFile(file, code, language) : getSourceFile(file, language, onError, create);
    const program = ts.createProgram({ rootNames: [probe], options: config.options, host });
    return ts.getPreEmitDiagnostics(program).map((d) => d.code);
  };

  it(
    "accepts well-typed code and fails on a type error (strict, noUncheckedIndexedAccess)",
    () => {
      expect(diagnose('export const n: number = Number("1");\n')).toEqual([]);
      expect(diagnose('export const n: number = "1";\n')).toEqual([2322]);
      expect(diagnose("const first = [1, 2][0];\nexport const fixed = first.toFixed();\n")).toEqual([18048]);
    },
    SLOW,
  );
});

describe("knip (the repository's issue types, on a throw-away workspace)", () => {
  const knipConfig = ts.parseConfigFileTextToJson("knip.jsonc", readFileSync(join(ROOT, "knip.jsonc"), "utf8"))
    .config as { include: string[] };
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  const knip = (manifest: Record<string, unknown>, source: string) => {
    const dir = mkdtempSync(join(tmpdir(), "gw-knip-"));
    dirs.push(dir);
    mkdirSync(join(dir, "src"));
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({
        name: "knip-probe",
        private: true,
        type: "module",
        exports: { ".": "./src/index.ts" },
        ...manifest,
      }),
    );
    writeFileSync(join(dir, "knip.json"), JSON.stringify({ include: knipConfig.include }));
    writeFileSync(join(dir, "src/index.ts"), source);
    return new Promise<{ code: number; report: string }>((done) => {
      execFile(
        join(ROOT, "node_modules/.bin/knip"),
        ["--no-progress", "--no-config-hints"],
        { cwd: dir },
        (error, stdout) => {
          done({ code: error ? Number(error.code) : 0, report: stdout });
        },
      );
    });
  };

  it(
    "passes when every dependency is used and declared",
    async () => {
      expect(
        await knip(
          { dependencies: { "left-pad": "1.3.0" } },
          'import leftPad from "left-pad";\nexport const padded = leftPad("1", 3);\n',
        ),
      ).toEqual({ code: 0, report: "" });
    },
    SLOW,
  );

  it(
    "fails on an unused dependency",
    async () => {
      const result = await knip({ dependencies: { "left-pad": "1.3.0" } }, "export const answer = 42;\n");
      expect(result.code).toBe(1);
      expect(result.report).toMatch(/Unused dependencies[\s\S]*left-pad/);
    },
    SLOW,
  );

  it(
    "fails on an unlisted dependency",
    async () => {
      const result = await knip({}, 'import leftPad from "left-pad";\nexport const padded = leftPad("1", 3);\n');
      expect(result.code).toBe(1);
      expect(result.report).toMatch(/Unlisted dependencies[\s\S]*left-pad/);
    },
    SLOW,
  );
});
