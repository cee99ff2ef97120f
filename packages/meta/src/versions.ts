/**
 * When each Graph API version stops working, from Meta's changelog (meta-late-2026 §8; the table in docs/deploy.md,
 * "Graph API versions"). Versions not listed have no published end yet (Meta keeps a version about two years).
 */
export const GRAPH_VERSION_EXPIRY: Readonly<Record<string, string>> = {
  "v20.0": "2026-09-24",
  "v21.0": "2027-01-21",
  "v22.0": "2027-05-20",
  "v23.0": "2027-10-08",
};

/** How soon before its end a configured version is reported (a warning at start-up, the alert's threshold). */
export const GRAPH_VERSION_WARNING_DAYS = 90;

const DAY_MS = 86_400_000;

/** The version's end and the whole days left until it (negative once past), or null when Meta has published none. */
export function graphVersionExpiry(version: string, now: number): { expiresOn: string; daysLeft: number } | null {
  const expiresOn = GRAPH_VERSION_EXPIRY[version];
  if (expiresOn === undefined) return null;
  return { expiresOn, daysLeft: Math.floor((Date.parse(`${expiresOn}T00:00:00Z`) - now) / DAY_MS) };
}
