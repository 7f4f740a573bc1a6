// Applicant sign-up (POST /auth/register makes an applicant account), then the usual sign-in.
// Staff accounts are made by an administrator; the screen says so.
import { h, mount, field, banner } from "../dom.js";
import { login, currentUser } from "../auth.js";
import { go } from "../router.js";
import { homePath } from "../ui/nav.js";
import { syncNow } from "../sync.js";

// The server's rule (auth/passwords.py, NIST SP 800-63B): 12 characters or more, and not easy to guess,
// which only the server judges (against common passwords and the account's own name and e-mail).
const MIN_PASSWORD = 12;

// The server's field errors in the form's words: {"email": ["..."]} -> "E-mail: ...".
const NAMES = { email: "E-mail", name: "Your name", password: "Password" };
function fieldErrors(errors) {
  return Object.entries(errors || {}).flatMap(([key, list]) => (Array.isArray(list) ? list : [String(list)])
    .map((text) => `${NAMES[key] || key}: ${text}`));
}

export async function registerScreen(main) {
  if (currentUser() && !currentUser().expired) { go(homePath()); return; }
  const name = h("input", { type: "text", name: "name", autocomplete: "name", required: true });
  const email = h("input", { type: "email", name: "email", autocomplete: "email", required: true });
  const password = h("input", { type: "password", name: "password", autocomplete: "new-password", required: true, minlength: MIN_PASSWORD });
  const again = h("input", { type: "password", name: "password2", autocomplete: "new-password", required: true });
  const message = h("div", { "aria-live": "polite" });
  const submit = h("button.primary", { type: "submit" }, "Create account");
  const form = h("form.card.login", { novalidate: true },
    h("h1", "Create an applicant account"),
    h("p.muted", "For owners, builders and engineers who apply for land disturbance reviews and permits in Fairhaven."),
    field("Your name", name), field("E-mail", email),
    field("Password", password, `At least ${MIN_PASSWORD} characters, and hard to guess: a few uncommon words together work well; not your name or e-mail.`), field("Password again", again),
    message, h("div.actions", submit),
    h("p.hint", "Already have an account? ", h("a", { href: "#/login" }, "Sign in"), ". Inspector and supervisor accounts are made by the Town's administrator."));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const problems = [];
    if (!name.value.trim()) problems.push("Enter your name.");
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email.value.trim())) problems.push("Enter your e-mail address.");
    if (password.value.length < MIN_PASSWORD) problems.push(`Choose a password of at least ${MIN_PASSWORD} characters.`);
    else if (password.value !== again.value) problems.push("The two passwords differ.");
    if (problems.length) { mount(message, banner("error", problems.map((p) => h("p", p)))); return; }
    if (!navigator.onLine) { mount(message, banner("warn", "Creating an account needs a connection. Connect, then try again.")); return; }
    submit.disabled = true;
    mount(message);
    try {
      const response = await fetch("/api/v1/auth/register", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: name.value.trim(), email: email.value.trim(), password: password.value }) });
      if (!response.ok) {
        let body = {};
        try { body = await response.json(); } catch { body = {}; }
        const details = fieldErrors(body.errors);
        const taken = response.status === 409 || (body.error || "").includes("exists");
        mount(message, banner("error", taken ? "An account with this e-mail already exists. Sign in instead, or use another address."
          : body.message || "The account could not be created.", details.map((d) => h("p", d))));
        return;
      }
      const session = await login(email.value.trim(), password.value);
      go(homePath(session.user));
      syncNow("login");
    } catch {
      mount(message, banner("error", "No connection to the office server. Try again when you are online."));
    } finally {
      submit.disabled = false;
    }
  });
  mount(main, form);
  name.focus();
}
