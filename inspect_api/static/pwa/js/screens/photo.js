// One photo, large, with what a reader needs to weigh it (where it was taken, how far from the site,
// who uploaded it and when): the address e-mailed notices link to for each finding's photo. The bytes
// need the sign-in, so they are fetched here, never opened as a bare API address.
import { h, mount, banner } from "../dom.js";
import { api, listAll, plain } from "../api.js";
import { photoFacts } from "../ui/photos.js";
import { thumbnailLater, thumbnailOnce } from "../ui/photo_urls.js";
import { fetchedLink } from "../ui/files.js";

export async function photoScreen(main, { id }) {
  const urls = [];
  const back = h("p", h("a.back", { href: "#/", onclick: (e) => { if (history.length > 1) { e.preventDefault(); history.back(); } } }, "← Back"));
  mount(main, back, h("h1", "Photo"), h("p.loading", "Loading…"));
  let photo;
  try {
    photo = await api(`/api/v1/photos/${encodeURIComponent(id)}`);
  } catch (err) {
    mount(main, back, h("h1", "Photo"), banner("error", err.offline ? "The photo is on the office server: connect, then open it again." : plain(err)));
    return;
  }
  const img = h("img.large", { alt: `Photo taken ${photo.taken_at || photo.captured_at || ""}`.trim(), width: photo.width, height: photo.height });
  const show = (blob) => {
    const url = URL.createObjectURL(blob);
    urls.push(url);
    img.src = url;
  };
  const processing = h("p.hint", { hidden: true, dataset: { test: "photo-processing" } }, "Processing…");
  // Until the server has made the display image (202), the original stands in (a placeholder for HEIC),
  // and the display image replaces it once it arrives.
  thumbnailOnce(id, "display").then(async (first) => {
    if (first.blob) show(first.blob);
    else if (first.final) img.alt = "The photo cannot be shown here; the original can be saved below.";
    if (first.final) return;
    processing.hidden = false;
    processing.textContent = first.blob ? "Showing the original while the server makes its display image…" : "Processing…";
    const later = await thumbnailLater(id, "display", first.retryAfter);
    processing.hidden = true;
    if (later) show(later);
  }).catch(() => { img.alt = "The photo could not be fetched."; });
  // The viewer (loaded on first use): large, zoomable, with the markup and the other photos of its record.
  const open = async (e) => {
    const opener = e.currentTarget;
    const same = photo.parent_id ? await listAll(`/api/v1/photos?parent_type=${encodeURIComponent(photo.parent_type)}&parent_id=${encodeURIComponent(photo.parent_id)}`)
      .catch(() => []) : [];
    const ids = same.some((p) => p.id === id) ? same.map((p) => p.id) : [id];
    const { openViewer } = await import("../ui/viewer.js");
    openViewer(ids, ids.indexOf(id), { opener });
  };
  mount(main, back, h("h1", "Photo"),
    h("figure.photo-large", { dataset: { photo: id } }, img, processing, h("figcaption", photoFacts(photo))),
    h("div.actions", h("button.primary", { type: "button", dataset: { test: "open-viewer" }, onclick: open }, "Open in the viewer (zoom, markup)"),
      fetchedLink(`/api/v1/photos/${encodeURIComponent(id)}/original`, "The original, as taken",
      `photo-${id}.${(photo.content_type || "image/jpeg").split("/")[1]}`, urls, { test: "original" })));
  return () => urls.forEach((u) => URL.revokeObjectURL(u));
}
