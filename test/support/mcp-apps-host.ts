/**
 * A fake MCP Apps host, written from the ext-apps specification (2026-01-26), for the room board's browser test. A
 * web host, so it works as the ext-apps specification asks of one:
 *
 * - the host page (origin http://127.0.0.1:<port>) is the MCP client: it lists roomd's tools, reads the `ui://`
 *   resource a tool's `_meta.ui.resourceUri` names, calls the tool, and proxies the view's `tools/call` and
 *   `resources/read` to roomd — refusing a tool whose `_meta.ui.visibility` leaves out "app". Its MCP requests go
 *   through this server (`POST /rpc`), which adds the person's key, as a real host's backend would;
 * - the sandbox proxy (origin http://localhost:<port>: another origin) is served with the restrictive default CSP
 *   of the ext-apps specification, tells the host `ui/notifications/sandbox-proxy-ready`, takes the view's HTML from
 *   `ui/notifications/sandbox-resource-ready`, renders it in an inner iframe (srcdoc, the same CSP as a meta tag
 *   at its top) and passes every other message between host and view;
 * - the host answers `ui/initialize` with its capabilities and context, and once the view says
 *   `ui/notifications/initialized` sends `ui/notifications/tool-input` then `ui/notifications/tool-result`.
 *
 * What the host saw is kept in `window.__host` (the view's tool calls, refusals, errors) for the test to read.
 */
import { freePort } from "./redis-server.ts";

/** The ext-apps specification's default CSP for a view that declares no `ui.csp`. */
export const DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; object-src 'none'; base-uri 'self'";

const HOST_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>fake MCP Apps host</title></head>
<body><h1>Conversation</h1><div id="frame"></div><script src="/host.js"></script></body></html>`;

const SANDBOX_PAGE = `<!doctype html><html><head><meta charset="utf-8"></head>
<body style="margin:0;height:100vh"><script src="/sandbox.js"></script></body></html>`;

const SANDBOX_JS = `
const CSP = ${JSON.stringify(DEFAULT_CSP)};
let inner;
window.addEventListener("message", (event) => {
  const message = event.data;
  if (!message || message.jsonrpc !== "2.0") return;
  if (event.source === window.parent) {
    if (message.method === "ui/notifications/sandbox-resource-ready") {
      inner = document.createElement("iframe");
      inner.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
      inner.style.cssText = "border:0;width:100%;height:100%;display:block";
      const meta = '<meta http-equiv="Content-Security-Policy" content="' + CSP + '">';
      inner.srcdoc = message.params.html.replace(/<head>/i, "<head>" + meta);
      document.body.appendChild(inner);
      return;
    }
    if (inner && !String(message.method || "").startsWith("ui/notifications/sandbox-"))
      inner.contentWindow.postMessage(message, "*");
    return;
  }
  if (inner && event.source === inner.contentWindow && !String(message.method || "").startsWith("ui/notifications/sandbox-"))
    window.parent.postMessage(message, "*");
});
window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, "*");
`;

const HOST_JS = `
const state = (window.__host = { calls: [], refused: [], errors: [], initialized: false, resource: null });
const params = new URLSearchParams(location.search);
const roomId = params.get("room");
let nextRpc = 1;
async function rpc(method, rpcParams) {
  const res = await fetch("/rpc", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextRpc++, method, params: rpcParams }),
  });
  const body = await res.json();
  if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
  return body.result;
}
(async () => {
  const { tools } = await rpc("tools/list", {});
  const tool = tools.find((t) => t.name === "show_room_board");
  const uri = tool._meta.ui.resourceUri;
  const read = await rpc("resources/read", { uri });
  const content = read.contents[0];
  state.resource = { uri, mimeType: content.mimeType, meta: content._meta || null };
  const args = { roomId };
  const called = rpc("tools/call", { name: tool.name, arguments: args });
  const appTools = new Map(tools.map((t) => [t.name, (t._meta && t._meta.ui && t._meta.ui.visibility) || ["model", "app"]]));
  const frame = document.createElement("iframe");
  frame.id = "sandbox";
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  frame.style.cssText = "border:1px solid #ccc;width:100%;height:600px";
  frame.src = "http://localhost:" + location.port + "/sandbox.html";
  const send = (message) => frame.contentWindow.postMessage({ jsonrpc: "2.0", ...message }, "*");
  window.addEventListener("message", async (event) => {
    if (event.source !== frame.contentWindow) return;
    const m = event.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.method === "ui/notifications/sandbox-proxy-ready") return send({ method: "ui/notifications/sandbox-resource-ready", params: { html: content.text } });
    if (m.method === "ui/notifications/size-changed") { frame.style.height = Math.min(m.params.height, 4000) + "px"; return; }
    if (m.method === "ui/notifications/initialized") {
      state.initialized = true;
      send({ method: "ui/notifications/tool-input", params: { arguments: args } });
      try { send({ method: "ui/notifications/tool-result", params: await called }); }
      catch (e) { state.errors.push(String(e)); }
      return;
    }
    if (m.id === undefined) return;
    if (m.method === "ui/initialize") {
      return send({ id: m.id, result: {
        protocolVersion: "2026-01-26",
        hostInfo: { name: "fake-host", version: "1.0.0" },
        hostCapabilities: { serverTools: {}, serverResources: {}, logging: {} },
        hostContext: { toolInfo: { tool }, theme: "light", displayMode: "inline", availableDisplayModes: ["inline"],
          containerDimensions: { maxHeight: 4000 }, platform: "web", locale: "en-US",
          styles: { variables: { "--color-text-info": "#1d4ed8" } } },
      } });
    }
    if (m.method === "tools/call") {
      const visibility = appTools.get(m.params && m.params.name);
      if (!visibility || !visibility.includes("app")) {
        state.refused.push(m.params && m.params.name);
        return send({ id: m.id, error: { code: -32601, message: "This tool is not callable from the app" } });
      }
    }
    if (m.method === "tools/call" || m.method === "resources/read" || m.method === "ping") {
      state.calls.push(m.method === "tools/call" ? m.params.name : m.method);
      try { return send({ id: m.id, result: await rpc(m.method, m.params) }); }
      catch (e) { state.errors.push(String(e)); return send({ id: m.id, error: { code: e.code || -32603, message: String(e.message) } }); }
    }
    send({ id: m.id, error: { code: -32601, message: "Method not found: " + m.method } });
  });
  document.getElementById("frame").appendChild(frame);
})().catch((e) => state.errors.push(String(e)));
`;

export interface FakeHost {
  /** The host page for a room. */
  pageUrl(roomId: string): string;
  stop(): Promise<void>;
}

/** Starts the host's server: its pages, and `/rpc`, which forwards to roomd's `/mcp` with the person's key. */
export async function startFakeHost(roomd: string, personKey: string): Promise<FakeHost> {
  const port = await freePort();
  const js = (body: string) => new Response(body, { headers: { "Content-Type": "text/javascript" } });
  const server = Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname === "/host.html")
        return new Response(HOST_PAGE, { headers: { "Content-Type": "text/html" } });
      if (pathname === "/host.js") return js(HOST_JS);
      if (pathname === "/sandbox.html")
        return new Response(SANDBOX_PAGE, {
          headers: { "Content-Type": "text/html", "Content-Security-Policy": DEFAULT_CSP },
        });
      if (pathname === "/sandbox.js") return js(SANDBOX_JS);
      if (pathname === "/rpc" && request.method === "POST") {
        const answer = await fetch(`${roomd}/mcp`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${personKey}`,
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
          },
          body: await request.text(),
        });
        return new Response(await answer.text(), { headers: { "Content-Type": "application/json" } });
      }
      return new Response("not found", { status: 404 });
    },
  });
  return {
    pageUrl: (roomId) => `http://127.0.0.1:${port}/host.html?room=${encodeURIComponent(roomId)}`,
    stop: () => server.stop(true),
  };
}
