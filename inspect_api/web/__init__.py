"""The field app (a progressive web app in static/pwa/), served by the same Flask app as the API."""
