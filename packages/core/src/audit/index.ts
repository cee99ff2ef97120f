export { auditAction, listAudit, recordAudit } from "./audit.ts";
export type { Actor, AuditEntry, AuditEntryView, AuditExecutor, AuditFilters, AuditOrigin } from "./audit.ts";
