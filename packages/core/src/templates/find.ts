/**
 * The template `name` in `language` (exact, as Meta keys them: one item per name and language).
 * Should the listing hold more than one (Meta keeps one; a stale cache might not), the APPROVED one wins.
 */
export function findTemplate<T extends { name: string; language: string; status: string }>(
  catalogue: readonly T[],
  name: string,
  language: string,
): T | undefined {
  const matches = catalogue.filter((t) => t.name === name && t.language === language);
  return matches.find((t) => t.status === "APPROVED") ?? matches[0];
}
