// SHA-256 on the device (SubtleCrypto): the photo's digest as captured, sent with the upload and
// checked by the server, so a photo's integrity is evidence from the moment it is taken.
export async function sha256Hex(buffer) {
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return hex(digest);
}

export async function digestBase64(algorithm, buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest(algorithm, buffer));
  let s = "";
  for (const b of digest) s += String.fromCharCode(b);
  return btoa(s);
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}
