export {
  SUPPRESSION_REASONS,
  applyUserPreferences,
  isSuppressed,
  listSuppressions,
  suppressContact,
  suppressionContact,
  unsuppressContact,
} from "./suppressions.ts";
export type { PreferenceChange, SuppressionDeps, SuppressionReason, SuppressionView } from "./suppressions.ts";
