// Drift check between prisma/schema.prisma and a database built by the committed SQL migrations.
// Both sides are reduced to "facts" (one per table, column, primary key, index, foreign key, ...) with a
// description in Postgres' own spelling, so the comparison is a plain keyed diff with readable output.
//
// The declared side comes from the Prisma schema engine's WASM DMMF (@prisma/prisma-schema-wasm): the same
// parser `prisma generate` uses, without the schema-engine binary this machine cannot download.
import { get_dmmf } from "@prisma/prisma-schema-wasm";
import pg from "pg";

export interface SchemaFact {
  key: string;
  /** Table the fact belongs to (null for enums, functions...). */
  table: string | null;
  description: string;
}

export type SchemaFacts = Map<string, SchemaFact>;

/** An object the migrations create on purpose although Prisma's schema language cannot express it. */
export interface SqlOnlyObject {
  key: string;
  description: string;
  why: string;
}

export interface SqlOnlyAllowList {
  objects: SqlOnlyObject[];
  /** Tables owned by tooling (the migration history); only their existence is checked. */
  toolingTables: string[];
}

export type DriftProblem = "missing_in_database" | "missing_in_schema" | "different" | "allow_list_conflict";

export interface Drift {
  key: string;
  problem: DriftProblem;
  expected?: string;
  actual?: string;
}

// ---------------------------------------------------------------------------------------------------------
// Declared model (DMMF)

type DmmfDefault = { name: string; args: unknown[] } | string | number | boolean | unknown[];

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: "scalar" | "object" | "enum" | "unsupported";
  isList: boolean;
  isRequired: boolean;
  hasDefaultValue: boolean;
  type: string;
  nativeType?: [string, string[]] | null;
  default?: DmmfDefault;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}

interface DmmfModel {
  name: string;
  dbName: string | null;
  schema?: string | null;
  fields: DmmfField[];
}

interface DmmfIndex {
  model: string;
  type: "id" | "unique" | "normal" | "fulltext";
  dbName?: string | null;
  algorithm?: string;
  fields: Array<{ name: string; sortOrder?: "asc" | "desc"; length?: number; operatorClass?: string }>;
}

interface DmmfEnum {
  name: string;
  dbName?: string | null;
  values: Array<{ name: string; dbName: string | null }>;
}

interface Dmmf {
  datamodel: { models: DmmfModel[]; enums: DmmfEnum[]; indexes: DmmfIndex[] };
}

class UnsupportedSchemaFeature extends Error {
  constructor(detail: string) {
    super(`O teste de drift não sabe comparar ${detail}; estenda packages/db/test/support/schema-drift.ts.`);
  }
}

const POSTGRES_MAX_IDENTIFIER = 63;

/** Prisma's default constraint names (psl ConstraintNames): the base is cut so that base + suffix fits 63 bytes. */
function prismaDefaultName(base: string, suffix: string): string {
  const room = POSTGRES_MAX_IDENTIFIER - suffix.length;
  return (base.length >= room ? base.slice(0, room) : base) + suffix;
}

const REFERENTIAL_ACTIONS: Record<string, string> = {
  Cascade: "CASCADE",
  Restrict: "RESTRICT",
  NoAction: "NO ACTION",
  SetNull: "SET NULL",
  SetDefault: "SET DEFAULT",
};

function quoteIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** Prisma scalar + native type -> what `format_type()` prints for the column Prisma's migrate would create. */
function postgresType(field: DmmfField, enums: Map<string, DmmfEnum>): string {
  let base: string;
  if (field.kind === "enum") {
    const declared = enums.get(field.type);
    base = quoteIdentifier(declared?.dbName ?? field.type);
  } else if (field.kind === "scalar") {
    base = field.nativeType
      ? nativeType(field.nativeType[0], field.nativeType[1], field.type)
      : defaultType(field.type);
  } else {
    throw new UnsupportedSchemaFeature(`o campo ${field.name} do tipo ${field.kind}`);
  }
  return field.isList ? `${base}[]` : base;
}

function defaultType(scalar: string): string {
  const types: Record<string, string> = {
    String: "text",
    Int: "integer",
    BigInt: "bigint",
    Boolean: "boolean",
    DateTime: "timestamp(3) without time zone",
    Json: "jsonb",
    Float: "double precision",
    Decimal: "numeric(65,30)",
    Bytes: "bytea",
  };
  const type = types[scalar];
  if (!type) throw new UnsupportedSchemaFeature(`o tipo ${scalar}`);
  return type;
}

function nativeType(name: string, args: string[], scalar: string): string {
  const withArgs = (sql: string) => (args.length > 0 ? `${sql}(${args.join(",")})` : sql);
  const precision = (sql: string, zone: string) =>
    args.length > 0 ? `${sql}(${args.join(",")}) ${zone}` : `${sql} ${zone}`;
  switch (name) {
    case "Uuid":
      return "uuid";
    case "Text":
      return "text";
    case "VarChar":
      return withArgs("character varying");
    case "Char":
      return withArgs("character");
    case "Integer":
      return "integer";
    case "SmallInt":
      return "smallint";
    case "BigInt":
      return "bigint";
    case "Boolean":
      return "boolean";
    case "Timestamptz":
      return precision("timestamp", "with time zone");
    case "Timestamp":
      return precision("timestamp", "without time zone");
    case "Time":
      return precision("time", "without time zone");
    case "Date":
      return "date";
    case "JsonB":
      return "jsonb";
    case "Json":
      return "json";
    case "DoublePrecision":
      return "double precision";
    case "Real":
      return "real";
    case "Decimal":
      return withArgs("numeric");
    case "ByteA":
      return "bytea";
    case "Inet":
      return "inet";
    default:
      throw new UnsupportedSchemaFeature(`o tipo nativo @db.${name} (${scalar})`);
  }
}

function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** The default as `pg_get_expr()` prints it for the DDL Prisma's migrate would write; null when none. */
function postgresDefault(field: DmmfField, table: string, column: string, type: string): string | null {
  const value = field.default;
  if (!field.hasDefaultValue || value === undefined) return null;
  if (typeof value === "object" && !Array.isArray(value)) {
    switch (value.name) {
      case "now":
        return "CURRENT_TIMESTAMP";
      case "autoincrement":
        // Prisma creates SERIAL/BIGSERIAL columns, whose sequence Postgres names <table>_<column>_seq.
        return `nextval('${table}_${column}_seq'::regclass)`;
      case "dbgenerated":
        if (typeof value.args[0] !== "string")
          throw new UnsupportedSchemaFeature(`dbgenerated() sem expressão em ${table}.${column}`);
        return value.args[0];
      case "uuid":
      case "cuid":
      case "nanoid":
      case "ulid":
        return null; // generated by the client, no database default
      default:
        throw new UnsupportedSchemaFeature(`o default ${value.name}() de ${table}.${column}`);
    }
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return `ARRAY[]::${type}`;
    throw new UnsupportedSchemaFeature(`o default de lista não vazia de ${table}.${column}`);
  }
  if (typeof value === "boolean") return String(value);
  if (
    typeof value === "number" ||
    (typeof value === "string" && ["Int", "BigInt", "Float", "Decimal"].includes(field.type))
  ) {
    const text = String(value);
    return text.startsWith("-") ? `${sqlString(text)}::${type}` : text;
  }
  if (field.kind === "enum" || ["String", "Json"].includes(field.type)) {
    // Postgres prints the cast without a length modifier: 'x'::character varying.
    return `${sqlString(String(value))}::${type.replace(/\(\d+(,\d+)?\)/, "")}`;
  }
  throw new UnsupportedSchemaFeature(`o default ${JSON.stringify(value)} de ${table}.${column}`);
}

export function loadDmmf(schemaText: string): Dmmf {
  return JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [["schema.prisma", schemaText]] }))) as Dmmf;
}

function add(facts: SchemaFacts, key: string, table: string | null, description: string): void {
  if (facts.has(key)) throw new Error(`fato duplicado: ${key}`);
  facts.set(key, { key, table, description });
}

function columnDescription(type: string, nullable: boolean, defaultSql: string | null): string {
  return `${type} ${nullable ? "NULL" : "NOT NULL"} DEFAULT ${defaultSql ?? "-"}`;
}

function indexDescription(
  unique: boolean,
  method: string,
  table: string,
  columns: string[],
  include: string[],
  predicate: string | null,
): string {
  return (
    `${unique ? "UNIQUE " : ""}${method} ON ${table} (${columns.join(", ")})` +
    (include.length > 0 ? ` INCLUDE (${include.join(", ")})` : "") +
    (predicate ? ` WHERE ${predicate}` : "")
  );
}

function foreignKeyDescription(
  name: string,
  refTable: string,
  refColumns: string[],
  onDelete: string,
  onUpdate: string,
): string {
  return `${name} REFERENCES ${refTable} (${refColumns.join(", ")}) ON DELETE ${onDelete} ON UPDATE ${onUpdate}`;
}

/** The database that `prisma migrate` would build from this schema, as facts. */
export function declaredSchema(schemaText: string): SchemaFacts {
  // The DMMF does not expose `map:` on @relation, so a custom foreign-key name would go unchecked.
  if (/@relation\([^)]*\bmap\s*:/.test(schemaText)) throw new UnsupportedSchemaFeature("@relation(map: ...)");
  const { datamodel } = loadDmmf(schemaText);
  const facts: SchemaFacts = new Map();
  const enums = new Map(datamodel.enums.map((e) => [e.name, e]));
  const models = new Map(datamodel.models.map((m) => [m.name, m]));
  const tableOf = (model: DmmfModel) => model.dbName ?? model.name;
  const columnOf = (model: DmmfModel, fieldName: string) => {
    const field = model.fields.find((f) => f.name === fieldName);
    if (!field) throw new Error(`campo ${model.name}.${fieldName} não encontrado no DMMF`);
    return field.dbName ?? field.name;
  };

  for (const declared of datamodel.enums) {
    add(
      facts,
      `enum ${declared.dbName ?? declared.name}`,
      null,
      declared.values.map((v) => v.dbName ?? v.name).join(", "),
    );
  }

  for (const model of datamodel.models) {
    if (model.schema) throw new UnsupportedSchemaFeature(`o schema ${model.schema} do modelo ${model.name}`);
    const table = tableOf(model);
    add(facts, `table ${table}`, table, "tabela");
    for (const field of model.fields) {
      if (field.kind === "object") {
        const from = field.relationFromFields ?? [];
        if (from.length === 0) continue; // the other side of the relation holds the foreign key
        const target = models.get(field.type);
        if (!target) throw new Error(`modelo ${field.type} não encontrado no DMMF`);
        const columns = from.map((name) => columnOf(model, name));
        const refColumns = (field.relationToFields ?? []).map((name) => columnOf(target, name));
        // Prisma's defaults: an optional relation sets null on delete, a required one restricts; updates cascade.
        const onDelete = field.relationOnDelete ?? (field.isRequired ? "Restrict" : "SetNull");
        const onUpdate = field.relationOnUpdate ?? "Cascade";
        add(
          facts,
          `foreign key ${table} (${columns.join(", ")})`,
          table,
          foreignKeyDescription(
            prismaDefaultName(`${table}_${columns.join("_")}`, "_fkey"),
            tableOf(target),
            refColumns,
            REFERENTIAL_ACTIONS[onDelete] ?? onDelete,
            REFERENTIAL_ACTIONS[onUpdate] ?? onUpdate,
          ),
        );
        continue;
      }
      const column = field.dbName ?? field.name;
      const type = postgresType(field, enums);
      // Prisma creates scalar lists without NOT NULL (a list is never optional in the schema language).
      const nullable = field.isList || !field.isRequired;
      add(
        facts,
        `column ${table}.${column}`,
        table,
        columnDescription(type, nullable, postgresDefault(field, table, column, type)),
      );
    }
  }

  for (const index of datamodel.indexes) {
    const model = models.get(index.model);
    if (!model) throw new Error(`modelo ${index.model} não encontrado no DMMF`);
    const table = tableOf(model);
    const columns = index.fields.map((f) => {
      if (f.length !== undefined || f.operatorClass !== undefined)
        throw new UnsupportedSchemaFeature(`length/ops no índice de ${table}`);
      return columnOf(model, f.name) + (f.sortOrder === "desc" ? " DESC" : "");
    });
    if (index.type === "id") {
      add(
        facts,
        `primary key ${table}`,
        table,
        `${index.dbName ?? prismaDefaultName(table, "_pkey")} (${columns.join(", ")})`,
      );
    } else if (index.type === "unique" || index.type === "normal") {
      const unique = index.type === "unique";
      const name =
        index.dbName ??
        prismaDefaultName(
          `${table}_${columns.map((c) => c.replace(/ DESC$/, "")).join("_")}`,
          unique ? "_key" : "_idx",
        );
      add(
        facts,
        `index ${name}`,
        table,
        indexDescription(unique, (index.algorithm ?? "BTree").toLowerCase(), table, columns, [], null),
      );
    } else {
      throw new UnsupportedSchemaFeature(`o índice ${index.type} de ${table}`);
    }
  }
  return facts;
}

// ---------------------------------------------------------------------------------------------------------
// Real catalogue (pg_catalog)

const ACTION_CODES: Record<string, string> = {
  a: "NO ACTION",
  r: "RESTRICT",
  c: "CASCADE",
  n: "SET NULL",
  d: "SET DEFAULT",
};

// Objects that belong to an installed extension are the extension's business, not the migrations'.
const NOT_FROM_EXTENSION = (oid: string, catalog: string) =>
  `NOT EXISTS (SELECT 1 FROM pg_depend dep WHERE dep.objid = ${oid} AND dep.classid = '${catalog}'::regclass AND dep.deptype = 'e')`;

/** What the database really holds in schema `public`, as facts comparable with `declaredSchema`. */
export async function readCatalogue(databaseUrl: string): Promise<SchemaFacts> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await catalogueFacts(client);
  } finally {
    await client.end();
  }
}

async function catalogueFacts(client: pg.Client): Promise<SchemaFacts> {
  const facts: SchemaFacts = new Map();

  const relations = await client.query<{ name: string; kind: string }>(`
    SELECT c.relname::text AS name, c.relkind::text AS kind
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
      AND ${NOT_FROM_EXTENSION("c.oid", "pg_class")}`);
  for (const row of relations.rows) {
    if (row.kind === "r" || row.kind === "p") add(facts, `table ${row.name}`, row.name, "tabela");
    else add(facts, `view ${row.name}`, null, `relkind ${row.kind}`);
  }

  const columns = await client.query<{
    table: string;
    column: string;
    type: string;
    not_null: boolean;
    default: string | null;
    identity: string;
    generated: string;
  }>(`
    SELECT c.relname::text AS table, a.attname::text AS column, format_type(a.atttypid, a.atttypmod) AS type,
           a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default,
           a.attidentity::text AS identity, a.attgenerated::text AS generated
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
      AND ${NOT_FROM_EXTENSION("c.oid", "pg_class")}`);
  for (const row of columns.rows) {
    // Identity and generated columns have no Prisma counterpart here: make them visible as a difference.
    const extra =
      (row.identity ? ` IDENTITY ${row.identity}` : "") + (row.generated ? ` GENERATED ${row.generated}` : "");
    add(
      facts,
      `column ${row.table}.${row.column}`,
      row.table,
      columnDescription(row.type, !row.not_null, row.default) + extra,
    );
  }

  const constraints = await client.query<{
    name: string;
    type: string;
    table: string;
    columns: string[];
    ref_table: string | null;
    ref_columns: string[];
    on_delete: string;
    on_update: string;
    definition: string;
  }>(`
    SELECT con.conname::text AS name, con.contype::text AS type, t.relname::text AS table,
           array(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
           rt.relname::text AS ref_table,
           array(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS ref_columns,
           con.confdeltype::text AS on_delete, con.confupdtype::text AS on_update,
           pg_get_constraintdef(con.oid, true) AS definition
    FROM pg_constraint con
    JOIN pg_class t ON t.oid = con.conrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    LEFT JOIN pg_class rt ON rt.oid = con.confrelid
    WHERE n.nspname = 'public'`);
  for (const row of constraints.rows) {
    switch (row.type) {
      case "p":
        add(facts, `primary key ${row.table}`, row.table, `${row.name} (${row.columns.join(", ")})`);
        break;
      case "f":
        add(
          facts,
          `foreign key ${row.table} (${row.columns.join(", ")})`,
          row.table,
          foreignKeyDescription(
            row.name,
            row.ref_table ?? "?",
            row.ref_columns,
            ACTION_CODES[row.on_delete] ?? row.on_delete,
            ACTION_CODES[row.on_update] ?? row.on_update,
          ),
        );
        break;
      case "u":
        break; // its index is listed below, which is how Prisma's unique indexes appear too
      case "n":
        break; // NOT NULL as a constraint (PostgreSQL 18+): already in the column's nullability
      default:
        add(facts, `constraint ${row.table}.${row.name}`, row.table, row.definition);
    }
  }

  const indexes = await client.query<{
    name: string;
    table: string;
    unique: boolean;
    method: string;
    predicate: string | null;
    key_count: number;
    columns: string[];
  }>(`
    SELECT i.relname::text AS name, t.relname::text AS table, ix.indisunique AS unique, am.amname::text AS method,
           pg_get_expr(ix.indpred, ix.indrelid) AS predicate, ix.indnkeyatts::int AS key_count,
           array(SELECT CASE WHEN k.attnum = 0 THEN pg_get_indexdef(ix.indexrelid, k.ord::int, true) ELSE a.attname::text END
                        || CASE WHEN k.ord <= ix.indnkeyatts AND (ix.indoption[k.ord - 1] & 1) = 1 THEN ' DESC' ELSE '' END
                 FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                 LEFT JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.attnum
                 ORDER BY k.ord) AS columns
    FROM pg_index ix
    JOIN pg_class i ON i.oid = ix.indexrelid
    JOIN pg_class t ON t.oid = ix.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    JOIN pg_am am ON am.oid = i.relam
    WHERE n.nspname = 'public' AND NOT ix.indisprimary`);
  for (const row of indexes.rows) {
    const key = row.columns.slice(0, row.key_count);
    const include = row.columns.slice(row.key_count);
    add(
      facts,
      `index ${row.name}`,
      row.table,
      indexDescription(row.unique, row.method, row.table, key, include, row.predicate),
    );
  }

  const enums = await client.query<{ name: string; labels: string[] }>(`
    SELECT t.typname::text AS name, array(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) AS labels
    FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname = 'public' AND t.typtype = 'e' AND ${NOT_FROM_EXTENSION("t.oid", "pg_type")}`);
  for (const row of enums.rows) add(facts, `enum ${row.name}`, null, row.labels.join(", "));

  // Sequences behind SERIAL columns are covered by the column default; any other one is SQL-only.
  const sequences = await client.query<{ name: string }>(`
    SELECT c.relname::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'S'
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.classid = 'pg_class'::regclass AND d.deptype IN ('a', 'i', 'e'))`);
  for (const row of sequences.rows) add(facts, `sequence ${row.name}`, null, "sequência");

  const triggers = await client.query<{ name: string; table: string; definition: string }>(`
    SELECT tg.tgname::text AS name, c.relname::text AS table, pg_get_triggerdef(tg.oid, true) AS definition
    FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND NOT tg.tgisinternal`);
  for (const row of triggers.rows) add(facts, `trigger ${row.table}.${row.name}`, row.table, row.definition);

  const functions = await client.query<{ signature: string }>(`
    SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS signature
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND ${NOT_FROM_EXTENSION("p.oid", "pg_proc")}`);
  for (const row of functions.rows) add(facts, `function ${row.signature}`, null, "função");

  return facts;
}

// ---------------------------------------------------------------------------------------------------------
// Comparison

export function compareSchema(declared: SchemaFacts, actual: SchemaFacts, allowList: SqlOnlyAllowList): Drift[] {
  const drifts: Drift[] = [];
  const sqlOnly = new Map(allowList.objects.map((o) => [o.key, o]));
  const tooling = new Set(allowList.toolingTables);

  for (const [key, expected] of declared) {
    if (sqlOnly.has(key)) drifts.push({ key, problem: "allow_list_conflict", expected: expected.description });
    const found = actual.get(key);
    if (!found) drifts.push({ key, problem: "missing_in_database", expected: expected.description });
    else if (found.description !== expected.description)
      drifts.push({ key, problem: "different", expected: expected.description, actual: found.description });
  }
  for (const [key, found] of actual) {
    if (declared.has(key)) continue;
    const allowed = sqlOnly.get(key);
    if (allowed) {
      if (allowed.description !== found.description)
        drifts.push({ key, problem: "different", expected: allowed.description, actual: found.description });
      continue;
    }
    if (found.table !== null && tooling.has(found.table)) continue; // its existence is checked below
    drifts.push({ key, problem: "missing_in_schema", actual: found.description });
  }
  for (const key of [...sqlOnly.keys(), ...[...tooling].map((t) => `table ${t}`)]) {
    if (!actual.has(key))
      drifts.push({ key, problem: "missing_in_database", expected: sqlOnly.get(key)?.description ?? "tabela" });
  }
  return drifts.sort((a, b) => a.key.localeCompare(b.key) || a.problem.localeCompare(b.problem));
}

/** One Portuguese sentence per drift, for the test's failure output. */
export function describeDrift(drift: Drift): string {
  switch (drift.problem) {
    case "missing_in_database":
      return `${drift.key}: esperado (${drift.expected}), mas ausente no banco migrado; falta uma migração?`;
    case "missing_in_schema":
      return `${drift.key}: existe no banco migrado (${drift.actual}), mas não em schema.prisma nem na lista de objetos só-SQL.`;
    case "different":
      return `${drift.key}: esperado "${drift.expected}", o banco migrado tem "${drift.actual}".`;
    case "allow_list_conflict":
      return `${drift.key}: está em schema.prisma e também na lista de objetos só-SQL; retire-o da lista.`;
  }
}
