import type { PublicRouteModule } from "../define-route.ts";
import * as campaignsControl from "./campaigns.control.ts";
import * as campaignsCreate from "./campaigns.create.ts";
import * as campaignsExport from "./campaigns.export.ts";
import * as campaignsGet from "./campaigns.get.ts";
import * as campaignsList from "./campaigns.list.ts";
import * as campaignsRecipients from "./campaigns.recipients.ts";
import * as campaignsStart from "./campaigns.start.ts";
import * as conversationsGet from "./conversations.get.ts";
import * as conversationsHandover from "./conversations.handover.ts";
import * as conversationsThreadControl from "./conversations.thread-control.ts";
import * as deliveries from "./deliveries.ts";
import * as integrationsCreate from "./integrations.create.ts";
import * as integrationsDelete from "./integrations.delete.ts";
import * as integrationsGet from "./integrations.get.ts";
import * as integrationsHealth from "./integrations.health.ts";
import * as integrationsList from "./integrations.list.ts";
import * as integrationsRotateSecret from "./integrations.rotate-secret.ts";
import * as integrationsUpdate from "./integrations.update.ts";
import * as deliveriesExport from "./deliveries.export.ts";
import * as deliveriesReplay from "./deliveries.replay.ts";
import * as eventTypes from "./event-types.ts";
import * as mediaGet from "./media.get.ts";
import * as mediaUpload from "./media.upload.ts";
import * as messagesGet from "./messages.get.ts";
import * as messagesRead from "./messages.read.ts";
import * as messagesSend from "./messages.send.ts";
import * as numbersList from "./numbers.list.ts";
import * as numbersUpdate from "./numbers.update.ts";
import * as ordersGet from "./orders.get.ts";
import * as ordersList from "./orders.list.ts";
import * as ordersStatus from "./orders.status.ts";
import * as templates from "./templates.ts";
import * as usage from "./usage.ts";
import * as validate from "./validate.ts";
import * as window from "./window.ts";

/** Path prefix of every public operation (spec 9): where app.ts mounts them and what the document's paths start with. */
export const PUBLIC_PREFIX = "/public/v1";

/**
 * Every public endpoint module, in the order the document lists them: each module's routes are declared once
 * (`defineRoute`: paths relative to PUBLIC_PREFIX, behind the key check and the rate limits) with their OpenAPI
 * operations. app.ts mounts them and the OpenAPI document lists their operations from here: a new endpoint is its
 * module (added here), its contract and its service.
 */
export const PUBLIC_ROUTES: readonly PublicRouteModule[] = [
  messagesSend,
  messagesGet,
  messagesRead,
  ordersList,
  ordersGet,
  ordersStatus,
  mediaUpload,
  mediaGet,
  validate,
  window,
  conversationsGet,
  conversationsHandover,
  conversationsThreadControl,
  numbersList,
  numbersUpdate,
  templates,
  // Before deliveries: its /deliveries/:delivery_id would take "export" for an id.
  deliveriesExport,
  deliveries,
  integrationsList,
  integrationsCreate,
  integrationsGet,
  integrationsUpdate,
  integrationsDelete,
  integrationsRotateSecret,
  integrationsHealth,
  deliveriesReplay,
  eventTypes,
  campaignsCreate,
  campaignsList,
  campaignsGet,
  campaignsRecipients,
  campaignsExport,
  campaignsStart,
  campaignsControl,
  usage,
];
