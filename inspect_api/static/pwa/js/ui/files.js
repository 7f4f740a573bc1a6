// Uploaded documents (application plans, final report files): the bytes need the sign-in token, so a
// document is fetched when the user asks for it and handed to the browser as a local file. Nothing is
// fetched before the click (plans run to tens of megabytes) and nothing stays in memory after it.
// Also the chooser that picks a file to send.
import { h, mount } from "../dom.js";
import { raw, plain } from "../api.js";

const TYPE_WORDS = { "application/pdf": "PDF", "image/jpeg": "JPEG image", "image/png": "PNG image",
  "image/webp": "WebP image", "image/heic": "HEIC image" };

export function sizeText(bytes) {
  if (!bytes && bytes !== 0) return "";
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.ceil(bytes / 1024))} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function fileWords(doc) {
  return [TYPE_WORDS[doc.content_type] || "File", sizeText(doc.bytes)].filter(Boolean).join(", ");
}

// Fetches `url` with the sign-in token and hands it to the browser as the file `filename`; the local
// copy is let go a minute later.
export async function saveFile(url, filename) {
  const blob = await (await raw(url)).blob();
  const href = URL.createObjectURL(blob);
  const a = h("a", { href, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60000);
}

// A link to a small file the API serves only with the sign-in token (a PDF of a record): fetched as the
// link is drawn and offered as a local file; `urls` collects the local copies for the screen to let go.
export function fetchedLink(url, text, filename, urls, data = {}) {
  const link = h("a.button", { "aria-disabled": "true", dataset: data }, text);
  raw(url).then((r) => r.blob()).then((blob) => {
    const objectUrl = URL.createObjectURL(blob);
    urls.push(objectUrl);
    link.href = objectUrl;
    link.download = filename;
    link.removeAttribute("aria-disabled");
  }).catch((err) => { link.textContent = `${text}: ${err.offline ? "needs a connection" : plain(err)}`; });
  return link;
}

// A button that downloads `doc` (with `url`, `filename`): "Open ESC plan.pdf".
export function downloadButton(doc) {
  const note = h("span.hint", { "aria-live": "polite" });
  const button = h("button", { type: "button", dataset: { download: doc.id } }, `Open ${doc.filename}`);
  button.addEventListener("click", async () => {
    button.disabled = true;
    mount(note, "Fetching…");
    try {
      await saveFile(doc.url, doc.filename);
      mount(note);
    } catch (err) {
      mount(note, `Could not fetch the file: ${plain(err)}`);
    } finally {
      button.disabled = false;
    }
  });
  return h("span.download", button, " ", note);
}

// A file input styled as a button, with the chosen file's name beside it.
export function fileChooser(text, accept) {
  const input = h("input", { type: "file", accept, "aria-label": text });
  const name = h("span.hint", { "aria-live": "polite" }, "No file chosen");
  input.addEventListener("change", () => { name.textContent = input.files && input.files[0] ? input.files[0].name : "No file chosen"; });
  return { input, el: h("span.photo-input", h("span.file-button", h("span.button", { "aria-hidden": "true" }, text), input), " ", name) };
}
