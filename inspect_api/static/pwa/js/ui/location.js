// A site's point, for the distance from where the device is now that the sites list and the day list show.
export function siteLocation(permit) {
  const loc = permit.site && permit.site.location;
  return loc && typeof loc.lat === "number" ? { lat: loc.lat, lon: loc.lon } : null;
}
