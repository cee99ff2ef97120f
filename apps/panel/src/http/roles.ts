import type { RequestHandler } from "express";
import type { PanelRole, PanelSessionUser } from "@gw/core/users";
import { PanelHttpError } from "./errors.ts";

/**
 * What each role may change (issue "web panel"): owner everything, users and keys included; admin integrations,
 * deliveries, templates, campaigns, orders' statuses, Conversas' read receipts and the numbers' settings; viewer reads
 * only. Enforced here on the server; the pages also hide what a role cannot do, but hiding is not the control.
 * `costs.view` is the one read with a capability of its own: spending is the business's commercial information, every
 * role reads it today (viewers read every page, and see campaigns' costs), and restricting it is this one line.
 */
const CAPABILITIES = {
  // Every section of the panel; without it (the `agente` role, issue 39) only the sections NAV marks `agent`.
  "sections.all": ["owner", "admin", "viewer"],
  "users.manage": ["owner"],
  "keys.manage": ["owner"],
  "integrations.manage": ["owner", "admin"],
  "integrations.reveal_secret": ["owner", "admin"],
  "deliveries.resend": ["owner", "admin"],
  "campaigns.manage": ["owner", "admin"],
  // Whether opening a conversation tells the contact their messages were read: the account's choice.
  "conversations.read_receipts": ["owner", "admin"],
  // Answering a customer from Conversas (issue 39): a message in the business's name, through the send service.
  "conversations.reply": ["owner", "admin", "agente"],
  "costs.view": ["owner", "admin", "viewer"],
  // Sending an order's next status to the customer (Pedidos): a message in the business's name. Every role reads orders.
  "orders.update": ["owner", "admin"],
  // A business number's settings the account owns (Números: the Marketing Messages API route of its marketing sends).
  "numbers.update": ["owner", "admin"],
} as const satisfies Record<string, readonly PanelRole[]>;

export type Capability = keyof typeof CAPABILITIES;

export function can(user: PanelSessionUser | undefined, capability: Capability): boolean {
  return user !== undefined && (CAPABILITIES[capability] as readonly PanelRole[]).includes(user.role);
}

/** Paths an `agente` may open besides its sections: the password re-entry before a sensitive action. */
const AGENT_PATHS = ["/confirmar-senha"];

/**
 * The sections a user may open (issue 39): every one with `sections.all`; otherwise those NAV marks `agent`
 * (Conversas, Pedidos, Templates), the home page sending them to Conversas, and any other path refused (403), its
 * sub-pages and POSTs included. Checked on the server, before the page's own capability checks.
 */
export function requireSection(agentSections: readonly string[]): RequestHandler {
  return (req, res, next) => {
    if (can(req.panelUser, "sections.all")) return next();
    if (req.method === "GET" && req.path === "/") return void res.redirect(303, "/conversas");
    const allowed = [...agentSections, ...AGENT_PATHS].some(
      (prefix) => req.path === prefix || req.path.startsWith(`${prefix}/`),
    );
    if (allowed) return next();
    next(new PanelHttpError(403, "Seu papel nesta conta não permite abrir esta página."));
  };
}

export function requireCapability(capability: Capability): RequestHandler {
  return (req, _res, next) => {
    if (can(req.panelUser, capability)) return next();
    next(new PanelHttpError(403, "Seu papel nesta conta não permite esta ação."));
  };
}
