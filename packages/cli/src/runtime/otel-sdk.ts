// The OpenTelemetry SDK as the CLI runs it: a tracer provider with a batch processor and an OTLP
// over HTTP exporter (protobuf or JSON), registered as the global provider @tern/agent's runs
// trace through. The exporter reads the standard variables itself (OTEL_EXPORTER_OTLP_ENDPOINT,
// _TRACES_ENDPOINT, _HEADERS, _TIMEOUT, _COMPRESSION); the resource takes OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. Loaded only by tracing.ts, only when an endpoint is set.

import { DiagLogLevel, diag, trace } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { VERSION } from "../version.js";
import type { OtlpProtocol } from "./tracing.js";

/** The longest the CLI waits at exit for the last spans to reach the collector. */
export const FLUSH_CEILING_MS = 5_000;
const DEFAULT_SERVICE_NAME = "tern";

export interface Tracing {
  /** Sends the spans still queued and stops the SDK; never rejects, never waits past FLUSH_CEILING_MS. */
  shutdown(): Promise<void>;
}

export function startSdk(protocol: OtlpProtocol, warn: (message: string) => void): Tracing {
  // The SDK reports export failures through diag; the first failure reaches the user, once.
  let warned = false;
  const warnOnce = (message: string) => {
    if (warned) return;
    warned = true;
    warn(`tracing: ${message}`);
  };
  diag.setLogger(
    {
      error: warnOnce,
      warn: () => {},
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true },
  );
  const exporter = protocol === "http/json" ? new JsonExporter() : new ProtobufExporter();
  // Later merges win: the SDK's own attributes, then tern's name, then OTEL_SERVICE_NAME and
  // OTEL_RESOURCE_ATTRIBUTES.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": DEFAULT_SERVICE_NAME, "service.version": VERSION }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  let done: Promise<void> | undefined;
  return {
    shutdown() {
      done ??= withCeiling(provider.shutdown()).then((sent) => {
        // A collector that does not answer (down, wrong port) leaves the exporter retrying.
        if (!sent)
          warnOnce(`the last spans were not sent within ${FLUSH_CEILING_MS / 1000} s; is the collector up?`);
        trace.disable();
        diag.disable();
      });
      return done;
    },
  };
}

/** True when `work` settled before the ceiling. */
function withCeiling(work: Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ceiling = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), FLUSH_CEILING_MS);
    timer.unref();
  });
  const settled = work.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, ceiling]).finally(() => clearTimeout(timer));
}
