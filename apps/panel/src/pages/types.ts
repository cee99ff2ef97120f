import type { Router } from "express";
import type { PanelDeps } from "../container.ts";

/** One section of the panel: its routes, registered on the signed-in router (or the public one for sign-in). */
export interface PanelPage {
  register(router: Router, deps: PanelDeps): void;
  /** POST routes whose form is multipart (a file upload): app.ts reads them before the CSRF check. */
  multipartRoutes?: readonly string[];
}
