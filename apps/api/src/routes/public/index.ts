import type { Router } from "express";
import type { PublicOperation } from "@gw/contracts";
import type { ApiDeps } from "../../container.ts";
import * as deliveries from "./deliveries.ts";
import * as sendMessage from "./messages.send.ts";
import * as templates from "./templates.ts";
import * as validate from "./validate.ts";
import * as window from "./window.ts";

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

/**
 * Every public endpoint module. app.ts mounts them in this order and the OpenAPI document lists their operations in
 * the same order; a new endpoint is a module in this folder and its line here (a test checks none is left out).
 */
export const PUBLIC_ROUTES: readonly PublicRouteModule[] = [sendMessage, validate, window, templates, deliveries];
