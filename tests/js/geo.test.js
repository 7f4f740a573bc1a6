// Location on the device: the distance shown beside a site, and which fix stamps a photo.
import { test } from "node:test";
import assert from "node:assert/strict";

import { bestFix, distanceM, fmtDistance, locationProblem, onFix, startWatching }
  from "../../inspect_api/static/pwa/js/geo.js";

// A stand-in for navigator.geolocation that hands the app's callbacks to the test. Node 20 has no
// navigator; later versions define one that cannot be assigned, hence defineProperty.
const geolocation = { watchPosition(ok, fail, options) { Object.assign(this, { ok, fail, options }); return 7; } };
Object.defineProperty(globalThis, "navigator", { value: { geolocation }, configurable: true, writable: true });
const position = (lat, lon, accuracy, at = Date.now()) => ({ coords: { latitude: lat, longitude: lon, accuracy }, timestamp: at });

test("great-circle distance in metres", () => {
  const townHall = { lat: 41.6376, lon: -70.9036 };
  assert.equal(distanceM(townHall, townHall), 0);
  // One degree of latitude on the mean-radius sphere: 2 * pi * 6371008.8 / 360.
  assert.ok(Math.abs(distanceM({ lat: 0, lon: 0 }, { lat: 1, lon: 0 }) - 111195.08) < 0.01);
  // Symmetric, and across the antimeridian the short way round.
  const a = { lat: 41.6376, lon: -70.9036 }, b = { lat: 41.6500, lon: -70.8800 };
  assert.equal(distanceM(a, b), distanceM(b, a));
  assert.ok(distanceM({ lat: 0, lon: 179.5 }, { lat: 0, lon: -179.5 }) < 111200);
  assert.equal(distanceM(null, townHall), null);
  assert.equal(distanceM(townHall, undefined), null);
});

test("distances read in metres up to a kilometre, then in miles", () => {
  assert.equal(fmtDistance(0), "0 m away");
  assert.equal(fmtDistance(999.4), "999 m away");
  assert.equal(fmtDistance(1000), "0.6 mi away");
  assert.equal(fmtDistance(16000), "9.9 mi away");
  assert.equal(fmtDistance(16093.44), "10 mi away");
  assert.equal(fmtDistance(null), "");
  assert.equal(fmtDistance(undefined), "");
});

test("a photo gets the most precise fix of the last two minutes, and a refusal is said plainly", () => {
  assert.equal(bestFix(), null, "no fix before watching");
  const heard = [];
  const stop = onFix((fix) => heard.push(fix));
  startWatching();
  startWatching(); // a second call must not start a second watch
  assert.equal(geolocation.options.enableHighAccuracy, true);

  const now = Date.now();
  geolocation.ok(position(41.1, -70.1, 3, now - 3 * 60 * 1000)); // older than two minutes: dropped
  assert.equal(bestFix(), null);
  geolocation.ok(position(41.2, -70.2, 25, now - 60 * 1000));
  geolocation.ok(position(41.3, -70.3, 8, now - 30 * 1000));
  geolocation.ok(position(41.4, -70.4, 40, now));
  assert.deepEqual(bestFix(), { lat: 41.3, lon: -70.3, accuracy_m: 8, at: now - 30 * 1000 });
  assert.equal(heard.length, 4);
  assert.equal(heard.at(-1).accuracy_m, 8);

  geolocation.fail({ code: 1 });
  assert.equal(locationProblem(), "Location is turned off for this app.");
  assert.equal(heard.at(-1), null);
  geolocation.fail({ code: 3 });
  assert.equal(locationProblem(), "No location fix yet.");
  geolocation.ok(position(41.5, -70.5, 5, Date.now()));
  assert.equal(locationProblem(), null, "a fix clears the problem");
  assert.equal(bestFix().accuracy_m, 5);

  stop();
  geolocation.ok(position(41.6, -70.6, 1, Date.now()));
  assert.equal(heard.at(-1).accuracy_m, 5, "a removed listener hears nothing more");
});
