import { describe, expect, it } from "@jest/globals";
import { envExampleSection, envExampleSections } from "@gw/testkit";
import { dispatcherConfigSchema } from "../src/config.ts";

// `.env.example` documents every variable the dispatcher reads, and its shared and dispatcher sections list only
// variables the dispatcher reads (see the API's drift test for the other sections).
const read = Object.keys(dispatcherConfigSchema.shape);

describe(".env.example and the dispatcher's config", () => {
  it("documents every variable the dispatcher reads", () => {
    const documented = [...envExampleSections().values()].flat();
    expect(read.filter((name) => !documented.includes(name))).toEqual([]);
  });

  it.each([
    "shared (API, dispatcher, panel, campaign worker, CLI)",
    "stored secrets (API, dispatcher, panel, CLI)",
    "endpoint health (dispatcher, panel)",
    "dispatcher (apps/dispatcher)",
  ])("lists under “%s” only variables the dispatcher reads", (title) => {
    expect(envExampleSection(title).filter((name) => !read.includes(name))).toEqual([]);
  });
});
