import express from "express";
import { safeEqual } from "@gw/signer";
import { logs, sleep, type FaultRoute, type FaultRule, type SandboxState } from "../state.ts";
import { deleteContactBookEntry } from "./contact-book.ts";
import { invalidTokenResult, MetaError, unsupportedRequestResult, type GraphResult } from "./errors.ts";
import { deleteMediaResult, downloadResult, MEDIA_DOWNLOAD_PATH, mediaResult } from "./media.ts";
import { handleMediaUpload } from "./media-upload.ts";
import { settleOrderPlan } from "../orders.ts";
import { handleSend } from "./messages.ts";
import { recordGraphRequest } from "./requests.ts";
import { phoneNumberResult } from "./numbers.ts";
import { createTemplate, listTemplates } from "./templates.ts";
import { handleThreadControl } from "./thread-control.ts";

type GraphRoute = Exclude<FaultRoute, "any"> | "other";

/** The first pending fault for this route, consumed; rules with `after` let that many matching calls through first. */
function takeFault(state: SandboxState, route: GraphRoute): FaultRule | undefined {
  const rule = state.faults.find((f) => f.count > 0 && (f.route === "any" || f.route === route));
  if (!rule) return undefined;
  if (rule.after > 0) {
    rule.after -= 1;
    return undefined;
  }
  rule.count -= 1;
  if (rule.count === 0) state.faults.splice(state.faults.indexOf(rule), 1);
  return rule;
}

/** Meta takes the token from the Authorization header or the `access_token` query parameter. */
function authorize(state: SandboxState, req: express.Request, url: () => URL): GraphResult | undefined {
  if (state.accessToken === undefined) return undefined;
  const header = req.get("authorization");
  const token = header?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? url().searchParams.get("access_token") ?? undefined;
  if (token === undefined) return invalidTokenResult(false);
  return safeEqual(token, state.accessToken) ? undefined : invalidTokenResult(true);
}

function send(res: express.Response, result: GraphResult): void {
  // Media downloads answer bytes with their exact Content-Type (res.set would add a charset to text types).
  if (Buffer.isBuffer(result.body)) {
    for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
    res.status(result.status).end(result.body);
    return;
  }
  if (result.headers) res.set(result.headers);
  res.status(result.status).json(result.body);
}

/**
 * What GET /{version}/{id} names: a media id the sandbox handed out (answered as missing once its media was reset
 * or dropped, as Meta answers expired media), else a phone number (all digits: the sandbox has no phone registry),
 * else nothing it knows (Meta's "Unsupported get request").
 */
function nodeKind(state: SandboxState, id: string): "media" | "numbers" | "other" {
  if (state.mediaIds.has(id)) return "media";
  return /^\d{1,20}$/.test(id) ? "numbers" : "other";
}

/**
 * The Graph API subset. Each call is recorded in `state.requests`; a pending fault replaces its answer
 * (and, unless the fault has `deliver`, the call is not processed at all).
 */
export function graphRouter(state: SandboxState): express.Router {
  const router = express.Router();
  // Media uploads are read as they arrive (multipart, up to 100 MB): before the raw body below.
  router.post("/:version/:phoneNumberId/media", handleMediaUpload(state));
  // Raw bytes, so GET /_sandbox/sent can show exactly what the gateway sent.
  router.use(express.raw({ type: () => true, limit: "5mb" }));

  const handle =
    (
      route: GraphRoute | ((req: express.Request) => GraphRoute),
      run: (req: express.Request, url: () => URL, fault: FaultRule | undefined) => GraphResult,
    ) =>
    (req: express.Request, res: express.Response): void => {
      // Parsed only when a handler needs the query (template listings, `?access_token=`).
      let parsed: URL | undefined;
      const url = (): URL =>
        (parsed ??= new URL(req.originalUrl, `${req.protocol}://${req.get("host") ?? "127.0.0.1"}`));
      const query = req.originalUrl.indexOf("?");
      const path = query < 0 ? req.originalUrl : req.originalUrl.slice(0, query);
      const record = recordGraphRequest(state, req, res, path);
      const fault = takeFault(state, typeof route === "function" ? route(req) : route);
      let result: GraphResult | undefined;
      if (!fault || fault.deliver || fault.mode === "slow") result = authorize(state, req, url) ?? run(req, url, fault);
      if (logs(state, "http"))
        state.logger.http("sandbox graph call", {
          method: req.method,
          path,
          status: fault ? `fault ${fault.mode}` : result?.status,
        });
      if (!fault) {
        if (result) send(res, result);
        return;
      }
      record.fault = fault.mode;
      if (fault.mode === "500") {
        send(res, new MetaError(131000, "Something went wrong").toResult());
      } else if (fault.mode === "error" && fault.error) {
        send(res, new MetaError(fault.error.code, fault.error.details).toResult());
      } else if (fault.mode === "reset") {
        req.socket.destroy();
      } else if (fault.mode === "slow") {
        // The real answer, late (a slow Meta: the catalogue paging for ages, a send answered after a while).
        const answer = result;
        void sleep(state, fault.delayMs).then(() => {
          if (answer && !res.headersSent && !req.socket.destroyed) send(res, answer);
        });
      } else {
        // Hang, then drop the connection without an answer (also at once on reset/shutdown).
        void sleep(state, fault.delayMs).then(() => req.socket.destroy());
      }
    };

  const rawBody = (req: express.Request): string => (Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "");

  router.post(
    "/:version/:phoneNumberId/messages",
    // An order message changes the order only once accepted (orders.ts).
    handle("messages", (req, _url, fault) =>
      settleOrderPlan(state, handleSend(state, String(req.params.phoneNumberId), rawBody(req), fault?.mode ?? null)),
    ),
  );
  // The Marketing Messages API (meta-2026 §7): the same send path, marketing templates only; its own fault route.
  router.post(
    "/:version/:phoneNumberId/marketing_messages",
    handle("marketing_messages", (req, _url, fault) =>
      settleOrderPlan(
        state,
        handleSend(state, String(req.params.phoneNumberId), rawBody(req), fault?.mode ?? null, "marketing_messages"),
      ),
    ),
  );
  // Conversation Routing thread control (meta-late-2026 §5): pass, take or release a user's thread.
  router.post(
    "/:version/:phoneNumberId/thread_control",
    handle("thread_control", (req) => handleThreadControl(state, String(req.params.phoneNumberId), rawBody(req))),
  );
  router.delete(
    "/:version/:phoneNumberId/contact_book",
    handle("other", (req, url) => deleteContactBookEntry(state, String(req.params.phoneNumberId), url())),
  );
  router.get(
    "/:version/:wabaId/message_templates",
    handle("templates", (_req, url) => listTemplates(state, url())),
  );
  router.post(
    "/:version/:wabaId/message_templates",
    handle("templates", (req) => createTemplate(state, rawBody(req))),
  );
  // Meta serves downloads from its lookaside host; the sandbox from its own origin, before the Graph node route.
  router.get(
    MEDIA_DOWNLOAD_PATH,
    handle("media", (req, url) => downloadResult(state, req, url())),
  );
  router.get(
    "/:version/:nodeId",
    handle(
      (req) => nodeKind(state, String(req.params.nodeId)),
      (req, url) => {
        const id = String(req.params.nodeId);
        const kind = nodeKind(state, id);
        const media = state.media.get(id);
        if (kind === "media" && media) return mediaResult(state, media, url());
        if (kind === "numbers") return phoneNumberResult(state, id, url());
        return unsupportedRequestResult(req.method, id);
      },
    ),
  );
  router.delete(
    "/:version/:nodeId",
    handle(
      (req) => nodeKind(state, String(req.params.nodeId)),
      (req, url) => {
        const id = String(req.params.nodeId);
        if (nodeKind(state, id) === "media") return deleteMediaResult(state, id, url());
        return unsupportedRequestResult(req.method, id);
      },
    ),
  );
  router.use(
    handle("other", (req, url) =>
      unsupportedRequestResult(req.method, url().pathname.split("/").filter(Boolean)[1] ?? ""),
    ),
  );
  return router;
}
