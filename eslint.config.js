// ESLint for the whole workspace: `pnpm lint`. Type-aware typescript-eslint rules, the layering of ARCHITECTURE.md
// as import boundaries, and eslint-config-prettier last so formatting is Prettier's alone.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import { defineConfig, globalIgnores } from "eslint/config";
import tseslint from "typescript-eslint";

const root = import.meta.dirname;
const workspaces = (kind) =>
  readdirSync(path.join(root, kind), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(root, kind, entry.name, "package.json")))
    .map((entry) => `${kind}/${entry.name}`);
const apps = workspaces("apps");
const packages = workspaces("packages");
const sandbox = "apps/provider-sandbox";
const appsButSandbox = apps.filter((app) => app !== sandbox);
// @gw/test-stack starts the gateway's apps for the tests and the benches: test-only code under packages/, held to the
// rules of a test folder (it may import the apps and the sandbox; no production code imports it).
const testStack = "packages/test-stack";

// Import boundaries (import-x/no-restricted-paths). Paths are relative to the repository root and compared with
// the *resolved* file, so `../../api/src/x.ts` and `@gw/api` are the same import. An import the resolver cannot
// find is not judged here; tsc (TS2307) and knip (unlisted dependency) fail on it instead.
// Production code (`src/`) is held to the app, sandbox and test-folder zones. Tests may import other apps (the
// end-to-end suites start the API, the dispatcher and the sandbox together) but never another workspace's test/
// folder: test support shared by several workspaces lives in packages/testkit (helpers) and packages/test-stack
// (starting the apps), which is exempt from the package rules as a test folder is.
const boundaries = [
  // An app never imports another app (importing the sandbox is reported by its own zone below).
  ...apps.map((app) => ({
    target: `${app}/src`,
    from: appsButSandbox.filter((other) => other !== app),
    message: "An app never imports another app; move what they share into a package under packages/.",
  })),
  // A package never imports an app (its tests may use the provider sandbox, below); the test stack starts them.
  {
    target: packages.filter((dir) => dir !== testStack),
    from: appsButSandbox,
    message: "A package never imports an app.",
  },
  // ...and no production code imports the test stack.
  {
    target: [...apps, ...packages].filter((dir) => dir !== testStack).map((dir) => `${dir}/src`),
    from: testStack,
    message: "@gw/test-stack is for tests and benches; production code never imports it.",
  },
  // The lowest layers and the adapters core uses never depend on the services.
  {
    target: ["packages/contracts", "packages/errors", "packages/jobs", "packages/signer", "packages/webhook-sender"],
    from: "packages/core",
    message: "contracts, errors, jobs, signer and webhook-sender sit below @gw/core and never import it.",
  },
  // @gw/wiring assembles the services for the apps: it sits above every other package.
  {
    target: packages.filter((dir) => dir !== "packages/wiring"),
    from: "packages/wiring",
    message: "@gw/wiring is the apps' composition module; no package imports it.",
  },
  // Production code never runs against the sandbox nor reaches into test code.
  {
    target: [...apps, ...packages].filter((dir) => dir !== sandbox && dir !== testStack).map((dir) => `${dir}/src`),
    from: sandbox,
    message: "Production code never imports the provider sandbox; only tests use it.",
  },
  {
    target: [...apps, ...packages].map((dir) => `${dir}/src`),
    from: [...apps, ...packages].map((dir) => `${dir}/test`),
    message: "Production code never imports a test/ folder.",
  },
  // A test uses its own test/ folder and @gw/testkit, never another workspace's test/ folder.
  ...[...apps, ...packages].map((dir) => ({
    target: `${dir}/test`,
    from: [...apps, ...packages].filter((other) => other !== dir).map((other) => `${other}/test`),
    message:
      "A test never imports another workspace's test/ folder; move what they share into packages/testkit or packages/test-stack.",
  })),
  {
    target: ["bench", "scripts"],
    from: [...apps, ...packages].map((dir) => `${dir}/test`),
    message: "Benches and scripts never import a test/ folder; what they share with tests lives in packages/testkit.",
  },
];

// Core's concerns by tier (ARCHITECTURE.md, "Tiers inside core"): a concern imports only concerns of lower tiers, so
// no two concerns depend on each other. What a lower concern needs from a higher one is passed in (health pauses
// campaigns through the function the ingestion hands it). Every folder of packages/core/src is in one tier.
const coreTiers = [
  ["audit", "batching", "csv", "idempotency", "phones"],
  ["contacts", "deliveries", "notices", "pricing", "suppressions", "users"],
  ["accounts"],
  ["media", "templates", "throughput", "windows"],
  ["conversations", "events", "health"],
  ["messages"],
  ["campaigns", "orders"],
  ["dashboard", "ingest", "retention"],
];
const coreSrc = "packages/core/src";
const coreLayers = [
  ...coreTiers.flatMap((concerns, tier) =>
    concerns.map((concern) => ({
      target: `${coreSrc}/${concern}`,
      from: coreTiers
        .slice(tier)
        .flat()
        .filter((other) => other !== concern)
        .map((other) => `${coreSrc}/${other}`),
      message: `Core's ${concern} is in tier ${tier}: it imports only concerns of lower tiers (ARCHITECTURE.md, "Tiers inside core"); pass what it needs from above as a function.`,
    })),
  ),
  // Deliveries: the attempt core never depends on its administration.
  {
    target: `${coreSrc}/deliveries/attempt`,
    from: `${coreSrc}/deliveries/admin`,
    message: "The deliveries' attempt core never imports their administration (deliveries/admin builds on it).",
  },
];

export default defineConfig(
  globalIgnores([
    "**/node_modules/",
    "packages/db/src/generated/",
    ".data/",
    ".tools/",
    "coverage/",
    "bench/results/",
    "dist/",
    // The publishable packages' builds (tsup, run by `pnpm pack`).
    "packages/*/dist/",
  ]),
  {
    files: ["**/*.ts"],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    plugins: { "import-x": importX },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    settings: { "import-x/resolver-next": [createNodeResolver()] },
    rules: {
      "import-x/no-restricted-paths": ["error", { basePath: root, zones: [...boundaries, ...coreLayers] }],
      "@typescript-eslint/no-explicit-any": "error",
      // `_name` marks a binding kept on purpose: Express's 4-argument error handler, a key dropped by a rest
      // destructuring, a tuple position.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          caughtErrorsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Response bodies in tests (supertest's `res.body`, `await res.json()`) are `any` by design and are checked
    // by the assertions themselves; typing each one would add casts, not safety.
    files: ["**/test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  {
    // This file; no tsconfig.json owns it, so it gets the untyped rules.
    files: ["**/*.js", "**/*.mjs"],
    extends: [js.configs.recommended],
  },
  {
    // Node scripts run as plain JavaScript (the bundler, jest's global setup, the test stack's browser server).
    files: ["scripts/**/*.mjs", "packages/test-stack/src/**/*.mjs"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        performance: "readonly",
        URL: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
      },
    },
  },
  {
    // The integrator's program of the SDK test, run by plain Node in a fresh npm project.
    files: ["packages/webhooks/test/integrator/*.mjs"],
    languageOptions: {
      globals: { Buffer: "readonly", fetch: "readonly", Headers: "readonly", Request: "readonly" },
    },
  },
  {
    // The panel's browser script (progressive enhancement, served as is).
    files: ["apps/panel/src/assets/**/*.js"],
    languageOptions: { globals: { document: "readonly", window: "readonly", HTMLFormElement: "readonly" } },
  },
  prettier,
);
