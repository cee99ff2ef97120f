import {
  CampaignDetailOut,
  CampaignPath,
  campaignNotFound,
  codeList,
  errorResponse,
  jsonResponse,
  requestValidation,
  unreadablePath,
  refusalOrValidation,
} from "@gw/contracts";
import { cancelCampaign, pauseCampaign, resumeCampaign } from "@gw/core/campaigns";
import type { ErrorCode } from "@gw/errors";
import { defineRoute, routeModule } from "../define-route.ts";

/** The controls that take no body: the verb in the path, its service, and how the document describes it. */
const CONTROLS = [
  {
    verb: "pause",
    operationId: "pauseCampaign",
    service: pauseCampaign,
    summary: "Pause a campaign",
    description:
      "From `running` or `scheduled`. Recipients being sent finish; the others wait for `resume`. No body (one sent is ignored). Audited as `api.campaign.paused`.",
    conflict: "The campaign is not running or scheduled.",
    refusals: [],
  },
  {
    verb: "resume",
    operationId: "resumeCampaign",
    service: resumeCampaign,
    summary: "Resume a paused campaign",
    description:
      "From `paused`: `running` again (`scheduled` while its `start_at` is ahead). No body (one sent is ignored). Refused with `account_disabled` while Meta keeps the number's WhatsApp Business Account banned or disconnected (every send would be refused). A campaign the gateway paused by itself says why in `pause_reason`. Audited as `api.campaign.resumed`.",
    conflict: "The campaign is not paused.",
    refusals: ["account_disabled"],
  },
  {
    verb: "cancel",
    operationId: "cancelCampaign",
    service: cancelCampaign,
    summary: "Cancel a campaign",
    description:
      "From `draft`, `scheduled`, `running` or `paused`, for good: recipients not yet reserved become `cancelled`; one being sent finishes its send. No body (one sent is ignored). Audited as `api.campaign.cancelled`.",
    conflict: "The campaign is not draft, scheduled, running or paused.",
    refusals: [],
  },
] as const satisfies readonly {
  verb: string;
  operationId: string;
  service: typeof pauseCampaign;
  summary: string;
  description: string;
  conflict: string;
  /** Error codes of its 422 besides request validation. */
  refusals: readonly ErrorCode[];
}[];

/** POST /public/v1/campaigns/{campaign_id}/pause, /resume and /cancel (no body). */
export const { register, operations } = routeModule(
  ...CONTROLS.map((control) =>
    defineRoute({
      method: "post",
      path: `/campaigns/{campaign_id}/${control.verb}`,
      operationId: control.operationId,
      scope: "messages:send",
      summary: control.summary,
      description: control.description,
      request: { params: CampaignPath },
      responses: {
        200: jsonResponse("The campaign after the change.", CampaignDetailOut),
        400: unreadablePath,
        404: campaignNotFound,
        409: errorResponse(control.conflict, ["campaign_state_conflict"]),
        422:
          control.refusals.length === 0
            ? requestValidation("path")
            : refusalOrValidation(
                `Sending is blocked for the campaign's number — error envelope, code ${codeList(control.refusals)}; or an invalid path — \`HTTPValidationError\`.`,
                control.refusals,
              ),
      },
      handler: ({ accountId, actor, params }, deps) =>
        control.service(deps.campaigns, { accountId, actor, campaignId: params.campaign_id }),
    }),
  ),
);
