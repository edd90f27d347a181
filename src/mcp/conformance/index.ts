/**
 * The `conformance` profile: the fixtures the official conformance suite expects (tools, resources, prompts,
 * completions), served through the same request path as every profile. It exists only with CONFORMANCE_FIXTURES=1
 * (mcp-route.ts; the start banner warns), for the suite's runs; roomd's own tools, resources and prompts are not
 * on it.
 */
import { createCatalog } from "../catalog.ts";
import { lone } from "../splice.ts";
import { type Features, McpFailure, resourceNotFound } from "../surface/types.ts";
import type { Profile } from "../tool.ts";
import { image, PNG, text } from "./content.ts";
import { elicit, inputRequired, responsesOf } from "./mrtr.ts";
import { FIXTURE_TOOLS, STREAMED_TOOLS } from "./tools.ts";

const CATALOG = createCatalog(FIXTURE_TOOLS);

const STATIC: Record<string, { mimeType: string; text?: string; blob?: string; name: string }> = {
  "test://static-text": {
    name: "static-text",
    mimeType: "text/plain",
    text: "This is the content of the static text resource.",
  },
  "test://static-binary": { name: "static-binary", mimeType: "image/png", blob: PNG },
  "test://watched-resource": {
    name: "watched-resource",
    mimeType: "text/plain",
    text: "A resource to subscribe to.",
  },
};

const TEMPLATE = /^test:\/\/template\/([^/]{1,100})\/data$/;

const user = (content: object) => ({ role: "user" as const, content });

const FEATURES: Features = {
  listResources: async () => ({
    resources: Object.entries(STATIC).map(([uri, r]) => ({
      uri,
      name: r.name,
      description: `Fixture ${r.name}`,
      mimeType: r.mimeType,
    })),
  }),
  templates: [
    {
      uriTemplate: "test://template/{id}/data",
      name: "template-data",
      description: "Fixture data by id",
      mimeType: "application/json",
    },
  ],
  readResource: async (_call, uri) => {
    const fixed = STATIC[uri];
    if (fixed) {
      const { name: _name, ...contents } = fixed;
      return { contents: [{ uri, ...contents } as never] };
    }
    const id = TEMPLATE.exec(uri)?.[1];
    if (id === undefined) throw resourceNotFound(uri);
    const data = JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
    return { contents: [{ uri, mimeType: "application/json", text: data }] };
  },
  prompts: [
    { name: "test_simple_prompt", description: "A simple prompt without arguments" },
    {
      name: "test_prompt_with_arguments",
      description: "A prompt with two required arguments",
      arguments: [
        { name: "arg1", description: "First test argument", required: true },
        { name: "arg2", description: "Second test argument", required: true },
      ],
    },
    {
      name: "test_prompt_with_embedded_resource",
      description: "A prompt embedding a resource",
      arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
    },
    { name: "test_prompt_with_image", description: "A prompt with an image" },
    {
      name: "test_input_required_result_prompt",
      description: "A prompt that asks the client for context first (2026-07-28)",
    },
  ],
  getPrompt: async (call, name, args) => {
    switch (name) {
      case "test_simple_prompt":
        return { messages: [user(text("This is a simple prompt for testing."))] };
      case "test_prompt_with_arguments":
        return {
          messages: [
            user(text(`Prompt with arguments: arg1='${args.arg1 ?? ""}', arg2='${args.arg2 ?? ""}'`)),
          ],
        };
      case "test_prompt_with_embedded_resource":
        return {
          messages: [
            user({
              type: "resource",
              resource: {
                uri: args.resourceUri ?? "test://example-resource",
                mimeType: "text/plain",
                text: "Embedded resource content for testing.",
              },
            }),
            user(text("Please process the embedded resource above.")),
          ],
        };
      case "test_prompt_with_image":
        return { messages: [user(image()), user(text("Please analyze the image above."))] };
      case "test_input_required_result_prompt": {
        const answers = responsesOf(call.inputResponses) ?? {};
        if (answers.user_context === undefined)
          return inputRequired({
            user_context: elicit("What context should the prompt use?", { context: { type: "string" } }, [
              "context",
            ]),
          });
        return {
          messages: [
            user(text(`Prompt with context: ${JSON.stringify(answers.user_context.content ?? null)}`)),
          ],
        };
      }
    }
    throw new McpFailure(-32602, `Invalid params: unknown prompt ${name.slice(0, 100)}`);
  },
  complete: async (_call, request) => {
    if (request.ref.type !== "ref/prompt" || request.ref.name !== "test_prompt_with_arguments") return [];
    return ["paris", "park", "party", "test", "testing"].filter((v) => v.startsWith(request.argument.value));
  },
  watchable: async (call, uri) => {
    await FEATURES.readResource(call, uri);
    return null;
  },
};

/** The profile as the route serves it; `streams` says which 2025-era calls must be answered as a stream. */
export function serving() {
  return {
    catalog: CATALOG,
    profile: "full" as Profile,
    features: FEATURES,
    streams: (request: Request, body: unknown): boolean =>
      lone(body, "tools/call") &&
      (request.headers.get("accept") ?? "").includes("text/event-stream") &&
      STREAMED_TOOLS.has(String((body as { params?: { name?: unknown } }).params?.name)),
  };
}
