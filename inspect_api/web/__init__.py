"""The field app (a progressive web app in inspect_api/static/pwa/), served by the same Flask app as the API."""
