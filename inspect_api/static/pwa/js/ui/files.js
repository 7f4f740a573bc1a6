// Uploaded documents (application plans, final report files) and the PDFs the Town issues: the bytes
// need the sign-in token, so a file is fetched with it and handed to the browser as a local copy. A
// file the browser can show (PDF, images) opens in a new tab to be read; "Save a copy" keeps it on the
// device. Nothing is fetched before the click for uploaded documents (plans run to tens of
// megabytes) and nothing stays in memory after it. Also the chooser that picks a file to send.
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
  keep(await (await raw(url)).blob(), filename);
}

// Types a browser shows in a tab of its own; anything else is saved.
const SHOWN = new Set(["application/pdf", "image/jpeg", "image/png", "image/webp"]);
const shown = (type) => SHOWN.has((type || "").split(";")[0].trim().toLowerCase());

// A link to a small file the API serves only with the sign-in token (a PDF of a record): fetched as the
// link is drawn; the link opens the local copy in a new tab to read, and "Save a copy" beside it keeps
// it on the device as `filename`. `urls` collects the local copies for the screen to let go.
export function fetchedLink(url, text, filename, urls, data = {}) {
  const link = h("a.button", { "aria-disabled": "true", dataset: data }, text);
  const save = h("a.button", { "aria-disabled": "true", hidden: true, dataset: { save: filename },
    "aria-label": `Save a copy of ${filename}` }, "Save a copy");
  raw(url).then((r) => r.blob()).then((blob) => {
    const objectUrl = URL.createObjectURL(blob);
    urls.push(objectUrl);
    link.href = objectUrl;
    if (shown(blob.type)) {
      link.target = "_blank";
      link.rel = "noopener";
      save.href = objectUrl;
      save.download = filename;
      save.hidden = false;
      save.removeAttribute("aria-disabled");
    } else link.download = filename;
    link.removeAttribute("aria-disabled");
  }).catch((err) => { link.textContent = `${text}: ${err.offline ? "needs a connection" : plain(err)}`; });
  return h("span.file-links", link, " ", save);
}

// Opens `url` (fetched with the sign-in token) in a new tab when the browser can show its type, else
// saves it as `filename`. The tab is opened at the click, before the fetch, so no pop-up blocker
// stops it; it is closed again if the file turns out to be one to save, or could not be fetched.
export async function showFile(url, filename) {
  const tab = window.open("", "_blank");
  if (tab) tab.opener = null;
  try {
    const blob = await (await raw(url)).blob();
    if (!tab || !shown(blob.type)) {
      if (tab) tab.close();
      return keep(blob, filename);
    }
    const href = URL.createObjectURL(blob);
    tab.location.href = href;
    setTimeout(() => URL.revokeObjectURL(href), 60000);
    return "shown";
  } catch (err) {
    if (tab) tab.close();
    throw err;
  }
}

function keep(blob, filename) {
  const href = URL.createObjectURL(blob);
  const a = h("a", { href, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60000);
  return "saved";
}

// Buttons for an uploaded document `doc` (with `url`, `filename`, `content_type`): "Open esc-plan.pdf"
// shows it in a new tab when the browser can (else saves it), "Save a copy" keeps it on the device.
export function downloadButton(doc) {
  const note = h("span.hint", { "aria-live": "polite" });
  const fetching = (button, work) => async () => {
    button.disabled = true;
    mount(note, "Fetching…");
    try {
      await work();
      mount(note);
    } catch (err) {
      mount(note, `Could not fetch the file: ${plain(err)}`);
    } finally {
      button.disabled = false;
    }
  };
  const open = h("button", { type: "button", dataset: { download: doc.id } }, `Open ${doc.filename}`);
  open.addEventListener("click", fetching(open, () => showFile(doc.url, doc.filename)));
  const save = h("button", { type: "button", dataset: { save: doc.id }, "aria-label": `Save a copy of ${doc.filename}` }, "Save a copy");
  save.addEventListener("click", fetching(save, () => saveFile(doc.url, doc.filename)));
  return h("span.download", open, " ", shown(doc.content_type) ? save : null, " ", note);
}

// A file input styled as a button, with the chosen file's name beside it.
export function fileChooser(text, accept) {
  const input = h("input", { type: "file", accept, "aria-label": text });
  const name = h("span.hint", { "aria-live": "polite" }, "No file chosen");
  input.addEventListener("change", () => { name.textContent = input.files && input.files[0] ? input.files[0].name : "No file chosen"; });
  return { input, el: h("span.photo-input", h("span.file-button", h("span.button", { "aria-hidden": "true" }, text), input), " ", name) };
}
