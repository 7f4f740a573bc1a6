// "Use my location" on the report form: fills latitude, longitude and accuracy from the phone.
// Progressive enhancement only: without JavaScript the button stays hidden and people type an address
// or the coordinates themselves. The messages come translated from the page (data-* attributes).

const box = document.querySelector("[data-locate]");
if (box && "geolocation" in navigator) {
  const button = box.querySelector("[data-locate-button]");
  const status = box.querySelector("[data-locate-status]");
  const lat = document.getElementById("lat");
  const lon = document.getElementById("lon");
  const accuracy = document.getElementById("accuracy_m");
  box.hidden = false;
  button.addEventListener("click", () => {
    button.disabled = true;
    status.textContent = box.dataset.busy;
    navigator.geolocation.getCurrentPosition((position) => {
      lat.value = position.coords.latitude.toFixed(6);
      lon.value = position.coords.longitude.toFixed(6);
      accuracy.value = String(Math.round(position.coords.accuracy));
      // The form's map (pick.js), where there is one, puts its pin there and centres on it.
      lat.dispatchEvent(new Event("change", { bubbles: true }));
      status.textContent = box.dataset.done;
      button.disabled = false;
    }, () => {
      status.textContent = box.dataset.failed;
      button.disabled = false;
    }, { enableHighAccuracy: true, timeout: 20000, maximumAge: 60000 });
  });
}
