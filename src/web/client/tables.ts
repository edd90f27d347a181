/**
 * Tables that fold on a phone: below 640 px each row is a card of its cells (style.css), each cell led by its
 * column's heading, so every action in a row (Delete, Revoke) is on screen without scrolling a table sideways.
 * The heading reaches the cell as a data-label attribute (set here, shown by CSS `attr()`): text, never markup.
 */

/** Gives every cell of the table's body the heading of its column (none for a column headed for screen readers only). */
export function labelCells(table: HTMLTableElement): void {
  const heads = [...table.querySelectorAll("thead th")].map((th) =>
    th.querySelector(".sr") ? "" : (th.textContent ?? "").trim(),
  );
  for (const row of table.tBodies[0]?.rows ?? []) {
    if (row.cells.length !== heads.length) continue; // a message spanning the row
    [...row.cells].forEach((cell, i) => {
      cell.dataset.label = heads[i] ?? "";
    });
  }
}
