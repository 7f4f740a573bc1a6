// What a JPEG's camera wrote about the shot, read on the device before the photo is uploaded: the time
// it was taken and its GPS position (the server reads the same tags, photos/rules.py, once it has it).
// Only the tags the viewer shows; anything malformed gives nulls, never an error.
const SOI = 0xffd8;
const APP1 = 0xffe1;
const TYPE_SIZE = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8 };

function tiffAt(view) {
  if (view.byteLength < 4 || view.getUint16(0) !== SOI) return null;
  let at = 2;
  while (at + 4 <= view.byteLength) {
    const marker = view.getUint16(at);
    const size = view.getUint16(at + 2);
    if (marker === APP1 && at + 10 <= view.byteLength && view.getUint32(at + 4) === 0x45786966) return at + 10;  // "Exif"
    if ((marker & 0xff00) !== 0xff00 || marker === 0xffda) return null;  // image data starts: no EXIF before it
    at += 2 + size;
  }
  return null;
}

function readIfd(view, tiff, offset, little) {
  const tags = new Map();
  const start = tiff + offset;
  if (start + 2 > view.byteLength) return tags;
  const count = view.getUint16(start, little);
  for (let i = 0; i < count; i += 1) {
    const entry = start + 2 + i * 12;
    if (entry + 12 > view.byteLength) break;
    const tag = view.getUint16(entry, little);
    const type = view.getUint16(entry + 2, little);
    const n = view.getUint32(entry + 4, little);
    const bytes = (TYPE_SIZE[type] || 1) * n;
    const data = bytes > 4 ? tiff + view.getUint32(entry + 8, little) : entry + 8;
    if (data + bytes > view.byteLength) continue;
    tags.set(tag, value(view, type, n, data, little));
  }
  return tags;
}

function value(view, type, n, at, little) {
  if (type === 2) return String.fromCharCode(...new Uint8Array(view.buffer, view.byteOffset + at, n)).replace(/\0+$/, "");
  const out = [];
  for (let i = 0; i < n; i += 1) {
    if (type === 3) out.push(view.getUint16(at + i * 2, little));
    else if (type === 4) out.push(view.getUint32(at + i * 4, little));
    else if (type === 5) { const d = view.getUint32(at + i * 8 + 4, little); out.push(d ? view.getUint32(at + i * 8, little) / d : NaN); }
    else out.push(view.getUint8(at + i));
  }
  return n === 1 ? out[0] : out;
}

function degrees(dms, ref, negative) {
  if (!Array.isArray(dms) || dms.length !== 3 || !dms.every(Number.isFinite)) return null;
  const v = dms[0] + dms[1] / 60 + dms[2] / 3600;
  return Math.round((ref === negative ? -v : v) * 1e6) / 1e6;
}

// DateTimeOriginal "2026:05:04 10:15:00" (with OffsetTimeOriginal "-04:00" when the camera wrote one)
// → "2026-05-04T10:15:00-04:00"; without an offset it is the camera's clock, read as the device's zone.
// The same tags the server reads (photos/exif.py), so the time shown does not change on upload.
function exifTime(text, offset) {
  const m = /^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})/.exec(text || "");
  if (!m) return null;
  const zone = /^[+-]\d{2}:\d{2}$/.test(offset || "") ? offset : "";
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${zone}`;
}

// {taken_at, gps: {lat, lon} | null} from the JPEG's bytes (an ArrayBuffer).
export function readExif(bytes) {
  const none = { taken_at: null, gps: null };
  try {
    const view = new DataView(bytes);
    const tiff = tiffAt(view);
    if (tiff === null) return none;
    const little = view.getUint16(tiff) === 0x4949;
    const ifd0 = readIfd(view, tiff, view.getUint32(tiff + 4, little), little);
    const exif = ifd0.has(0x8769) ? readIfd(view, tiff, ifd0.get(0x8769), little) : new Map();
    const gpsTags = ifd0.has(0x8825) ? readIfd(view, tiff, ifd0.get(0x8825), little) : new Map();
    const lat = degrees(gpsTags.get(2), gpsTags.get(1), "S");
    const lon = degrees(gpsTags.get(4), gpsTags.get(3), "W");
    const usable = lat !== null && lon !== null && Math.abs(lat) <= 90 && Math.abs(lon) <= 180 && !(lat === 0 && lon === 0);
    return { taken_at: exifTime(exif.get(0x9003), exif.get(0x9011)), gps: usable ? { lat, lon } : null };
  } catch {
    return none;
  }
}
