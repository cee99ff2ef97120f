import express, { type Router } from "express";
import { ingestProviderWebhook, MalformedWebhookError, type Outbox } from "@gw/core";
import type { Db } from "@gw/db";
import type { Logger } from "@gw/logger";
import { safeEqual, verifyMetaSignature } from "@gw/signer";

export interface ProviderWebhookDeps {
  db: Db;
  outbox: Outbox;
  logger: Logger;
  appSecret: string;
  verifyToken: string;
}

/** Meta's webhook: GET verification handshake, POST signed events (X-Hub-Signature-256 over the raw body). */
export function register(router: Router, deps: ProviderWebhookDeps): void {
  router.get("/provider/meta/webhook", (req, res) => {
    const mode = req.query["hub.mode"];
    const token = req.query["hub.verify_token"];
    const challenge = req.query["hub.challenge"];
    if (
      mode === "subscribe" &&
      typeof token === "string" &&
      safeEqual(token, deps.verifyToken) &&
      typeof challenge === "string"
    ) {
      res.status(200).type("text/plain").send(challenge);
      return;
    }
    res.status(403).type("text/plain").send("Forbidden");
  });

  router.post("/provider/meta/webhook", express.raw({ type: () => true, limit: "5mb" }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!verifyMetaSignature(deps.appSecret, raw, req.header("x-hub-signature-256"))) {
      deps.logger.warn("provider webhook with an invalid signature");
      res.status(401).json({ error: "invalid signature" });
      return;
    }
    try {
      const result = await ingestProviderWebhook(deps, raw.toString("utf8"));
      res.status(200).json({ received: true, ...result });
    } catch (error) {
      if (error instanceof MalformedWebhookError) {
        res.status(400).json({ error: "malformed body" });
        return;
      }
      // Nothing was committed: a 5xx makes Meta deliver it again.
      deps.logger.error("provider webhook not stored", { error });
      res.status(503).json({ error: "not stored" });
    }
  });
}
