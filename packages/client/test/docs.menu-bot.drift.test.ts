import { readFile } from "node:fs/promises";
import { describe, expect, it } from "@jest/globals";

// docs/client.md shows the menu bot whole, between its markers: the code a reader copies is the file the e2e test
// runs (issue 27). Edit the file, then paste it between the markers (or the other way round).

const BLOCK = /<!-- menu-bot -->\n\n```ts\n([\s\S]*?)```\n\n<!-- \/menu-bot -->/;

describe("docs/client.md menu bot", () => {
  it("embeds packages/client/examples/menu-bot.ts exactly, once", async () => {
    const [docs, file] = await Promise.all([
      readFile(new URL("../../../docs/client.md", import.meta.url), "utf8"),
      readFile(new URL("../examples/menu-bot.ts", import.meta.url), "utf8"),
    ]);
    expect(docs.match(new RegExp(BLOCK.source, "g"))).toHaveLength(1);
    expect(BLOCK.exec(docs)?.[1]).toBe(file);
  });
});
