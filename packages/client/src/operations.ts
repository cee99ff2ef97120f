// Generated from the gateway's OpenAPI document by `pnpm client:generate`. Do not edit.

/** Each operation of the document: its method, its path and whether it takes an `Idempotency-Key`. */
export const OPERATIONS = {
  sendMessage: {
    method: "post",
    path: "/public/v1/messages",
    idempotencyKey: true,
  },
  getMessage: {
    method: "get",
    path: "/public/v1/messages/{message_id}",
    idempotencyKey: false,
  },
  markMessageRead: {
    method: "post",
    path: "/public/v1/messages/{message_id}/read",
    idempotencyKey: false,
  },
  listOrders: {
    method: "get",
    path: "/public/v1/orders",
    idempotencyKey: false,
  },
  getOrder: {
    method: "get",
    path: "/public/v1/orders/{reference_id}",
    idempotencyKey: false,
  },
  updateOrderStatus: {
    method: "post",
    path: "/public/v1/orders/{reference_id}/status",
    idempotencyKey: true,
  },
  uploadMedia: {
    method: "post",
    path: "/public/v1/media",
    idempotencyKey: false,
  },
  getMedia: {
    method: "get",
    path: "/public/v1/media/{media_id}",
    idempotencyKey: false,
  },
  validatePhone: {
    method: "post",
    path: "/public/v1/validate",
    idempotencyKey: false,
  },
  getWindow: {
    method: "get",
    path: "/public/v1/window/{to}",
    idempotencyKey: false,
  },
  getConversation: {
    method: "get",
    path: "/public/v1/conversations/{recipient}",
    idempotencyKey: false,
  },
  handOverConversation: {
    method: "post",
    path: "/public/v1/conversations/{recipient}/handover",
    idempotencyKey: false,
  },
  controlConversationThread: {
    method: "post",
    path: "/public/v1/conversations/{recipient}/thread-control",
    idempotencyKey: false,
  },
  listNumbers: {
    method: "get",
    path: "/public/v1/numbers",
    idempotencyKey: false,
  },
  updateNumber: {
    method: "patch",
    path: "/public/v1/numbers/{phone_number_id}",
    idempotencyKey: false,
  },
  listTemplates: {
    method: "get",
    path: "/public/v1/templates",
    idempotencyKey: false,
  },
  exportDeliveries: {
    method: "get",
    path: "/public/v1/deliveries/export",
    idempotencyKey: false,
  },
  listDeliveries: {
    method: "get",
    path: "/public/v1/deliveries",
    idempotencyKey: false,
  },
  retryFailedDeliveries: {
    method: "post",
    path: "/public/v1/deliveries/retry-failed",
    idempotencyKey: false,
  },
  getDelivery: {
    method: "get",
    path: "/public/v1/deliveries/{delivery_id}",
    idempotencyKey: false,
  },
  retryDelivery: {
    method: "post",
    path: "/public/v1/deliveries/{delivery_id}/retry",
    idempotencyKey: false,
  },
  listIntegrations: {
    method: "get",
    path: "/public/v1/integrations",
    idempotencyKey: false,
  },
  createIntegration: {
    method: "post",
    path: "/public/v1/integrations",
    idempotencyKey: true,
  },
  getIntegration: {
    method: "get",
    path: "/public/v1/integrations/{integration_id}",
    idempotencyKey: false,
  },
  deleteIntegration: {
    method: "delete",
    path: "/public/v1/integrations/{integration_id}",
    idempotencyKey: false,
  },
  updateIntegration: {
    method: "patch",
    path: "/public/v1/integrations/{integration_id}",
    idempotencyKey: false,
  },
  rotateIntegrationSecret: {
    method: "post",
    path: "/public/v1/integrations/{integration_id}/rotate-secret",
    idempotencyKey: false,
  },
  getIntegrationHealth: {
    method: "get",
    path: "/public/v1/integrations/{integration_id}/health",
    idempotencyKey: false,
  },
  enableIntegration: {
    method: "post",
    path: "/public/v1/integrations/{integration_id}/enable",
    idempotencyKey: false,
  },
  replayDeliveries: {
    method: "post",
    path: "/public/v1/deliveries/replay",
    idempotencyKey: false,
  },
  getDeliveryReplay: {
    method: "get",
    path: "/public/v1/deliveries/replays/{replay_id}",
    idempotencyKey: false,
  },
  listEventTypes: {
    method: "get",
    path: "/public/v1/event-types",
    idempotencyKey: false,
  },
  listCampaigns: {
    method: "get",
    path: "/public/v1/campaigns",
    idempotencyKey: false,
  },
  createCampaign: {
    method: "post",
    path: "/public/v1/campaigns",
    idempotencyKey: false,
  },
  getCampaign: {
    method: "get",
    path: "/public/v1/campaigns/{campaign_id}",
    idempotencyKey: false,
  },
  listCampaignRecipients: {
    method: "get",
    path: "/public/v1/campaigns/{campaign_id}/recipients",
    idempotencyKey: false,
  },
  exportCampaignRecipients: {
    method: "get",
    path: "/public/v1/campaigns/{campaign_id}/recipients/export",
    idempotencyKey: false,
  },
  startCampaign: {
    method: "post",
    path: "/public/v1/campaigns/{campaign_id}/start",
    idempotencyKey: false,
  },
  pauseCampaign: {
    method: "post",
    path: "/public/v1/campaigns/{campaign_id}/pause",
    idempotencyKey: false,
  },
  resumeCampaign: {
    method: "post",
    path: "/public/v1/campaigns/{campaign_id}/resume",
    idempotencyKey: false,
  },
  cancelCampaign: {
    method: "post",
    path: "/public/v1/campaigns/{campaign_id}/cancel",
    idempotencyKey: false,
  },
  getUsage: {
    method: "get",
    path: "/public/v1/usage",
    idempotencyKey: false,
  },
} as const;

export type OperationId = keyof typeof OPERATIONS;
