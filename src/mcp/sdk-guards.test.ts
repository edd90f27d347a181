import { describe, expect, test } from "bun:test";
import {
  InitializeRequestSchema,
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCErrorResponseSchema,
  JSONRPCMessageSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { safeParse } from "zod/v4/core";
import { installGuards } from "./sdk-guards.ts";

installGuards();

const call = { name: "get_shared_var", arguments: { roomId: "r", key: "port" } };
/** Messages a server sees and sends, well-formed and not, including ones only zod can settle. */
const MESSAGES: unknown[] = [
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: call },
  { method: "tools/call", params: call, jsonrpc: "2.0", id: "abc" },
  { jsonrpc: "2.0", id: 1, method: "tools/list" },
  { jsonrpc: "2.0", id: 1.5, method: "tools/list" },
  { jsonrpc: "2.0", id: 2 ** 60, method: "tools/list" },
  { jsonrpc: "2.0", id: null, method: "tools/list" },
  { jsonrpc: "2.0", method: "tools/list" },
  { jsonrpc: "1.0", id: 1, method: "tools/list" },
  { jsonrpc: "2.0", id: 1, method: "tools/list", extra: true },
  { jsonrpc: "2.0", id: 1, method: 5 },
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: [] },
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: null },
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...call, _meta: { progressToken: 3 } } },
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...call, _meta: { progressToken: {} } } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  },
  { jsonrpc: "2.0", id: 0, method: "initialize", params: {} },
  { result: { content: [{ type: "text", text: "{}" }] }, jsonrpc: "2.0", id: 1 },
  { result: { content: [], structuredContent: { a: 1 } }, jsonrpc: "2.0", id: "x" },
  { result: {}, jsonrpc: "2.0", id: 1 },
  { result: { _meta: { a: 1 } }, jsonrpc: "2.0", id: 1 },
  { result: { _meta: 5 }, jsonrpc: "2.0", id: 1 },
  { result: [], jsonrpc: "2.0", id: 1 },
  { result: null, jsonrpc: "2.0", id: 1 },
  { result: {}, jsonrpc: "2.0" },
  { result: {}, jsonrpc: "2.0", id: 1, error: { code: 1, message: "m" } },
  { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } },
  { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } },
  { jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "m" } },
  null,
  "text",
  42,
  [],
  [{ jsonrpc: "2.0", id: 1, method: "tools/list" }],
  {},
];

describe("the SDK's type guards", () => {
  test("answer exactly as zod does, for every message", () => {
    for (const message of MESSAGES) {
      const zod = (schema: unknown) => safeParse(schema as never, message).success;
      expect([message, isJSONRPCRequest(message)]).toEqual([message, zod(JSONRPCRequestSchema)]);
      expect([message, isJSONRPCResultResponse(message)]).toEqual([
        message,
        zod(JSONRPCResultResponseSchema),
      ]);
      expect([message, isJSONRPCErrorResponse(message)]).toEqual([message, zod(JSONRPCErrorResponseSchema)]);
      expect([message, isInitializeRequest(message)]).toEqual([message, zod(InitializeRequestSchema)]);
    }
  });

  test("the message union parses as zod does: same members, or the same refusal", () => {
    for (const message of MESSAGES) {
      const zod = safeParse(JSONRPCMessageSchema as never, message);
      if (zod.success) {
        expect(JSONRPCMessageSchema.parse(message)).toEqual(zod.data as never);
      } else {
        expect(() => JSONRPCMessageSchema.parse(message)).toThrow();
      }
    }
  });

  test("a settled refusal still carries zod's error", () => {
    const refused = JSONRPCResultResponseSchema.safeParse({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.length).toBeGreaterThan(0);
  });
});
