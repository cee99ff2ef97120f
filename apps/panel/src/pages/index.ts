import { accountNoticesPage } from "./account-notices.ts";
import { apiKeysPage } from "./api-keys.ts";
import { auditPage } from "./audit.ts";
import { campaignsPage } from "./campaigns.ts";
import { authPages, confirmPasswordPage } from "./auth.ts";
import { conversationsPage } from "./conversations.ts";
import { costsPage } from "./costs.ts";
import { deliveriesPage } from "./deliveries.ts";
import { deliveryReplaysPage } from "./deliveries-replay.ts";
import { integrationsPage } from "./integrations.ts";
import { numbersPage } from "./numbers.ts";
import { ordersPage } from "./orders.ts";
import { overviewPage } from "./overview.ts";
import { templatesPage } from "./templates.ts";
import type { PanelPage } from "./types.ts";
import { usersPage } from "./users.ts";

/** Reachable signed out: sign-in, sign-out, invite acceptance. */
export const PUBLIC_PAGES: readonly PanelPage[] = [authPages];

/** Behind sign-in; each module registers its own routes and checks its own capabilities (http/roles.ts). */
export const SIGNED_IN_PAGES: readonly PanelPage[] = [
  overviewPage,
  integrationsPage,
  // Before deliveriesPage: its /entregas/:id would take "exportar" and "reenvios" for an id.
  deliveryReplaysPage,
  deliveriesPage,
  apiKeysPage,
  numbersPage,
  accountNoticesPage,
  templatesPage,
  conversationsPage,
  ordersPage,
  campaignsPage,
  costsPage,
  auditPage,
  usersPage,
  confirmPasswordPage,
];
