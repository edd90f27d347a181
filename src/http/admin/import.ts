/**
 * POST /admin/rooms/:roomId/import: a new room from an export (NDJSON body, protocol/export-format.ts). The body
 * is read as it streams in, up to IMPORT_MAX_BYTES (413 beyond), and verified whole — every line, the hash chain,
 * the end line — before anything is written: a bad file answers 400 naming its first bad line and creates
 * nothing. The room id must be new (the team's own → 409; another team's reads as missing → 404). A file holding
 * people's acts (messages, decisions, the wheel…) is imported only by a person: an agent's key could otherwise
 * forge them.
 */
import { Hono } from "hono";
import { ImportRefused, readExport } from "../../moving/import-file.ts";
import { RoomError } from "../../protocol/errors.ts";
import { movingErrors } from "../../protocol/moving.ts";
import { personOf } from "../../protocol/principal.ts";
import type { AuthEnv } from "../auth.ts";
import type { AdminDeps } from "./shared.ts";

/** IMPORT_MAX_BYTES when the configuration does not say (256 MiB). */
export const DEFAULT_IMPORT_MAX_BYTES = 256 * 1024 * 1024;

export function importRoutes(deps: AdminDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.post("/rooms/:roomId/import", async (c) => {
    const scope = { roomId: c.req.param("roomId"), teamId: c.get("principal").teamId };
    const max = deps.limits.importMaxBytes ?? DEFAULT_IMPORT_MAX_BYTES;
    const tooLarge = () => c.json({ error: `Request body too large (max ${max} bytes)` }, 413);
    const declared = Number(c.req.header("content-length") ?? Number.NaN);
    if (declared > max) return tooLarge();
    // Refused before the upload is read when the id is taken already (the import checks again, atomically).
    if ((await deps.store.roomInfo(scope)).exists) throw movingErrors.importTargetExists(scope.roomId);
    const raw = c.req.raw.body;
    if (!raw) return c.json({ error: "line 1: the file is empty" }, 400);
    let file: Awaited<ReturnType<typeof readExport>>;
    try {
      file = await readExport(raw, max);
    } catch (error) {
      if (!(error instanceof ImportRefused)) throw error;
      return error.status === 413 ? tooLarge() : c.json({ error: error.message }, 400);
    }
    try {
      if (file.namesPeople && personOf(c.get("principal")) === undefined) {
        throw new RoomError(
          "forbidden",
          "This room holds people's acts (messages, decisions, the driver…): only a person can import it (a person's key, an operator key or the sign-on proxy)",
        );
      }
      await deps.store.importRoom(scope, file);
    } finally {
      file.close();
    }
    const { header, end } = file;
    return c.json(
      {
        roomId: scope.roomId,
        head: header.head,
        ...(header.trimmedBefore === undefined ? {} : { trimmedBefore: header.trimmedBefore }),
        counts: end.counts,
        stateHash: end.stateHash,
        headHash: end.headHash,
      },
      201,
    );
  });
  return app;
}
