/**
 * The first-run banner (docs/security.md#network-exposure): the operator key is shown once, for the person; agents
 * get their own keys, bound to their agent ids, minted with the command the banner prints, and every snippet reads
 * the agent's key from ROOMD_KEY. The printed command is followed exactly as a person would, and the key it yields is
 * tried.
 */
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { httpClient } from "../support/http.ts";
import { spawnServer } from "../support/server.ts";

type Json = Record<string, any>;

test("the banner shows the operator key once and gives each agent a bound key through ROOMD_KEY; a restart prints one line", async () => {
  const dir = mkdtempSync(join(tmpdir(), "roomd-onboard-"));
  const server = await spawnServer({ SQLITE_PATH: join(dir, "roomd.sqlite") });
  try {
    await Bun.sleep(200);
    const out = server.output();
    const operatorKey = (await Bun.file(join(dir, "operator.key")).text()).trim();
    // Shown once, and nowhere in the configuration an agent gets.
    expect(out.split(operatorKey)).toHaveLength(2);
    const connect = out.slice(out.indexOf("Give each agent"));
    expect(connect).not.toContain(operatorKey);
    expect(connect).toContain("the operator key is yours, not your agents'");
    for (const needle of [
      "export ROOMD_KEY=",
      `--header 'Authorization: Bearer \${ROOMD_KEY}'`,
      `"Authorization": "Bearer \${ROOMD_KEY}"`,
      `"Authorization": "Bearer \${env:ROOMD_KEY}"`,
      'bearer_token_env_var = "ROOMD_KEY"',
    ]) {
      expect(connect).toContain(needle);
    }

    // The printed mint command, as the person runs it: the operator key comes from the file it names.
    const line = connect.split("\n").find((l) => l.trim().startsWith("curl "));
    const match = /curl -s -X POST (\S+) -H "Authorization: Bearer \$\(cat '([^']+)'\)" -d '([^']+)'/.exec(
      line ?? "",
    );
    expect(match).not.toBeNull();
    const [, url, keyFile, body] = match as unknown as [string, string, string, string];
    expect(keyFile).toBe(join(dir, "operator.key"));
    const port = new URL(server.url).port;
    expect(url).toBe(`http://localhost:${port}/admin/keys`);
    const minted = await fetch(`${server.url}/admin/keys`, {
      method: "POST",
      headers: { Authorization: `Bearer ${(await Bun.file(keyFile).text()).trim()}` },
      body: body.replace("<agent-id>", "backend-claude"),
    });
    expect(minted.status).toBe(201);
    const { secret, boundAgentId } = (await minted.json()) as Json;
    expect(boundAgentId).toBe("backend-claude");

    // The agent's key acts as that agent only, and cannot mint keys of its own.
    const http = httpClient(server.url);
    expect((await http.get("/admin/me", secret)).body).toMatchObject({
      teamId: "local",
      boundAgentId: "backend-claude",
    });
    expect((await http.post("/admin/keys", secret, {})).status).toBe(403);
    const heartbeat = await http.tool(secret, "heartbeat", {
      roomId: "onboard-room",
      agentId: "someone-else",
    });
    expect(heartbeat.text).toContain("This key is bound to agent backend-claude");
  } finally {
    await server.stop();
  }

  // A restart says in one line where the key and the agents' configuration are, and shows neither again.
  const again = await spawnServer({ SQLITE_PATH: join(dir, "roomd.sqlite") });
  try {
    await Bun.sleep(200);
    const out = again.output();
    const banner = out.split("\n").filter((l) => l.startsWith("roomd is running on"));
    expect(banner).toEqual([
      `roomd is running on http://localhost:${new URL(again.url).port} (store: sqlite); sign in with the key in ${join(dir, "operator.key")}; agents' configuration: http://localhost:${new URL(again.url).port}/dashboard, "Connect an agent"`,
    ]);
    expect(out).not.toContain((await Bun.file(join(dir, "operator.key")).text()).trim());
    expect(out).not.toContain("Give each agent");
  } finally {
    await again.stop();
  }
});
