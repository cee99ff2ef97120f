import { describe, expect, it } from "@jest/globals";
import { envExampleSection, envExampleSections } from "@gw/testkit";
import { panelConfigSchema } from "../src/config.ts";

// `.env.example` documents every variable the panel reads, and its panel section lists only variables it reads.
const read = Object.keys(panelConfigSchema.shape);

describe(".env.example and the panel's config", () => {
  it("documents every variable the panel reads", () => {
    const documented = [...envExampleSections().values()].flat();
    expect(read.filter((name) => !documented.includes(name))).toEqual([]);
  });

  it.each(["web panel (apps/panel)", "endpoint health (dispatcher, panel)"])(
    "lists under “%s” only variables the panel reads",
    (title) => {
      expect(envExampleSection(title).filter((name) => !read.includes(name))).toEqual([]);
    },
  );
});
