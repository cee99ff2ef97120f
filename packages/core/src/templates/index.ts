export {
  buildTemplateSend,
  BODY_ONLY_PARAM_MAX,
  BODY_PARAM_MAX,
  COUPON_MAX,
  HEADER_PARAM_MAX,
  isOrderStatusTemplate,
  OTP_MAX,
  URL_MAX,
} from "./build.ts";
export type { PixItemInput, PixOrderInput, TemplateParameters, TemplateSendInput } from "./build.ts";
export { TEMPLATE_STATUSES, templateCatalogue, toCatalogueItem } from "./catalogue.ts";
export { TemplateCache } from "./cache.ts";
export type { TemplateCacheOptions, TemplateSource } from "./cache.ts";
export { findTemplate } from "./find.ts";
export { MAX_BODY_VARIABLES, templateShape, variablesOf } from "./shape.ts";
export type { ButtonShape, HeaderShape, TemplateShape } from "./shape.ts";
export {
  TEMPLATE_NOTICE_KINDS,
  countUnreadTemplateNotices,
  listTemplateNotices,
  markAllTemplateNoticesRead,
  markTemplateNoticeRead,
} from "./notices.ts";
export type { TemplateNoticeKind, TemplateNoticeView } from "./notices.ts";
