import { env, leaseRenewal, loadConfig, sections, z } from "@gw/config";

/** Every variable the panel reads, parsed once at start-up (documented in .env.example). */
export const panelConfigSchema = z.object({
  PANEL_HOST: z.string().default("127.0.0.1"),
  PANEL_PORT: env.port(8083),
  /** Where users reach the panel; invite links are built from it. */
  PANEL_PUBLIC_URL: env.httpUrl().default("http://127.0.0.1:8083"),
  /** Secure cookies (https). Only a local development stack on http://127.0.0.1 sets false. */
  PANEL_COOKIE_SECURE: env.bool(true),
  /** A session ends after this long without use (sliding). */
  PANEL_SESSION_TTL_HOURS: z.coerce
    .number()
    .min(0.1)
    .max(24 * 30)
    .default(12),
  /** A session ends this long after sign-in, however much it is used. */
  PANEL_SESSION_MAX_HOURS: z.coerce
    .number()
    .min(0.1)
    .max(24 * 30)
    .default(12),
  /** Managing users, creating or revoking API keys ask for the password again after this long without doing so. */
  PANEL_REAUTH_IDLE_MINUTES: z.coerce
    .number()
    .min(1)
    .max(24 * 60)
    .default(15),
  /** Media downloads from Meta served at once by one panel process; more wait briefly for a turn, then get 503. */
  PANEL_MEDIA_MAX_CONCURRENT: z.coerce.number().int().min(1).max(256).default(8),
  /** Failed sign-ins allowed per email and per client address within PANEL_LOGIN_WINDOW_MINUTES. */
  PANEL_LOGIN_MAX_FAILURES_PER_EMAIL: z.coerce.number().int().min(1).default(8),
  PANEL_LOGIN_MAX_FAILURES_PER_IP: z.coerce.number().int().min(1).default(30),
  PANEL_LOGIN_WINDOW_MINUTES: z.coerce.number().int().min(1).default(15),
  /** After a rotation, how long deliveries also carry a signature made with the previous secret. */
  SECRET_ROTATION_OVERLAP_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 7)
    .default(24),
  ...sections.proxy(),
  ...sections.database(5),
  ...sections.redis(),
  ...sections.logging(),
  ...sections.meta(),
  /** Pedidos sends order statuses through the send service, as the API does: the same keys, pacing and lease. */
  ...sections.sending(),
  ...sections.secrets(),
  ...sections.endpointHealth(),
  ...sections.replays(),
  ...sections.integrations(),
  /** Development only: integration URLs on http:// and local addresses (the same switch as the CLI's). */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: env.bool(false),
});

export type PanelConfig = z.infer<typeof panelConfigSchema>;

export function loadPanelConfig(source: NodeJS.ProcessEnv = process.env): PanelConfig {
  return loadConfig(panelConfigSchema.refine(leaseRenewal.check, leaseRenewal.params), source);
}
