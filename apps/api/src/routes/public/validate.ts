import type { Router } from "express";
import { ValidateIn, parseRequest } from "@gw/contracts";
import { validatePhone } from "@gw/core";

/** POST /public/v1/validate (spec 4.2). */
export function register(router: Router): void {
  router.post("/validate", (req, res) => {
    const input = parseRequest(ValidateIn, "body", req.body);
    res.json({ success: true, data: validatePhone(input.to, input.country) });
  });
}
