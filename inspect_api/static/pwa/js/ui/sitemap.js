// A site map drawn as SVG from coordinates alone (no map tiles, so it works offline): the limit of
// work polygon, the site point, where the inspection was recorded, and each photo's location with
// its accuracy circle, numbered like the photo list, with a scale bar and north arrow.
import { h } from "../dom.js";

const W = 640;
const H = 420;
const PAD = 36;
const M_PER_DEG_LAT = 110574;

function projector(points) {
  const lat0 = points.reduce((s, p) => s + p.lat, 0) / points.length;
  const kx = 111320 * Math.cos((lat0 * Math.PI) / 180);
  const xs = points.map((p) => p.lon * kx);
  const ys = points.map((p) => p.lat * M_PER_DEG_LAT);
  const minX = Math.min(...xs), maxX = Math.max(...xs), minY = Math.min(...ys), maxY = Math.max(...ys);
  const span = Math.max(maxX - minX, maxY - minY, 40);  // at least 40 m across, so one point is not a blur
  const scale = Math.min((W - 2 * PAD) / Math.max(maxX - minX, span * 0.6), (H - 2 * PAD) / Math.max(maxY - minY, span * 0.6));
  const cx = (minX + maxX) / 2, cy = (minY + maxY) / 2;
  return {
    scale,
    at: (p) => [W / 2 + (p.lon * kx - cx) * scale, H / 2 - (p.lat * M_PER_DEG_LAT - cy) * scale],
  };
}

function niceLength(metres) {
  for (const n of [5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000]) if (n >= metres) return n;
  return 10000;
}

const svg = (tag, attrs, ...children) => h(`svg:${tag}`, attrs, ...children);

// site: {lat, lon}; polygon: GeoJSON Polygon or MultiPolygon or null; inspection: {lat, lon}|null;
// photos: [{n, lat, lon, accuracy_m, far}]
export function siteMap({ site, polygon, inspection, photos = [] }) {
  // The outer ring of the (first) polygon: a MultiPolygon's coordinates hold one more level.
  const outer = polygon && polygon.coordinates && (polygon.type === "MultiPolygon" ? (polygon.coordinates[0] || [])[0] : polygon.coordinates[0]);
  const ring = outer ? outer.map(([lon, lat]) => ({ lat, lon })) : [];
  const points = [site, inspection, ...ring, ...photos].filter((p) => p && Number.isFinite(p.lat) && Number.isFinite(p.lon));
  if (!points.length) return h("p.muted", "No coordinates to draw.");
  const { at, scale } = projector(points);
  const bar = niceLength((W / 4) / scale);
  const parts = [svg("rect", { x: 0, y: 0, width: W, height: H, fill: "#f7fbfc" })];
  if (ring.length) {
    parts.push(svg("polygon", { class: "low", points: ring.map((p) => at(p).map((v) => v.toFixed(1)).join(",")).join(" ") },
      svg("title", "Limit of work")));
  }
  for (const p of photos) {
    const [x, y] = at(p);
    if (p.accuracy_m) parts.push(svg("circle", { class: "acc", cx: x.toFixed(1), cy: y.toFixed(1), r: Math.max(4, p.accuracy_m * scale).toFixed(1) }));
  }
  if (site) {
    const [x, y] = at(site);
    parts.push(svg("rect", { class: "sitept", x: (x - 8).toFixed(1), y: (y - 8).toFixed(1), width: 16, height: 16, rx: 3 }, svg("title", "Site point")));
  }
  if (inspection) {
    const [x, y] = at(inspection);
    parts.push(svg("path", { d: `M${x.toFixed(1)} ${(y - 11).toFixed(1)} l9 16 h-18 z`, fill: "#5a2ca0", stroke: "#fff", "stroke-width": 2 },
      svg("title", "Where the inspection was recorded")));
  }
  for (const p of photos) {
    const [x, y] = at(p);
    parts.push(svg("g", { dataset: { photo: p.id || "" } },
      svg("circle", { class: p.far ? "photopt far" : "photopt", cx: x.toFixed(1), cy: y.toFixed(1), r: 11 }, svg("title", `Photo ${p.n}`)),
      svg("text", { x: x.toFixed(1), y: (y + 4.5).toFixed(1), "text-anchor": "middle", fill: "#fff", "font-weight": 700 }, String(p.n))));
  }
  const bx = 20, by = H - 22, len = bar * scale;
  parts.push(svg("line", { class: "scale", x1: bx, y1: by, x2: (bx + len).toFixed(1), y2: by }),
    svg("line", { class: "scale", x1: bx, y1: by - 6, x2: bx, y2: by + 2 }),
    svg("line", { class: "scale", x1: (bx + len).toFixed(1), y1: by - 6, x2: (bx + len).toFixed(1), y2: by + 2 }),
    svg("text", { x: bx, y: by - 10 }, `${bar} m`),
    svg("path", { d: `M${W - 30} 18 l8 20 h-16 z`, fill: "#0d1b22" }), svg("text", { x: W - 34, y: 54 }, "N"));
  return svg("svg", { class: "sitemap", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": `Site map: site point, ${ring.length ? "limit of work, " : ""}${photos.length} photo location${photos.length === 1 ? "" : "s"}` }, parts);
}

export function mapLegend() {
  return h("p.hint", "■ site point   ▲ where the inspection was recorded   ● numbered photo locations (dashed: GPS accuracy)   green: limit of work");
}
