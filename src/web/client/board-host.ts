/**
 * What the board takes from its MCP Apps host and tells it back: the host's theme and style variables (the
 * extension's standard CSS custom properties, which board.css maps onto the room view's colours, each with the
 * room view's own value as fallback), a fixed height when the host sets one, and the board's size as it changes
 * (`ui/notifications/size-changed`), so the host sizes its frame to the board.
 */
import type { Bridge, Params } from "./board-bridge.ts";

const isRecord = (value: unknown): value is Params =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Most style variables taken from a host (the extension defines about seventy). */
const MAX_VARIABLES = 200;

/** Applies a host context, whole or a partial update (`ui/notifications/host-context-changed`). */
export function applyHostContext(context: Params): void {
  const root = document.documentElement;
  if (context.theme === "light" || context.theme === "dark") root.style.colorScheme = context.theme;
  const styles = isRecord(context.styles) ? context.styles : undefined;
  const variables = isRecord(styles?.variables) ? styles.variables : {};
  for (const [name, value] of Object.entries(variables).slice(0, MAX_VARIABLES)) {
    // Only custom properties, set as values (setProperty never parses anything but the one value).
    if (/^--[a-z0-9-]{1,64}$/.test(name) && typeof value === "string" && value.length <= 500)
      root.style.setProperty(name, value);
  }
  const dimensions = isRecord(context.containerDimensions) ? context.containerDimensions : undefined;
  if (dimensions) root.classList.toggle("fixed-height", typeof dimensions.height === "number");
}

/** Tells the host the board's size whenever it changes. */
export function watchSize(bridge: Bridge): void {
  let last = "";
  const report = () => {
    // The body's own box: the document's scroll height never falls below the frame's, so a board that shrinks
    // would keep the height it once had.
    const box = document.body.getBoundingClientRect();
    const size = { width: Math.ceil(box.width), height: Math.ceil(box.height) };
    const key = `${size.width}x${size.height}`;
    if (key === last) return;
    last = key;
    bridge.notify("ui/notifications/size-changed", size);
  };
  new ResizeObserver(report).observe(document.body);
}
