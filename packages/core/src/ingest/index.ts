export {
  MalformedWebhookError,
  createIngestBatcher,
  ingestProviderWebhook,
  ingestProviderWebhooks,
  type BatchIngestOutcome,
  type IngestBatcher,
  type IngestBatcherOptions,
} from "./ingest.ts";
export type { IngestDeps, IngestResult } from "./ingest.ts";
