/**
 * GET /rooms/:roomId/export: the room as NDJSON (protocol/export-format.ts), streamed as it is read — the
 * snapshot first, then the log page by page — so a room of any size costs bounded memory. Any key of the owning
 * team (bound or not) and its people may export; an invite may not (the file holds every agent's cursors and the
 * whole history, beyond what a guest needs). Another team's room, an unknown one: 404.
 */
import { Hono } from "hono";
import { openExport } from "../../moving/export.ts";
import { errors, RoomError } from "../../protocol/errors.ts";
import type { AuthEnv } from "../auth.ts";
import { untimed } from "../stream-slots.ts";
import { type RoomRouteDeps, scopeOf } from "./shared.ts";

const encoder = new TextEncoder();

export function exportRoutes(deps: RoomRouteDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.get("/:roomId/export", async (c) => {
    const scope = scopeOf(c);
    if (c.get("principal").kind === "invite") {
      throw new RoomError("forbidden", "Invites cannot export a room: use a key of the owning team");
    }
    const opened = await openExport(deps.store, scope, deps.now());
    if (!opened) throw errors.denied();
    const lines = opened.lines();
    // A failure mid-way ends the body without its end line: an import of what arrived is refused.
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const next = await lines.next();
            if (next.done) controller.close();
            else controller.enqueue(encoder.encode(next.value));
          } catch (error) {
            controller.error(error);
          }
        },
        async cancel() {
          await lines.return(undefined);
        },
      },
      { highWaterMark: 16 },
    );
    // A big room takes a while: the server's idle timeout must not cut the download.
    untimed(c);
    return new Response(body, {
      headers: {
        "Content-Type": "application/x-ndjson",
        "Content-Disposition": `attachment; filename="${scope.roomId}.roomd.ndjson"`,
        "Cache-Control": "no-store",
      },
    });
  });
  return app;
}
