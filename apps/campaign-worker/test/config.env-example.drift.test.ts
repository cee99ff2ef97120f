import { describe, expect, it } from "@jest/globals";
import { envExampleSection, envExampleSections } from "@gw/testkit";
import { campaignWorkerConfigSchema } from "../src/config.ts";

// `.env.example` documents every variable the campaign worker reads, and its own section lists only variables it
// reads (the shared sections it composes from @gw/config are held to it by testkit's test).
const read = Object.keys(campaignWorkerConfigSchema.shape);

describe(".env.example and the campaign worker's config", () => {
  it("documents every variable the campaign worker reads", () => {
    const documented = [...envExampleSections().values()].flat();
    expect(read.filter((name) => !documented.includes(name))).toEqual([]);
  });

  it("lists under “campaign worker (apps/campaign-worker)” only variables the worker reads", () => {
    expect(envExampleSection("campaign worker (apps/campaign-worker)").filter((name) => !read.includes(name))).toEqual(
      [],
    );
  });
});
