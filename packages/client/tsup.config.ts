import { defineConfig } from "tsup";

// The published client: ESM and CJS with their declarations. Its dependencies (openapi-fetch, @pt-gateway/webhooks)
// stay imports; the generator (src/generate.ts) is not an entry, so it is not shipped.
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  target: "node20",
  platform: "node",
  tsconfig: "tsconfig.build.json",
  dts: true,
  removeNodeProtocol: false,
  clean: true,
});
