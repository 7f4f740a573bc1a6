// Sign in. After the first sign-in the app opens offline with the saved session.
import { h, mount, field } from "../dom.js";
import { login, currentUser } from "../auth.js";
import { go } from "../router.js";
import { homePath } from "../ui/nav.js";
import { syncNow } from "../sync.js";

export async function loginScreen(main) {
  const user = currentUser();
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true,
    value: user && user.expired ? user.email : "" });
  const password = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  const message = h("div", { "aria-live": "polite" });
  const submit = h("button.primary", { type: "submit" }, "Sign in");
  const form = h("form.card.login", { novalidate: true },
    h("h1", "Sign in"),
    h("p.muted", "Inspectors, supervisors and applicants of the Fairhaven Stormwater Authority."),
    field("E-mail", email), field("Password", password), message, h("div.actions", submit),
    h("p.hint", "New applicant? ", h("a", { href: "#/register" }, "Create an account"), ". Inspector and supervisor accounts are made by the Town's administrator."));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!navigator.onLine) {
      mount(message, h("div.banner.warn", "Signing in needs a connection once; after that the app works offline."));
      return;
    }
    submit.disabled = true;
    mount(message);
    try {
      const session = await login(email.value.trim(), password.value);
      go(homePath(session.user));
      syncNow("login");
    } catch (err) {
      mount(message, h("div.banner.error", err.status === 401 ? "E-mail or password is wrong." : err.message || "Sign-in failed."));
    } finally {
      submit.disabled = false;
    }
  });
  mount(main, form);
  email.focus();
}
