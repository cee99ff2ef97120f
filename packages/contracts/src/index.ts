export { parseRequest, RequestValidationError, toValidationIssue } from "./validation.ts";
export type { RequestLocation, ValidationIssue } from "./validation.ts";
