/** The raw JSON-RPC tools/call the load makes, with its outcome classified as ok, error or unknown. */
import { postTool } from "../http.ts";
import type { CallRecord, Ledger } from "./ledger.ts";

/** A parsed JSON object, as tools answer with and take. */
export type Json = Record<string, any>;

/** A call's outcome: the parsed tool result when ok, else the error text. */
export type CallResult = { outcome: "ok"; value: Json } | { outcome: "error" | "unknown"; error: string };

/** One raw JSON-RPC tools/call with a deadline; never throws, records the call in the ledger. */
export async function callTool(
  ledger: Ledger,
  options: { secret: string; timeoutMs: number; unknownIf?: (call: CallRecord) => boolean },
  url: string,
  agent: string,
  tool: string,
  args: Json,
): Promise<CallResult> {
  const record: CallRecord = { agent, url, tool, startedAt: Date.now(), endedAt: 0, outcome: "unknown" };
  let result: CallResult;
  try {
    const res = await postTool(url, options.secret, tool, args, AbortSignal.timeout(options.timeoutMs));
    record.status = res.status;
    const body = (await res.json().catch(() => undefined)) as Json | undefined;
    const text: string | undefined = body?.result?.content?.[0]?.text;
    if (res.status !== 200 || text === undefined) {
      // An HTTP-level failure (5xx, non-JSON-RPC answer): roomd may have done part of the work, so unknown.
      result = { outcome: "unknown", error: `HTTP ${res.status}: ${JSON.stringify(body).slice(0, 200)}` };
    } else if (body?.result?.isError === true) {
      result = { outcome: "error", error: text };
    } else {
      result = { outcome: "ok", value: JSON.parse(text) };
    }
  } catch (error) {
    const e = error as { code?: string; name?: string; message?: string };
    // Refused: the request never reached roomd. Anything else (timeout, reset mid-request) may have been applied.
    const refused = e.code === "ECONNREFUSED" || e.code === "ConnectionRefused";
    result = { outcome: refused ? "error" : "unknown", error: `${e.code ?? e.name}: ${e.message}` };
  }
  record.endedAt = Date.now();
  if (result.outcome === "error" && options.unknownIf?.({ ...record, error: result.error })) {
    result = { outcome: "unknown", error: result.error };
  }
  record.outcome = result.outcome;
  if (result.outcome !== "ok") record.error = result.error;
  ledger.calls.push(record);
  return result;
}
