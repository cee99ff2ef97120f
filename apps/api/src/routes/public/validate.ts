import type { Router } from "express";
import { ValidateIn, parseRequest } from "@gw/contracts";
import { validatePhone } from "@gw/core";
import { jsonBody } from "../../http/json-body.ts";

/** POST /public/v1/validate (spec 4.2). */
export function register(router: Router): void {
  router.post("/validate", jsonBody, (req, res) => {
    const input = parseRequest(ValidateIn, "body", req.body);
    res.json({ success: true, data: validatePhone(input) });
  });
}
