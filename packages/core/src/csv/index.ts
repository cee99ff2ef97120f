export { CsvError, decodeCsv, isCsvCharset, readCsv } from "./read.ts";
export type { CsvReadLimits, CsvRecord, CsvSource } from "./read.ts";
export { RFC_CSV, SPREADSHEET_CSV, csvCell, csvHeader, csvLine } from "./write.ts";
export type { CsvDialect, CsvValue } from "./write.ts";
