/**
 * Tracing's settings from the standard OpenTelemetry variables (read by config.ts, the only reader of the
 * environment). Tracing is on only when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT, or the traces one),
 * and OTEL_SDK_DISABLED / OTEL_TRACES_EXPORTER=none turn it off again. roomd exports OTLP over HTTP as JSON:
 * OTEL_EXPORTER_OTLP_PROTOCOL may say `http/json`; any other protocol is refused at start-up rather than ignored.
 */
import { z } from "zod";

export type SamplerName =
  | "always_on"
  | "always_off"
  | "traceidratio"
  | "parentbased_always_on"
  | "parentbased_always_off"
  | "parentbased_traceidratio";

export interface TracingSettings {
  /** Where spans are sent: the traces endpoint as given, or `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
  url: string;
  /** Sent with every export (authentication tokens, typically). */
  headers: Record<string, string>;
  /** service.name (OTEL_SERVICE_NAME, default roomd). */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES. */
  resourceAttributes: Record<string, string>;
  sampler: SamplerName;
  /** OTEL_TRACES_SAMPLER_ARG for the ratio samplers (default 1). */
  ratio: number;
  /** ms between two exports of finished spans (OTEL_BSP_SCHEDULE_DELAY; roomd's default 1000). */
  scheduleDelayMs: number;
}

const SAMPLERS: readonly SamplerName[] = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
];

/** `key=value,key2=value2` (W3C Baggage-like; values percent-decoded), or undefined when malformed. */
export function parsePairs(text: string): Record<string, string> | undefined {
  const pairs: Record<string, string> = {};
  for (const part of text.split(",")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    if (eq <= 0) return undefined;
    const key = part.slice(0, eq).trim();
    try {
      pairs[key] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return undefined;
    }
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~/-]+$/.test(key)) return undefined;
  }
  return pairs;
}

const endpoint = z
  .string()
  .optional()
  .refine((v) => v === undefined || v === "" || /^https?:\/\/[^\s]+$/.test(v), {
    error: "must be an http:// or https:// URL (an OTLP/HTTP receiver, e.g. http://collector:4318)",
  });

/** Headers hold secrets: the message says what is wrong and never shows the value. */
const headers = z
  .string()
  .optional()
  .refine((v) => v === undefined || parsePairs(v) !== undefined, {
    error: "must be key=value pairs separated by commas (values percent-encoded)",
  });

const protocol = z
  .string()
  .optional()
  .refine((v) => v === undefined || v === "" || v === "http/json", {
    error: "roomd exports OTLP over HTTP as JSON: set http/json or leave it unset",
  });

/** The OTEL_* variables, merged into config.ts's schema. */
export const tracingEnv = {
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_HEADERS: headers,
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: headers,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
  OTEL_SERVICE_NAME: z.string().max(256).optional(),
  OTEL_RESOURCE_ATTRIBUTES: z
    .string()
    .optional()
    .refine((v) => v === undefined || parsePairs(v) !== undefined, {
      error: "must be key=value pairs separated by commas (values percent-encoded)",
    }),
  OTEL_TRACES_SAMPLER: z
    .enum(SAMPLERS as [SamplerName, ...SamplerName[]], { error: `must be one of ${SAMPLERS.join(", ")}` })
    .optional(),
  OTEL_TRACES_SAMPLER_ARG: z.coerce
    .number({ error: "must be a number from 0 to 1" })
    .min(0, { error: "must be a number from 0 to 1" })
    .max(1, { error: "must be a number from 0 to 1" })
    .optional(),
  OTEL_BSP_SCHEDULE_DELAY: z.coerce
    .number({ error: "must be a whole number of milliseconds from 10 to 60000" })
    .int({ error: "must be a whole number of milliseconds from 10 to 60000" })
    .min(10, { error: "must be a whole number of milliseconds from 10 to 60000" })
    .max(60_000, { error: "must be a whole number of milliseconds from 10 to 60000" })
    .optional(),
  OTEL_TRACES_EXPORTER: z.enum(["otlp", "none"], { error: "must be otlp or none" }).optional(),
  OTEL_SDK_DISABLED: z.enum(["true", "false", ""], { error: "must be true or false" }).optional(),
};

type TracingEnv = { [K in keyof typeof tracingEnv]?: z.output<(typeof tracingEnv)[K]> };

/** The traces URL: the traces endpoint as is, or the base endpoint with /v1/traces appended. */
function tracesUrl(e: TracingEnv): string | undefined {
  if (e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!e.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  return `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
}

/** Tracing's settings, or null when tracing is off (the default). */
export function tracingSettings(e: TracingEnv): TracingSettings | null {
  const url = tracesUrl(e);
  if (!url || e.OTEL_SDK_DISABLED === "true" || e.OTEL_TRACES_EXPORTER === "none") return null;
  return {
    url,
    headers: {
      ...parsePairs(e.OTEL_EXPORTER_OTLP_HEADERS ?? ""),
      ...parsePairs(e.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? ""),
    },
    serviceName: e.OTEL_SERVICE_NAME || "roomd",
    resourceAttributes: parsePairs(e.OTEL_RESOURCE_ATTRIBUTES ?? "") ?? {},
    sampler: e.OTEL_TRACES_SAMPLER ?? "parentbased_always_on",
    ratio: e.OTEL_TRACES_SAMPLER_ARG ?? 1,
    scheduleDelayMs: e.OTEL_BSP_SCHEDULE_DELAY ?? 1000,
  };
}
