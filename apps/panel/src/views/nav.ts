/** The panel's sections, in the navigation's order. */
export const NAV = [
  { href: "/", label: "Visão geral" },
  { href: "/integracoes", label: "Integrações" },
  { href: "/entregas", label: "Entregas" },
  { href: "/chaves", label: "Chaves de API" },
  { href: "/numeros", label: "Números" },
  { href: "/conta/avisos", label: "Avisos da conta" },
  { href: "/templates", label: "Templates" },
  { href: "/conversas", label: "Conversas" },
  { href: "/pedidos", label: "Pedidos" },
  { href: "/campanhas", label: "Campanhas" },
  { href: "/custos", label: "Custos" },
  { href: "/auditoria", label: "Auditoria" },
  { href: "/usuarios", label: "Usuários" },
] as const;

export type NavHref = (typeof NAV)[number]["href"];
