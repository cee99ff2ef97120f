import type { TemplateItemOut } from "@gw/contracts";
import { ApiError } from "@gw/errors";
import type { MetaTemplate } from "@gw/meta";
import type { AccountDirectory } from "../accounts/directory.ts";
import type { TemplateCache } from "./cache.ts";
import { templateShape } from "./shape.ts";

/**
 * One template of the catalogue (spec 2.5), every field present.
 *
 * `variables_count` / `variable_names` describe what the send's `variables` must carry. For authentication
 * templates that is NOTHING: Meta lists their body as "*{{1}}* é seu código..." but the code is sent in
 * `otp_code` (it fills both the body and the copy-code button), so they report 0 and [] and the OTP need shows
 * as `needs_otp` on the button. POSITIONAL templates report `variable_names: []`.
 */
export function toCatalogueItem(template: MetaTemplate): TemplateItemOut {
  const shape = templateShape(template);
  const bodyVariables = shape.isAuthentication ? [] : shape.body.variables;
  const variableNames = shape.parameterFormat === "NAMED" ? bodyVariables : [];
  const quality = template.quality_score;
  const header = shape.header
    ? {
        format: shape.header.format,
        text: shape.header.text,
        needs_text: shape.header.format === "TEXT" && shape.header.variables.length > 0,
        needs_media: shape.header.needsMedia,
      }
    : null;
  const body = { text: shape.body.text, variables_count: bodyVariables.length, variable_names: variableNames };

  return {
    id: typeof template.id === "string" && template.id !== "" ? template.id : null,
    name: template.name,
    language: template.language,
    status: template.status,
    category: template.category,
    sub_category:
      typeof template.sub_category === "string" && template.sub_category !== "" ? template.sub_category : null,
    quality_score: quality
      ? {
          score: typeof quality.score === "string" ? quality.score : null,
          date: typeof quality.date === "number" && Number.isInteger(quality.date) ? quality.date : null,
          reasons: Array.isArray(quality.reasons) ? quality.reasons : [],
        }
      : null,
    rejected_reason:
      typeof template.rejected_reason === "string" &&
      template.rejected_reason.toUpperCase() !== "NONE" &&
      template.rejected_reason !== ""
        ? template.rejected_reason
        : null,
    message_send_ttl_seconds:
      typeof template.message_send_ttl_seconds === "number" && Number.isInteger(template.message_send_ttl_seconds)
        ? template.message_send_ttl_seconds
        : null,
    sendable: template.status === "APPROVED",
    api_supported: shape.unsupportedReason === null,
    api_unsupported_reason: shape.unsupportedReason,
    header,
    parameter_format: shape.parameterFormat,
    body,
    footer: shape.footer
      ? { text: shape.footer.text, code_expiration_minutes: shape.footer.codeExpirationMinutes }
      : null,
    buttons: shape.buttons.map((b) => ({
      index: b.index,
      type: b.type,
      text: b.text,
      url: b.url,
      phone_number: b.phoneNumber,
      needs_url_param: b.needsUrlParam,
      needs_coupon: b.needsCoupon,
      needs_otp: b.needsOtp,
    })),
    body_text: body.text,
    variables_count: body.variables_count,
    variable_names: body.variable_names,
    header_format: header?.format ?? null,
    components: template.components as unknown as Record<string, unknown>[],
  };
}

/** Statuses Meta reports for templates; `ALL` lists every one of them. */
export const TEMPLATE_STATUSES = [
  "APPROVED",
  "PENDING",
  "REJECTED",
  "PAUSED",
  "DISABLED",
  "IN_APPEAL",
  "PENDING_DELETION",
  "DELETED",
  "LIMIT_EXCEEDED",
  "ARCHIVED",
] as const;

/** GET /public/v1/templates (spec 4.4). */
export async function templateCatalogue(
  deps: { directory: AccountDirectory; templates: TemplateCache },
  input: { accountId: string; status: string; phoneNumberId?: string | undefined },
) {
  const status = input.status.toUpperCase();
  if (status !== "ALL" && !(TEMPLATE_STATUSES as readonly string[]).includes(status)) {
    throw new ApiError("invalid_template_status");
  }
  const number = await deps.directory.resolveNumber(input.accountId, input.phoneNumberId);
  if (!number) throw new ApiError("no_connected_number");
  const templates = await deps.templates.get(number.wabaId);
  return templates.filter((t) => status === "ALL" || t.status === status).map(toCatalogueItem);
}
