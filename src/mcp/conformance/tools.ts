/**
 * The conformance fixture tools (the names and answers the official suite expects), defined like every roomd tool
 * and called through the same call path; each answers a whole MCP result (RawResult). Served only on
 * `?profile=conformance` with CONFORMANCE_FIXTURES=1.
 */
import { z } from "zod";
import { McpFailure } from "../surface/types.ts";
import { defineTool, RawResult, type RequestIO, type ToolDefinition } from "../tool.ts";
import { image, text, WAV } from "./content.ts";
import { MRTR_TOOLS } from "./mrtr-tools.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fixture: no arguments unless given, no room, reads nothing. */
function fixture(
  name: string,
  description: string,
  handler: (args: Record<string, string>, io: RequestIO | undefined) => Promise<Record<string, unknown>>,
  input: z.ZodObject = z.strictObject({}),
): ToolDefinition {
  return defineTool({
    name,
    title: name,
    description,
    returns: "fixture content",
    input,
    effect: "read",
    room: false,
    roundTrips: 0,
    example: async () => ({}),
    handler: async (args, call) => new RawResult(await handler(args as Record<string, string>, call.io)),
  });
}

const content = (...blocks: object[]) => ({ content: blocks });

/** A question to the 2025 client over the call's stream (its answer's text), refused without one. */
async function ask(io: RequestIO | undefined, method: string, params: Record<string, unknown>) {
  if (!io?.ask)
    throw new McpFailure(
      -32603,
      `This fixture asks the client (${method}): call it with Accept: text/event-stream`,
    );
  return JSON.stringify(await io.ask(method, params));
}

const COMMON = [
  fixture("test_simple_text", "Answers a simple text.", async () =>
    content(text("This is a simple text response for testing.")),
  ),
  fixture("test_image_content", "Answers an image.", async () => content(image())),
  fixture("test_audio_content", "Answers audio.", async () =>
    content({ type: "audio", data: WAV, mimeType: "audio/wav" }),
  ),
  fixture("test_embedded_resource", "Answers an embedded resource.", async () =>
    content({
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content.",
      },
    }),
  ),
  fixture("test_multiple_content_types", "Answers text, an image and a resource.", async () =>
    content(text("Multiple content types test:"), image(), {
      type: "resource",
      resource: {
        uri: "test://mixed-content-resource",
        mimeType: "application/json",
        text: '{"test":"data","value":123}',
      },
    }),
  ),
  fixture("test_error_handling", "Always fails.", async () => ({
    isError: true,
    content: [text("This tool intentionally returns an error for testing")],
  })),
  fixture("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100.", async (_a, io) => {
    for (const progress of [0, 50, 100]) {
      if (io?.progressToken !== undefined)
        await io.notify("notifications/progress", { progressToken: io.progressToken, progress, total: 100 });
      if (progress < 100) await sleep(50);
    }
    return content(text("Progress reported: 0, 50, 100 of 100"));
  }),
  fixture(
    "test_trigger_tool_change",
    "roomd's tool list never changes while it runs: nothing to notify.",
    async () => content(text("The tool list is fixed; no list_changed notification follows")),
  ),
];

/** Log notifications: always in the 2025 era (no per-request level there), only when asked in 2026-07-28. */
async function logThree(io: RequestIO | undefined) {
  const may = io !== undefined && (io.era === "legacy" || io.logLevel !== undefined);
  for (const [i, data] of [
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
  ].entries()) {
    if (may) await io.notify("notifications/message", { level: "info", logger: "conformance", data });
    if (i < 2) await sleep(50);
  }
  return content(text("Logged three messages"));
}

const prompt = z.strictObject({ prompt: z.string() });
const message = z.strictObject({ message: z.string() });

const LEGACY = [
  fixture("test_tool_with_logging", "Sends three info log messages.", async (_a, io) => logThree(io)),
  fixture(
    "test_sampling",
    "Asks the client for a completion.",
    async (a, io) =>
      content(
        text(
          `LLM response: ${await ask(io, "sampling/createMessage", { messages: [{ role: "user", content: text(a.prompt ?? "") }], maxTokens: 100 })}`,
        ),
      ),
    prompt,
  ),
  fixture(
    "test_elicitation",
    "Asks the user for a name and an email.",
    async (a, io) =>
      content(
        text(
          `User response: ${await ask(io, "elicitation/create", {
            message: a.message,
            requestedSchema: {
              type: "object",
              properties: {
                username: { type: "string", description: "User's response" },
                email: { type: "string", description: "User's email address" },
              },
              required: ["username", "email"],
            },
          })}`,
        ),
      ),
    message,
  ),
  fixture(
    "test_elicitation_sep1034_defaults",
    "Asks with a default for every primitive type.",
    async (_a, io) =>
      content(
        text(
          `Elicitation completed: ${await ask(io, "elicitation/create", {
            message: "Please review and update the form fields with defaults",
            requestedSchema: {
              type: "object",
              properties: {
                name: { type: "string", description: "User name", default: "John Doe" },
                age: { type: "integer", description: "User age", default: 30 },
                score: { type: "number", description: "User score", default: 95.5 },
                status: {
                  type: "string",
                  description: "User status",
                  enum: ["active", "inactive", "pending"],
                  default: "active",
                },
                verified: { type: "boolean", description: "Verification status", default: true },
              },
            },
          })}`,
        ),
      ),
  ),
  fixture("test_elicitation_sep1330_enums", "Asks with every enum shape.", async (_a, io) =>
    content(
      text(
        `Elicitation completed: ${await ask(io, "elicitation/create", {
          message: "Please select options from the enum fields",
          requestedSchema: {
            type: "object",
            properties: {
              untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
              titledSingle: {
                type: "string",
                oneOf: [
                  { const: "value1", title: "First Option" },
                  { const: "value2", title: "Second Option" },
                  { const: "value3", title: "Third Option" },
                ],
              },
              legacyEnum: {
                type: "string",
                enum: ["opt1", "opt2", "opt3"],
                enumNames: ["Option One", "Option Two", "Option Three"],
              },
              untitledMulti: {
                type: "array",
                items: { type: "string", enum: ["option1", "option2", "option3"] },
              },
              titledMulti: {
                type: "array",
                items: {
                  anyOf: [
                    { const: "value1", title: "First Choice" },
                    { const: "value2", title: "Second Choice" },
                    { const: "value3", title: "Third Choice" },
                  ],
                },
              },
            },
          },
        })}`,
      ),
    ),
  ),
];

const MODERN = [
  fixture(
    "test_logging_tool",
    "Logs three messages when the request asked for logs (_meta log level).",
    async (_a, io) => logThree(io),
  ),
  fixture("test_missing_capability", "Needs the client's sampling capability.", async (_a, io) => {
    if (io?.clientCapabilities.sampling === undefined)
      throw new McpFailure(
        -32021,
        "Missing required client capability: sampling",
        { requiredCapabilities: { sampling: {} } },
        400,
      );
    return content(text("The client declared sampling"));
  }),
];

/** Every fixture tool, in a fixed order. */
export const FIXTURE_TOOLS: readonly ToolDefinition[] = [...COMMON, ...LEGACY, ...MODERN, ...MRTR_TOOLS];

/** The 2025-era fixtures whose answer must be a stream (they notify or ask the client). */
export const STREAMED_TOOLS: ReadonlySet<string> = new Set([
  "test_tool_with_progress",
  "test_tool_with_logging",
  "test_sampling",
  "test_elicitation",
  "test_elicitation_sep1034_defaults",
  "test_elicitation_sep1330_enums",
]);
