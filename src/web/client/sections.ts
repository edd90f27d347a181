/**
 * Re-rendering a part of a page in place when what it shows changed: the part is rebuilt only when its data's
 * signature differs from the last one, and the value and focus of its form fields (by their data-key) survive the
 * rebuild, so a live update never eats what a person is typing.
 */
import { type Child, replace } from "./dom.ts";

const signatures = new WeakMap<HTMLElement, string>();

export function render(node: HTMLElement, data: unknown, build: () => Child[]): void {
  const signature = JSON.stringify(data);
  if (signatures.get(node) === signature) return;
  signatures.set(node, signature);
  const values = new Map<string, string>();
  for (const field of node.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
    "input[data-key], textarea[data-key], select[data-key]",
  )) {
    values.set(field.dataset.key as string, field.value);
  }
  const active = document.activeElement;
  const focused = active instanceof HTMLElement && node.contains(active) ? active.dataset.key : undefined;
  replace(node, ...build());
  for (const field of node.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
    "input[data-key], textarea[data-key], select[data-key]",
  )) {
    const value = values.get(field.dataset.key as string);
    if (value !== undefined) field.value = value;
  }
  if (focused !== undefined) {
    for (const candidate of node.querySelectorAll<HTMLElement>("[data-key]")) {
      if (candidate.dataset.key === focused) {
        candidate.focus();
        break;
      }
    }
  }
}
