import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root folder. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * The variables `.env.example` documents, by section (`# --- <title> ---`), in file order. Each app's drift test
 * holds its config schema to its own section; testkit's holds every variable to a known section.
 */
export function envExampleSections(): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of readFileSync(join(REPO_ROOT, ".env.example"), "utf8").split("\n")) {
    const heading = /^# --- (.+) ---$/.exec(line)?.[1];
    if (heading !== undefined) {
      current = [];
      sections.set(heading, current);
      continue;
    }
    const name = /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1];
    if (name === undefined) continue;
    if (current === null) throw new Error(`.env.example: ${name} comes before any section heading`);
    current.push(name);
  }
  return sections;
}

/** One section of `.env.example` by its title; throws when there is none (a renamed heading fails loudly). */
export function envExampleSection(title: string): string[] {
  const section = envExampleSections().get(title);
  if (!section) throw new Error(`.env.example has no section "# --- ${title} ---"`);
  return section;
}
