/**
 * The conformance fixtures of multi round-trip requests (2026-07-28): each asks the client for input with an
 * `input_required` result and completes when the retry brings the answers (and, where it gave one, the
 * requestState it sealed). A request for input the client did not declare it can give is refused with -32021.
 */
import { z } from "zod";
import { McpFailure } from "../surface/types.ts";
import { defineTool, RawResult, type RequestIO, type ToolDefinition } from "../tool.ts";
import { text } from "./content.ts";
import { elicit, type InputRequests, inputRequired, listRoots, opened, responsesOf, sample } from "./mrtr.ts";

type Step = (io: RequestIO) => Record<string, unknown>;

const CAPABILITY: Record<string, string> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/** Refuses input requests for capabilities the client did not declare (-32021, naming them). */
function requireCapabilities(io: RequestIO, requests: InputRequests): void {
  const missing = [...new Set(Object.values(requests).map((r) => CAPABILITY[r.method] as string))].filter(
    (c) => io.clientCapabilities[c] === undefined,
  );
  if (missing.length > 0)
    throw new McpFailure(
      -32021,
      `Missing required client capability: ${missing.join(", ")}`,
      { requiredCapabilities: Object.fromEntries(missing.map((c) => [c, {}])) },
      400,
    );
}

/** Asks for `requests` until every one is answered, then completes with `done(answers)`. */
function askAll(
  requests: InputRequests,
  done: (answers: Record<string, Record<string, unknown>>) => string,
  sealed = false,
): Step {
  return (io) => {
    requireCapabilities(io, requests);
    const state = opened(io.requestState);
    const answers = responsesOf(io.inputResponses) ?? {};
    const missing = Object.keys(requests).filter((key) => answers[key] === undefined);
    if (missing.length > 0 || (sealed && state === undefined))
      return inputRequired(requests, sealed ? { round: 1 } : undefined);
    return { content: [text(done(answers))] };
  };
}

const said = (answer: Record<string, unknown> | undefined) =>
  JSON.stringify(answer?.content ?? answer ?? null);

const name = elicit("What is your name?", { name: { type: "string" } }, ["name"]);

const STEPS: Record<string, Step> = {
  test_input_required_result_elicitation: askAll({ user_name: name }, (a) => `Hello, ${said(a.user_name)}!`),
  test_streaming_elicitation: askAll({ user_name: name }, (a) => `Hello, ${said(a.user_name)}!`),
  test_input_required_result_sampling: askAll(
    { capital_question: sample("What is the capital of France?", 100) },
    (a) => `Sampling said: ${said(a.capital_question)}`,
  ),
  test_input_required_result_list_roots: askAll(
    { client_roots: listRoots() },
    (a) => `Roots: ${JSON.stringify(a.client_roots?.roots ?? [])}`,
  ),
  test_input_required_result_request_state: askAll(
    { confirm: elicit("Please confirm", { ok: { type: "boolean" } }, ["ok"]) },
    () => "state-ok: the echoed requestState was verified",
    true,
  ),
  test_input_required_result_tampered_state: askAll(
    { confirm: elicit("Please confirm", { ok: { type: "boolean" } }, ["ok"]) },
    () => "state-ok",
    true,
  ),
  test_input_required_result_multiple_inputs: askAll(
    { user_name: name, greeting: sample("Generate a greeting", 50), client_roots: listRoots() },
    (a) => `Got ${said(a.user_name)}, ${said(a.greeting)} and ${JSON.stringify(a.client_roots?.roots ?? [])}`,
    true,
  ),
  test_input_required_result_multi_round: (io) => {
    const state = opened(io.requestState);
    const answers = responsesOf(io.inputResponses) ?? {};
    if (state?.round === 1 && answers.step1 !== undefined)
      return inputRequired(
        { step2: elicit("Step 2: What is your favorite color?", { color: { type: "string" } }, ["color"]) },
        { round: 2, step1: answers.step1 },
      );
    if (state?.round === 2 && answers.step2 !== undefined)
      return {
        content: [text(`Done: ${said(state.step1 as Record<string, unknown>)} then ${said(answers.step2)}`)],
      };
    return inputRequired(
      { step1: elicit("Step 1: What is your name?", { name: { type: "string" } }, ["name"]) },
      { round: 1 },
    );
  },
  test_input_required_result_capabilities: (io) => {
    const offered: InputRequests = {};
    if (io.clientCapabilities.sampling !== undefined) offered.greeting = sample("Generate a greeting", 50);
    if (io.clientCapabilities.elicitation !== undefined) offered.user_name = name;
    if (io.clientCapabilities.roots !== undefined) offered.client_roots = listRoots();
    const answers = responsesOf(io.inputResponses) ?? {};
    if (Object.keys(offered).length === 0 || Object.keys(offered).every((k) => answers[k] !== undefined))
      return { content: [text("Asked only for what the client declared")] };
    return inputRequired(offered);
  },
};

/** The fixtures above as tools (no arguments; their input comes in the request's inputResponses). */
export const MRTR_TOOLS: readonly ToolDefinition[] = Object.entries(STEPS).map(([toolName, step]) =>
  defineTool({
    name: toolName,
    title: toolName,
    description: "Conformance fixture: asks the client for input with an input_required result (2026-07-28).",
    returns: "input_required, then fixture content",
    input: z.strictObject({}),
    effect: "read",
    room: false,
    roundTrips: 0,
    example: async () => ({}),
    handler: async (_a, call) => {
      if (call.io?.era !== "modern")
        throw new McpFailure(
          -32601,
          "This fixture answers only 2026-07-28 requests (multi round-trip results)",
        );
      return new RawResult(step(call.io));
    },
  }),
);
