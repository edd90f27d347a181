/**
 * server.json, the entry for the MCP registry: valid against the registry's published schema (vendored in
 * docs/vendor/, the version server.json's $schema names), in step with package.json, and describing what roomd
 * serves — the remote endpoint at /mcp with its host (and tool profile) as template variables and the bearer
 * header.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { PROFILES } from "../src/mcp/tool.ts";

const ROOT = resolve(import.meta.dir, "..");
const read = (path: string) => JSON.parse(readFileSync(join(ROOT, path), "utf8"));
const server = read("server.json");
const schema = read("docs/vendor/mcp-registry-server.schema.json");
const pkg = read("package.json");

// The registry's schemas carry OpenAPI's `example` annotations, which strict mode would refuse as unknown keywords.
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(schema);

describe("server.json", () => {
  test("is valid against the registry schema it names", () => {
    expect(server.$schema).toBe(schema.$id);
    expect(schema.$id).toBe("https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json");
    const valid = validate(server);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  test("the validator refuses what the registry refuses", () => {
    const { name: _name, ...nameless } = server;
    expect(validate(nameless)).toBe(false);
    expect(validate({ ...server, remotes: [{ ...server.remotes[0], url: "roomd.example.com/mcp" }] })).toBe(
      false,
    );
    expect(validate({ ...server, description: "x".repeat(101) })).toBe(false);
  });

  test("is in step with package.json", () => {
    expect(server.version).toBe(pkg.version);
    expect(pkg.repository.url).toBe(`git+${server.repository.url}.git`);
    expect(server.name).toBe(`io.github.${new URL(server.repository.url).pathname.split("/")[1]}/roomd`);
  });

  test("describes the endpoint roomd serves: /mcp, the host and profile as variables, the bearer header", () => {
    const [remote, ...others] = server.remotes;
    expect(others).toEqual([]);
    expect(remote.type).toBe("streamable-http");
    const names = [...remote.url.matchAll(/\{([a-z_]+)\}/g)].map((m: RegExpMatchArray) => m[1]);
    expect(names.sort()).toEqual(Object.keys(remote.variables).sort());
    expect(remote.variables.host.isRequired).toBe(true);
    expect(remote.variables.profile.choices).toEqual([...PROFILES]);
    const url = new URL(remote.url.replace("{host}", "roomd.example.com").replace("{profile}", "compact"));
    expect([url.protocol, url.pathname, url.searchParams.get("profile")]).toEqual([
      "https:",
      "/mcp",
      "compact",
    ]);
    expect(remote.headers).toHaveLength(1);
    const [header] = remote.headers;
    expect(header).toMatchObject({
      name: "Authorization",
      isRequired: true,
      isSecret: true,
      value: "Bearer {roomd_key}",
    });
    expect(header.variables.roomd_key).toMatchObject({ isRequired: true, isSecret: true });
  });
});
