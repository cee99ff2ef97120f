import type { Router } from "express";
import { PublicSendIn, SendHeaders, parseRequest } from "@gw/contracts";
import { sendMessage, type SendDeps } from "@gw/core";
import { authOf } from "../../http/auth.ts";
import { sendRaw } from "../../http/respond.ts";
import { jsonBody } from "../../http/json-body.ts";

export interface SendRouteDeps {
  send: SendDeps;
  onOutcome?: (outcome: string) => void;
}

/** POST /public/v1/messages (spec 4.1). */
export function register(router: Router, deps: SendRouteDeps): void {
  router.post("/messages", jsonBody, async (req, res) => {
    const auth = authOf(req);
    const headers = parseRequest(SendHeaders, "header", { "idempotency-key": req.header("idempotency-key") });
    const idempotencyKey = headers["idempotency-key"];
    const input = parseRequest(PublicSendIn, "body", req.body);
    try {
      const result = await sendMessage(
        deps.send,
        { accountId: auth.accountId, actor: `api_key:${auth.keyId}`, requestId: req.requestId, idempotencyKey },
        input,
      );
      if (result.replayed) res.setHeader("Idempotent-Replayed", "true");
      deps.onOutcome?.(result.outcome);
      sendRaw(res, result.status, result.body);
    } catch (error) {
      deps.onOutcome?.((error as { code?: string }).code ?? "error");
      throw error;
    }
  });
}
