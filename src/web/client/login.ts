/** The sign-in page: posts the key with the form's CSRF token, then goes where the person was going. */
import { ApiError, api, bindSignOut } from "./api.ts";

bindSignOut();

const form = document.getElementById("login-form") as HTMLFormElement | null;
const error = document.getElementById("login-error");
form?.addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = form.elements.namedItem("key") as HTMLInputElement;
  const button = form.querySelector("button");
  if (button) button.disabled = true;
  if (error) error.hidden = true;
  try {
    const next = document.body.dataset.next;
    const answer = await api<{ next: string }>("POST", "/login", {
      key: input.value.trim(),
      ...(next ? { next } : {}),
    });
    location.assign(answer.next);
  } catch (failure) {
    if (error) {
      error.textContent = failure instanceof ApiError ? failure.message : "Could not reach roomd; try again";
      error.hidden = false;
    }
    input.select();
    input.focus();
  } finally {
    if (button) button.disabled = false;
  }
});
