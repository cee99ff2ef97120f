import { describe, expect, it } from "@jest/globals";
import { envExampleSection, envExampleSections } from "@gw/testkit";
import { apiConfigSchema } from "../src/config.ts";

// `.env.example` documents every variable the API reads, and the sections it reads (the shared ones it composes from
// @gw/config, and its own) list only variables the API reads: a variable added to the schema without a line there fails here, and so does a line left behind once
// the API stops reading it. The dispatcher and the sandbox hold their own sections the same way; testkit's test
// holds every line of the file to one of the known sections.
const read = Object.keys(apiConfigSchema.shape);

describe(".env.example and the API's config", () => {
  it("documents every variable the API reads", () => {
    const documented = [...envExampleSections().values()].flat();
    expect(read.filter((name) => !documented.includes(name))).toEqual([]);
  });

  it.each([
    "shared (API, dispatcher, panel, campaign worker, CLI)",
    "Meta Graph API (API, panel, campaign worker)",
    "sending (API, campaign worker)",
    "proxies (API, panel)",
    "delivery replays (API, panel)",
    "integrations (API, panel, CLI)",
    "stored secrets (API, dispatcher, panel, CLI)",
    "API (apps/api)",
  ])("lists under “%s” only variables the API reads", (title) => {
    expect(envExampleSection(title).filter((name) => !read.includes(name))).toEqual([]);
  });
});
