import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { useTraceIds } from "@gw/logger";
import { currentTraceContext, useTracer } from "./spans.ts";

export interface TracingOptions {
  /** `service.name` of every span the process exports (the app: gateway-api, gateway-dispatcher...). */
  service: string;
  /** The variables read: OTEL_EXPORTER_OTLP_ENDPOINT, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, and their headers. */
  env: NodeJS.ProcessEnv;
  /** Longest wait between a span's end and its export (the batch's delay); the SDK's default is 5 s. */
  exportDelayMs?: number;
}

export interface Tracing {
  /** Whether spans are recorded and exported (an endpoint is configured). */
  readonly exporting: boolean;
  /** Exports what is buffered and stops: the last step of a process's stop. */
  shutdown(): Promise<void>;
}

const NOT_EXPORTING: Tracing = { exporting: false, shutdown: () => Promise.resolve() };

/**
 * Turns exporting on for this process when an OTLP endpoint is configured (OTLP/HTTP with JSON bodies, to
 * `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces` or to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given). Without one no SDK
 * is started and nothing is recorded: spans are only contexts, and `traceparent` is still propagated (docs/decisions.md,
 * "Traces"). Either way the log lines written inside a span name it (`trace_id`, `span_id`). Called once, by
 * @gw/process, before the app is built.
 */
export function startTracing(options: TracingOptions): Tracing {
  useTraceIds(currentTraceContext);
  const url = tracesEndpoint(options.env);
  if (url === null) return NOT_EXPORTING;
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.service }),
    spanProcessors: [
      new BatchSpanProcessor(
        // Headers (OTEL_EXPORTER_OTLP_HEADERS) and timeouts are read from the environment by the exporter itself.
        new OTLPTraceExporter({ url }),
        options.exportDelayMs === undefined ? {} : { scheduledDelayMillis: options.exportDelayMs },
      ),
    ],
  });
  const tracer = provider.getTracer("@gw/tracing");
  useTracer(tracer);
  return {
    exporting: true,
    async shutdown() {
      useTracer(null);
      await provider.shutdown();
    },
  };
}

/** Where spans go, by the OpenTelemetry specification's variables; null when none is set. */
export function tracesEndpoint(env: NodeJS.ProcessEnv): string | null {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!base) return null;
  return `${base.replace(/\/+$/, "")}/v1/traces`;
}
