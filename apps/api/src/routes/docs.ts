import type { Express } from "express";

/**
 * GET /public/v1/openapi.json (no auth) and GET /docs (rendered page, assets served locally).
 * Filled in by the OpenAPI work (issue 6).
 */
export function register(_app: Express): void {}
