/** The panel's sections, in the navigation's order. */
export const NAV = [
  { href: "/", label: "Visão geral" },
  { href: "/integracoes", label: "Integrações" },
  { href: "/entregas", label: "Entregas" },
  { href: "/chaves", label: "Chaves de API" },
  { href: "/numeros", label: "Números" },
  { href: "/conta/avisos", label: "Avisos da conta" },
  { href: "/templates", label: "Templates", agent: true },
  { href: "/conversas", label: "Conversas", agent: true },
  { href: "/pedidos", label: "Pedidos", agent: true },
  { href: "/campanhas", label: "Campanhas" },
  { href: "/custos", label: "Custos" },
  { href: "/auditoria", label: "Auditoria" },
  { href: "/usuarios", label: "Usuários" },
] as const;

export type NavHref = (typeof NAV)[number]["href"];

/** The sections an `agente` opens (issue 39; http/roles.ts, requireSection): those marked `agent`. */
export const AGENT_SECTIONS: readonly string[] = NAV.filter((item) => "agent" in item).map((item) => item.href);
