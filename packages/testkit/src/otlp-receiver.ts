import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as an OTLP/HTTP export carried it, decoded (ids as lowercase hex, attributes as plain values). */
export interface ExportedSpan {
  service: string | null;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The spans this one is linked to (not its parent): their trace and span ids. */
  links: { traceId: string; spanId: string }[];
}

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to (the exporter posts to `<url>/v1/traces`). */
  url: string;
  spans: ExportedSpan[];
  /** Export requests refused (not JSON, not /v1/traces). */
  refused: number;
  close(): Promise<void>;
}

/**
 * A collector on loopback that accepts OTLP/HTTP trace exports with JSON bodies (`application/json`, what
 * @opentelemetry/exporter-trace-otlp-http sends) and keeps the spans decoded; protobuf bodies are refused with 415.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ExportedSpan[] = [];
  const state = { refused: 0 };
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const json = (req.headers["content-type"] ?? "").startsWith("application/json");
      if (req.method !== "POST" || req.url !== "/v1/traces" || !json) {
        state.refused++;
        res.writeHead(json ? 404 : 415).end();
        return;
      }
      spans.push(...decodeTraces(JSON.parse(body) as OtlpTraces));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    get refused() {
      return state.refused;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: OtlpAttribute[];
        status?: { code?: number };
        links?: { traceId: string; spanId: string }[];
      }[];
    }[];
  }[];
}

function decodeTraces(body: OtlpTraces): ExportedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    const service = typeof resource["service.name"] === "string" ? resource["service.name"] : null;
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: hexId(span.traceId),
        spanId: hexId(span.spanId),
        parentSpanId: hexId(span.parentSpanId ?? ""),
        name: span.name,
        kind: span.kind ?? 0,
        attributes: attributesOf(span.attributes),
        statusCode: span.status?.code ?? 0,
        links: (span.links ?? []).map((link) => ({ traceId: hexId(link.traceId), spanId: hexId(link.spanId) })),
      })),
    );
  });
}

function attributesOf(attributes: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

/** OTLP/JSON carries ids as hex; an exporter that base64-encodes them (protobuf's JSON mapping) is read too. */
function hexId(id: string): string {
  if (id === "" || /^[0-9a-f]+$/i.test(id)) return id.toLowerCase();
  return Buffer.from(id, "base64").toString("hex");
}
