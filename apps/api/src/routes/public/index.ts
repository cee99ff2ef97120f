import { readdirSync } from "node:fs";
import type { Router } from "express";
import type { PublicOperation } from "@gw/contracts";
import type { ApiDeps } from "../../container.ts";
/** Path prefix of every public operation (spec 9): where app.ts mounts them and what the document's paths start with. */
export const PUBLIC_PREFIX = "/public/v1";

/**
 * A public endpoint module: its routes (paths relative to PUBLIC_PREFIX, behind the key check and the rate limits)
 * and the OpenAPI operations describing them. `register` takes what it needs from the API's dependencies.
 */
export interface PublicRouteModule {
  register(router: Router, deps: ApiDeps): void;
  operations: readonly PublicOperation[];
}

function isRouteModule(module: unknown): module is PublicRouteModule {
  if (typeof module !== "object" || module === null) return false;
  const candidate = module as Partial<PublicRouteModule>;
  return typeof candidate.register === "function" && Array.isArray(candidate.operations);
}

/**
 * Every public endpoint module: each `.ts` file of this folder (but this index), in file-name order. app.ts mounts
 * them and the OpenAPI document lists their operations from here, so a new endpoint is its module, its contract
 * and its service, and nothing else. A file that is not a route module stops the start-up.
 */
async function discoverRoutes(): Promise<PublicRouteModule[]> {
  const folder = new URL("./", import.meta.url);
  const files = readdirSync(folder)
    .filter((name) => /\.ts$/.test(name) && !name.endsWith(".d.ts") && name !== "index.ts")
    .sort();
  // One after the other: the modules share imports, and jest's ESM loader mishandles concurrent dynamic imports.
  const modules: PublicRouteModule[] = [];
  for (const name of files) {
    const module: unknown = await import(new URL(name, folder).href);
    if (!isRouteModule(module)) throw new Error(`routes/public/${name} must export register() and operations`);
    modules.push(module);
  }
  return modules;
}

export const PUBLIC_ROUTES: readonly PublicRouteModule[] = await discoverRoutes();
