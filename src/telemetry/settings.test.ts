import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../config.ts";

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return "";
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
};

describe("tracing settings", () => {
  test("off by default, and when disabled or the exporter is none", () => {
    expect(loadConfig({}).tracing).toBeNull();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: "true" }).tracing).toBeNull();
    expect(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }).tracing).toBeNull();
  });

  test("the base endpoint gets /v1/traces; the traces endpoint is used as given and wins", () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).tracing).toEqual({
      url: "http://collector:4318/v1/traces",
      headers: {},
      serviceName: "roomd",
      resourceAttributes: {},
      sampler: "parentbased_always_on",
      ratio: 1,
      scheduleDelayMs: 1000,
    });
    const both = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example/otlp/spans",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc,x-team=a",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-team=b",
      OTEL_SERVICE_NAME: "roomd-eu",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_BSP_SCHEDULE_DELAY: "250",
    }).tracing;
    expect(both).toEqual({
      url: "https://traces.example/otlp/spans",
      headers: { authorization: "Bearer abc", "x-team": "b" },
      serviceName: "roomd-eu",
      resourceAttributes: { "deployment.environment": "prod" },
      sampler: "parentbased_traceidratio",
      ratio: 0.25,
      scheduleDelayMs: 250,
    });
  });

  test("another protocol, a bad endpoint or bad headers stop start-up, never echoing the headers", () => {
    const text = problems({
      OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_HEADERS: "secret-token-without-a-key",
      OTEL_TRACES_SAMPLER_ARG: "2",
      OTEL_BSP_SCHEDULE_DELAY: "5",
    });
    expect(text).toContain(
      "OTEL_BSP_SCHEDULE_DELAY: must be a whole number of milliseconds from 10 to 60000",
    );
    expect(text).toContain("OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:// or https:// URL");
    expect(text).toContain("OTEL_EXPORTER_OTLP_PROTOCOL: roomd exports OTLP over HTTP as JSON");
    expect(text).toContain("OTEL_EXPORTER_OTLP_HEADERS: must be key=value pairs");
    expect(text).toContain("OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1");
    expect(text).not.toContain("secret-token-without-a-key");
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })
        .tracing?.url,
    ).toBe("http://c:4318/v1/traces");
  });
});
