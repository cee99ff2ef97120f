/** @jest-config-loader-options {"transpileOnly": true, "skipProject": true} */
import { existsSync, readdirSync } from "node:fs";
import type { Config } from "jest";

// Run through `npm test` (scripts/test.sh): it starts PostgreSQL and Redis, migrates a fresh test
// database and exports DATABASE_URL / REDIS_URL before handing over to jest.
const workspaces = ["apps", "packages"].flatMap((kind) =>
  readdirSync(kind)
    .map((name) => `${kind}/${name}`)
    .filter((dir) => existsSync(`${dir}/test`)),
);

const config: Config = {
  // One jest project per app/package: `pnpm jest --selectProjects apps/api` runs one of them.
  projects: workspaces.map((dir) => ({
    displayName: dir,
    testEnvironment: "node",
    extensionsToTreatAsEsm: [".ts"],
    transform: { "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" } }] },
    testMatch: [`<rootDir>/${dir}/test/**/*.test.ts`],
    testPathIgnorePatterns: ["/node_modules/", "/generated/"],
  })),
  testTimeout: 30_000,
  maxWorkers: 2,
};

export default config;
