/** Context operations of the Redis store. */
import { PAYLOAD_SCHEMAS, validatePayload } from "../../protocol/payloads.ts";
import { CONTEXT_TYPES, type ContextType } from "../../protocol/records.ts";
import { contextFields, fieldTerms, jsonText, type SearchFields } from "../../protocol/search.ts";
import type { RoomStore } from "../types.ts";
import type { Call } from "./call.ts";
import { byCreation, type SearchTerms, toEntry } from "./records.ts";
import { ScriptRefusal } from "./run.ts";

type ContextOps = Pick<
  RoomStore,
  "writeContext" | "readContext" | "contextHistory" | "listContext" | "updateContext"
>;

/**
 * The context types a payload is valid for. The entry's type lives in Redis, so the script checks membership
 * in this set: one round trip, and nothing is written when the payload does not fit.
 */
const validTypes = (payload: unknown): ContextType[] =>
  CONTEXT_TYPES.filter((type) => PAYLOAD_SCHEMAS[type].safeParse(payload).success);

/** Search terms of the summary and payload an update changes, none when it changes neither. */
function changedTerms(summary: string | undefined, payload: unknown): SearchTerms | undefined {
  const fields: SearchFields = [];
  if (summary !== undefined) fields.push(["summary", summary]);
  if (payload !== undefined) fields.push(["payload", jsonText(payload)]);
  return fields.length === 0 ? undefined : fieldTerms(fields);
}

export function contextOps(call: Call): ContextOps {
  return {
    async writeContext(scope, input) {
      const { value } = await call(scope, "WRITE_CONTEXT", {
        ctype: input.type,
        author: input.author,
        summary: input.summary,
        agentsJson: input.consuming_agents,
        payload: input.payload,
        terms: fieldTerms(contextFields(input)),
      });
      return toEntry(value);
    },

    async readContext(scope, id) {
      return toEntry((await call(scope, "READ_CONTEXT", { id })).value);
    },

    async contextHistory(scope, id) {
      return (await call(scope, "CONTEXT_HISTORY", { id })).value;
    },

    async listContext(scope, filter) {
      const { value } = await call(scope, "LIST_CONTEXT", { ctype: filter.type, author: filter.author });
      return value.map(toEntry).sort(byCreation);
    },

    async updateContext(scope, input) {
      const fields: { summary?: string; consuming_agents?: string[] } = {};
      if (input.summary !== undefined) fields.summary = input.summary;
      if (input.consuming_agents !== undefined) fields.consuming_agents = input.consuming_agents;
      try {
        const { value } = await call(
          scope,
          "UPDATE_CONTEXT",
          {
            id: input.id,
            author: input.author,
            fields,
            payload: input.payload,
            validFor: input.payload === undefined ? "" : validTypes(input.payload).join(" "),
            expected: input.expectedVersion,
            terms: changedTerms(input.summary, input.payload),
          },
          ["payload"],
        );
        return toEntry(value);
      } catch (err) {
        if (!(err instanceof ScriptRefusal)) throw err;
        const type = err.reply.type as ContextType;
        validatePayload(type, input.payload);
        // Unreachable unless the schemas disagree with validTypes: refuse rather than write unvalidated data.
        throw new Error(`payload refused for ${type} but validates`);
      }
    },
  };
}
