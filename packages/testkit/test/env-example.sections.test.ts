// `.env.example` is checked piecewise: each app's drift test holds its config schema to the file and its own
// section(s) to its schema. This test makes sure nothing falls between them: every line sits under a section one
// of those tests (or scripts/stack.sh) owns, and no variable is documented twice.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { SECTION_HEADINGS, sections } from "@gw/config";
import { REPO_ROOT, envExampleSection, envExampleSections } from "../src/index.ts";

describe(".env.example sections", () => {
  it("are exactly the ones an app's drift test or scripts/stack.sh checks", () => {
    expect([...envExampleSections().keys()]).toEqual([
      "shared (API, dispatcher, panel, campaign worker, CLI)",
      "Meta Graph API (API, panel, campaign worker)",
      "sending (API, campaign worker)",
      "proxies (API, panel)",
      "stored secrets (API, dispatcher, panel, CLI)",
      "endpoint health (dispatcher, panel)",
      "delivery replays (API, panel)",
      "integrations (API, panel, CLI)",
      "API (apps/api)",
      "dispatcher (apps/dispatcher)",
      "web panel (apps/panel)",
      "campaign worker (apps/campaign-worker)",
      "provider sandbox (apps/provider-sandbox, local and tests only)",
      "local stack (scripts/stack.sh)",
    ]);
  });

  it("hold exactly the variables of the @gw/config sections documented under them", () => {
    const expected = new Map<string, string[]>();
    for (const [name, heading] of Object.entries(SECTION_HEADINGS)) {
      const keys = Object.keys(sections[name as keyof typeof sections]());
      expected.set(heading, [...(expected.get(heading) ?? []), ...keys]);
    }
    for (const [heading, keys] of expected) expect([...envExampleSection(heading)].sort()).toEqual([...keys].sort());
  });

  it("document each variable once", () => {
    const all = [...envExampleSections().values()].flat();
    expect(all.filter((name, i) => all.indexOf(name) !== i)).toEqual([]);
  });

  it("list under the local stack only variables scripts/stack.sh reads", () => {
    const stack = readFileSync(join(REPO_ROOT, "scripts/stack.sh"), "utf8");
    const section = envExampleSection("local stack (scripts/stack.sh)");
    expect(section.length).toBeGreaterThan(0);
    expect(section.filter((name) => !new RegExp(`\\b${name}\\b`).test(stack))).toEqual([]);
  });
});
