import { WindowOut, WindowPath, WindowQuery, jsonResponse, requestValidation, unreadablePath } from "@gw/contracts";
import { windowStatus } from "@gw/core/windows";
import { defineRoute } from "../define-route.ts";
import { unknownNumber } from "../unknown-number.ts";

/** GET /public/v1/window/{to} (spec 4.3). */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/window/{to}",
  operationId: "getWindow",
  scope: "messages:read",
  summary: "Is the 24-hour window open",
  description:
    "Counts from the last time the CONTACT wrote. A contact that never wrote yields `open: false` (not an error), and so does an account without any business number.",
  request: { params: WindowPath, query: WindowQuery },
  responses: {
    200: jsonResponse("Window state of the contact on the business number.", WindowOut),
    400: unreadablePath,
    422: requestValidation("path or query; also a `phone_number_id` that is not one of the account's numbers"),
  },
  async handler({ accountId, params, query }, deps) {
    const window = await windowStatus(deps, { accountId, to: params.to, phoneNumberId: query.phone_number_id });
    // Spec 4.3 lists only 401/422/429: a number that is not the account's is an invalid query value.
    if (!window) throw unknownNumber(query.phone_number_id, "query");
    return window;
  },
});
