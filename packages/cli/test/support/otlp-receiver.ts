// A loopback OTLP/HTTP trace receiver for the tests: records every export request (path, headers,
// raw body) and answers 200 like a collector. JSON exports are decoded into plain spans; protobuf
// ones are kept as bytes (tests look for the strings protobuf carries verbatim).
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface OtlpRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};

type Attribute = { key: string; value: AnyValue };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
}

export async function startOtlpReceiver() {
  const requests: OtlpRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
      const json = String(req.headers["content-type"]).includes("json");
      res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      res.end(json ? "{}" : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Every span of every JSON export. */
    spans: (): ReceivedSpan[] => requests.flatMap((request) => decodeJson(request.body)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function value(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(value);
  return undefined;
}

function attributes(list: Attribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, value(a.value)]));
}

function decodeJson(body: Buffer): ReceivedSpan[] {
  const parsed = JSON.parse(body.toString("utf8")) as {
    resourceSpans: {
      resource?: { attributes?: Attribute[] };
      scopeSpans: {
        spans: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes?: Attribute[];
          events?: { name: string; attributes?: Attribute[] }[];
          status?: { code?: number; message?: string };
        }[];
      }[];
    }[];
  };
  return parsed.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        attributes: attributes(span.attributes),
        events: (span.events ?? []).map((e) => ({ name: e.name, attributes: attributes(e.attributes) })),
        status: span.status ?? {},
        resource: attributes(rs.resource?.attributes),
      })),
    ),
  );
}

export type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;
