import type { Request } from "express";

/**
 * The matched route's template under its mount point (`/public/v1/deliveries/:id`), or undefined when no route
 * matched. Express types `req.route` as `any`.
 */
export function routeTemplate(req: Request): string | undefined {
  const route: unknown = req.route;
  if (typeof route !== "object" || route === null || !("path" in route)) return undefined;
  return typeof route.path === "string" && route.path ? `${req.baseUrl}${route.path}` : undefined;
}
