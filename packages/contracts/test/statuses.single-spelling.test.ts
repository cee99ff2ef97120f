// Issue 36, item 1: the status vocabularies of the contract are spelled once, in @gw/contracts (statuses.ts and the
// delivery list in deliveries.ts). This reads every production source file and fails on a hand-typed copy of one of
// them: its values in order as quoted strings (an array or a union type), or the rank table's entries.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import {
  DELIVERY_STATUSES,
  MESSAGE_STATUS_RANK,
  MESSAGE_STATUSES,
  ORDER_STATUSES,
  PAYMENT_STATUSES,
  REQUESTED_ORDER_STATUSES,
} from "../src/index.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Where a copy is no copy: the definitions, files generated from them, and Meta's side of the wire. */
const ALLOWED = new Set([
  "packages/contracts/src/statuses.ts",
  "packages/contracts/src/deliveries.ts",
  // Generated from the contract's OpenAPI document by `pnpm client:generate` (a drift test keeps them equal).
  "packages/client/src/schema.ts",
  "packages/receiver/src/schema.ts",
]);
/** Meta's vocabulary, which the contract happens to share in part: the adapter and the sandbox follow Meta's docs. */
const META_SIDE = ["apps/provider-sandbox/", "packages/meta/"];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The values in order, each quoted, separated by commas or bars (an array literal or a union type). */
function listCopy(values: readonly string[]): RegExp {
  return new RegExp(values.map((value) => `["'\`]${escape(value)}["'\`]`).join(String.raw`\s*[,|]\s*`));
}

/** The rank table's entries in order (`failed: 1, sent: 2, …`), keys quoted or not. */
function tableCopy(table: Record<string, number>): RegExp {
  return new RegExp(
    Object.entries(table)
      .map(([key, rank]) => `["']?${escape(key)}["']?\\s*:\\s*${rank}`)
      .join(String.raw`\s*,\s*`),
  );
}

const VOCABULARIES: { name: string; copy: RegExp; probe: string }[] = [
  {
    name: "MESSAGE_STATUSES",
    copy: listCopy(MESSAGE_STATUSES),
    probe: `z.enum(["sent", "delivered", "read", "failed"])`,
  },
  {
    name: "MESSAGE_STATUS_RANK",
    copy: tableCopy(MESSAGE_STATUS_RANK),
    probe: "const RANK = { failed: 1, sent: 2, delivered: 3, read: 4 };",
  },
  {
    name: "ORDER_STATUSES",
    copy: listCopy(ORDER_STATUSES),
    probe: `type S =\n  | "pending"\n  | "processing"\n  | "partially_shipped"\n  | "shipped"\n  | "completed"\n  | "canceled";`,
  },
  {
    name: "REQUESTED_ORDER_STATUSES",
    copy: listCopy(REQUESTED_ORDER_STATUSES),
    probe: `["processing", "partially_shipped", "shipped", "completed", "canceled"]`,
  },
  { name: "PAYMENT_STATUSES", copy: listCopy(PAYMENT_STATUSES), probe: `"pending" | "captured" | "failed"` },
  {
    name: "DELIVERY_STATUSES",
    copy: listCopy(DELIVERY_STATUSES),
    probe: `const STATES = ['pending', 'delivering', 'delivered', 'failed'] as const;`,
  },
];

function productionSources(): string[] {
  return ["apps", "packages"].flatMap((kind) =>
    readdirSync(join(ROOT, kind)).flatMap((name) => {
      const src = join(ROOT, kind, name, "src");
      let entries;
      try {
        entries = readdirSync(src, { withFileTypes: true, recursive: true });
      } catch {
        return [];
      }
      return entries
        .filter((entry) => entry.isFile() && /\.(ts|js)$/.test(entry.name))
        .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
        .filter((file) => !file.includes("/generated/"));
    }),
  );
}

describe("the contract's status vocabularies are spelled once, in @gw/contracts", () => {
  it.each(VOCABULARIES)("the detector of $name finds a hand-typed copy", ({ copy, probe }) => {
    expect(copy.test(probe)).toBe(true);
  });

  it("no production source outside @gw/contracts types a copy of one", () => {
    const files = productionSources();
    expect(files.length).toBeGreaterThan(300);
    const copies: string[] = [];
    for (const file of files) {
      if (ALLOWED.has(file) || META_SIDE.some((prefix) => file.startsWith(prefix))) continue;
      const source = readFileSync(join(ROOT, file), "utf8");
      for (const { name, copy } of VOCABULARIES) if (copy.test(source)) copies.push(`${file}: ${name}`);
    }
    expect(copies).toEqual([]);
  });
});
