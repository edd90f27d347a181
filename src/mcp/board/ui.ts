/**
 * The room board as an MCP App (the `io.modelcontextprotocol/ui` extension, ext-apps specification 2026-01-26):
 * the one `ui://` resource (resource.ts, the document of board-html.ts) and how tools point at it. Hosts that render
 * MCP Apps read the resource and show `show_room_board`'s results in it; every other client reads the tool's text.
 */
import type { ToolUi } from "../tool.ts";

export const BOARD_URI = "ui://roomd/board.html";
/** The MIME type the extension gives an MCP App's HTML. */
export const APP_MIME = "text/html;profile=mcp-app";

/** The board's tool: the model calls it, and the host renders its result in the board. */
export const BOARD_UI: ToolUi = { resourceUri: BOARD_URI };
/** A tool only the board calls (its poll, people's acts): hosts list it to no model. */
export const BOARD_APP_ONLY: ToolUi = { resourceUri: BOARD_URI, visibility: ["app"] };
