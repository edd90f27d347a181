import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnvFile, storeSettings } from "./main.ts";

test("an environment file names a store as roomd would read it", () => {
  expect(
    parseEnvFile(
      "# roomd\nexport STORE=redis\nREDIS_URL='redis://h:1'\n\nAPI_KEYS=\"t1:0123456789abcdef\"\nbad line\n",
    ),
  ).toEqual({
    STORE: "redis",
    REDIS_URL: "redis://h:1",
    API_KEYS: "t1:0123456789abcdef",
  });
  const dir = mkdtempSync(join(tmpdir(), "roomd-env-"));
  const file = join(dir, "roomd.env");
  writeFileSync(file, "SQLITE_PATH=/srv/roomd.sqlite\nEVENT_RETENTION_MAX=10\n");
  expect(storeSettings(`env:${file}`)).toMatchObject({ store: "sqlite", sqlitePath: "/srv/roomd.sqlite" });
  writeFileSync(file, "STORE=redis\n");
  expect(() => storeSettings(`env:${file}`)).toThrow("REDIS_URL: required when STORE=redis");
  expect(storeSettings("sqlite:///x.sqlite")).toEqual({ store: "sqlite", sqlitePath: "/x.sqlite" });
});
