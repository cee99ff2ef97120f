import { defineConfig } from "tsup";

// The published webhooks package: @gw/receiver (the workspace's receiver, whose event types are generated from the
// contracts) bundled in, JavaScript and declarations alike, so the tarball depends on nothing private.
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  target: "node20",
  platform: "node",
  // Its `paths` point @gw/receiver at its sources for the declaration build.
  tsconfig: "tsconfig.build.json",
  noExternal: ["@gw/receiver"],
  dts: { resolve: [/^@gw\//] },
  removeNodeProtocol: false,
  clean: true,
});
