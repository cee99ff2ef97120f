export { CsvError, decodeCsv, isCsvCharset, readCsv } from "./read.ts";
export type { CsvReadLimits, CsvRecord, CsvSource } from "./read.ts";
export { csvCell, csvLine } from "./write.ts";
export type { CsvValue } from "./write.ts";
