export { ApiError, ERROR_REGISTRY, isErrorCode } from "./registry.ts";
export type { ApiErrorOptions, ErrorBody, ErrorCode } from "./registry.ts";
export { META_ERROR_MAP, mapMetaError } from "./meta.ts";
