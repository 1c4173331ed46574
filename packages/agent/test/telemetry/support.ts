// An in-memory OpenTelemetry SDK for the telemetry tests: every span started and every span
// exported, and the tree they form.
import type { Context } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type Span,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";

export function memoryTracing() {
  const exporter = new InMemorySpanExporter();
  const started: Span[] = [];
  const watcher: SpanProcessor = {
    onStart: (span: Span, _context: Context) => void started.push(span),
    onEnd: () => {},
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const provider = new BasicTracerProvider({ spanProcessors: [watcher, new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("test");
  return {
    provider,
    tracer,
    /** Exported (ended) spans, in the order they started. */
    spans: (): ReadableSpan[] => {
      const finished = new Set(exporter.getFinishedSpans());
      return started.filter((span) => finished.has(span));
    },
    /** Spans started but never ended: must always be empty once a run is over. */
    open: () => started.filter((span) => !span.ended).map((span) => span.name),
    reset: () => {
      exporter.reset();
      started.length = 0;
    },
  };
}

export function rootOf(spans: readonly ReadableSpan[]): ReadableSpan {
  const roots = spans.filter((span) => span.parentSpanContext === undefined);
  if (roots.length !== 1) throw new Error(`expected one root span, got ${roots.map((s) => s.name)}`);
  return roots[0]!;
}

/** Children in the order they started. */
export function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  const id = parent.spanContext().spanId;
  return spans.filter((span) => span.parentSpanContext?.spanId === id);
}
