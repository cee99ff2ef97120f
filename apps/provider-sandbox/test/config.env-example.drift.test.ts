import { describe, expect, it } from "@jest/globals";
import { envExampleSection, envExampleSections } from "@gw/testkit";
import { sandboxConfigSchema } from "../src/config.ts";

// `.env.example` documents every variable the standalone sandbox reads (META_APP_SECRET and META_ACCESS_TOKEN
// under the API's section), and its sandbox section lists only variables the sandbox reads.
const read = Object.keys(sandboxConfigSchema.shape);

describe(".env.example and the sandbox's config", () => {
  it("documents every variable the sandbox reads", () => {
    const documented = [...envExampleSections().values()].flat();
    expect(read.filter((name) => !documented.includes(name))).toEqual([]);
  });

  it("lists under its section only variables the sandbox reads", () => {
    const section = envExampleSection("provider sandbox (apps/provider-sandbox, local and tests only)");
    expect(section.filter((name) => !read.includes(name))).toEqual([]);
  });
});
