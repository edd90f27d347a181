/** The board's `ui://` resource as resources/list names it and resources/read answers it (both eras). */
import type { ListedResource, ResourceContents } from "../surface/types.ts";
import { boardHtml } from "./board-html.ts";
import { APP_MIME, BOARD_URI } from "./ui.ts";

/**
 * The resource's `_meta.ui`: no `csp` (the board loads nothing and connects nowhere, so the hosts' restrictive
 * default fits), and a border, as it is a panel of its own in a conversation.
 */
const RESOURCE_META = { ui: { prefersBorder: true } };

/** The board's entry in resources/list. */
export const BOARD_RESOURCE: ListedResource = {
  uri: BOARD_URI,
  name: "room-board",
  title: "Room board",
  description:
    "The room board MCP Apps hosts show show_room_board's results in: tasks, who is here, claims, the wheel, pending approvals and recent events, kept current.",
  mimeType: APP_MIME,
  _meta: RESOURCE_META,
};

/** resources/read of the board: the same document for every key. */
export async function readBoardResource(): Promise<{ contents: ResourceContents[] }> {
  return {
    contents: [{ uri: BOARD_URI, mimeType: APP_MIME, text: await boardHtml(), _meta: RESOURCE_META }],
  };
}
